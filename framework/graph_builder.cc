// GraphImpl::Initialize: subgraph expansion, node contracts, stream wiring and
// validation (every problem is collected and reported at once).
#include <algorithm>
#include <climits>
#include <set>

#include "absl/strings/str_join.h"
#include "framework/graph_internal.h"
#include "framework/tool/subgraph_expansion.h"
#include "proto/thread_pool_executor.pb.h"
#include "util/status_macros.h"

namespace sluice {
namespace internal {
namespace {

const char* const kDefaultHandler = "DefaultInputStreamHandler";

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

// Reports ports of a config list that the contract never declared, and tags the
// calculator asked for that the config lacks.
void CheckPorts(const CalculatorNode& n, const PacketTypeSet& set, const char* what,
                std::vector<std::string>* errors) {
  const std::string who = "Node " + Quote(n.name) + " (" + n.calculator + "): ";
  for (const std::string& m : set.Misses()) {
    errors->push_back(who + "the calculator uses " + what + " " + Quote(m) +
                      " which the node config does not connect");
  }
  for (int i = 0; i < set.NumEntries(); ++i) {
    if (!set.Get(i).IsInitialized()) {
      const auto& e = set.TagMap().EntryAt(i);
      errors->push_back(who + what + " " +
                        Quote((e.tag.empty() ? "" : e.tag + ":") + std::to_string(e.index) + ":" +
                              e.name) +
                        " is not declared by the calculator's contract (unknown tag or index)");
    }
  }
}

}  // namespace

absl::Status GraphImpl::BuildNodes(std::vector<std::string>* errors) {
  const auto& cfg = config_;
  for (int i = 0; i < cfg.node_size(); ++i) {
    auto node = std::make_unique<CalculatorNode>(this);
    CalculatorNode& n = *node;
    n.id = i;
    n.config = &cfg.node(i);
    n.name = CanonicalNodeName(cfg, i);
    n.calculator = n.config->calculator();
    const std::string who = "Node " + Quote(n.name) + " (" + n.calculator + "): ";
    n.factory = CalculatorRegistry::Get().Find(n.calculator);
    if (n.factory == nullptr) {
      std::string hint = CalculatorRegistry::Get().ClosestName(n.calculator);
      errors->push_back(who + "unknown calculator " + Quote(n.calculator) +
                        (hint.empty() ? "" : "; did you mean " + Quote(hint) + "?") +
                        " (a calculator library must be linked whole to register its calculators)");
    }
    auto make_map = [&](const google::protobuf::RepeatedPtrField<std::string>& specs,
                        const char* what) {
      auto m = PortMap::Create({specs.begin(), specs.end()});
      if (!m.ok()) {
        errors->push_back(who + what + ": " + std::string(m.status().message()));
        return PortMap::FromEntries({});
      }
      return *m;
    };
    n.in_map = make_map(n.config->input_stream(), "input_stream");
    n.out_map = make_map(n.config->output_stream(), "output_stream");
    n.in_side_map = make_map(n.config->input_side_packet(), "input_side_packet");
    n.out_side_map = make_map(n.config->output_side_packet(), "output_side_packet");
    n.options = std::make_shared<NodeOptions>(n.config);
    n.contract = std::make_unique<CalculatorContract>(n.config, n.name, n.in_map, n.out_map,
                                                      n.in_side_map, n.out_side_map, n.options);
    if (n.factory != nullptr) {
      absl::Status s = n.factory->get_contract(n.contract.get());
      if (!s.ok()) errors->push_back(who + "GetContract() failed: " + std::string(s.message()));
      CheckPorts(n, n.contract->Inputs(), "input stream", errors);
      CheckPorts(n, n.contract->Outputs(), "output stream", errors);
      CheckPorts(n, n.contract->InputSidePackets(), "input side packet", errors);
      CheckPorts(n, n.contract->OutputSidePackets(), "output side packet", errors);
      absl::Status os = n.options->status();
      if (!os.ok()) errors->push_back(who + std::string(os.message()));
    }
    // Input stream handler: node config, else the contract, else graph default.
    if (n.config->has_input_stream_handler()) {
      n.handler_name = n.config->input_stream_handler().input_stream_handler();
      n.handler_options = n.config->input_stream_handler().options();
    } else if (!n.contract->GetInputStreamHandler().empty()) {
      n.handler_name = n.contract->GetInputStreamHandler();
      n.handler_options = n.contract->GetInputStreamHandlerOptions();
    } else if (cfg.has_input_stream_handler()) {
      n.handler_name = cfg.input_stream_handler().input_stream_handler();
      n.handler_options = cfg.input_stream_handler().options();
    } else {
      n.handler_name = kDefaultHandler;
    }
    if (n.handler_name.empty()) n.handler_name = kDefaultHandler;
    auto handler = CreateInputStreamHandler(n.handler_name);
    if (!handler.ok()) {
      errors->push_back(who + std::string(handler.status().message()));
    } else {
      absl::Status s = (*handler)->Init(*n.in_map, n.handler_options,
                                        n.contract->GetProcessTimestampBounds());
      if (!s.ok()) errors->push_back(who + std::string(s.message()));
    }
    for (const auto& e : n.in_map->Entries()) {
      NodeInput in;
      in.name = e.name;
      n.inputs.push_back(std::move(in));
    }
    for (const auto& info : n.config->input_stream_info()) {
      std::string tag;
      int index;
      absl::Status s = ParsePortTagIndex(info.tag_index(), &tag, &index);
      int id = s.ok() ? n.in_map->GetId(tag, index) : -1;
      if (id < 0) {
        errors->push_back(who + "input_stream_info tag_index " + Quote(info.tag_index()) +
                          " names no input stream of the node");
        continue;
      }
      n.inputs[id].back_edge = info.back_edge();
    }
    n.outputs.assign(n.out_map->NumEntries(), nullptr);
    for (const auto& e : n.in_side_map->Entries()) n.input_side_names.push_back(e.name);
    for (const auto& e : n.out_side_map->Entries()) n.output_side_names.push_back(e.name);
    n.is_source = n.inputs.empty() && !n.outputs.empty();
    n.source_layer = n.config->source_layer();
    n.max_in_flight = std::max(1, n.config->max_in_flight());
    nodes_.push_back(std::move(node));
  }
  return absl::OkStatus();
}

void GraphImpl::BuildStreams(std::vector<std::string>* errors) {
  std::map<std::string, std::string> producer_of;  // stream -> producer description
  for (const std::string& spec : config_.input_stream()) {
    std::string tag, name;
    int index;
    absl::Status s = ParsePortSpec(spec, &tag, &index, &name);
    if (!s.ok()) {
      errors->push_back("Graph input_stream: " + std::string(s.message()));
      continue;
    }
    if (!producer_of.emplace(name, "the graph input").second) {
      errors->push_back("Graph input stream " + Quote(name) + " is declared twice");
      continue;
    }
    auto in = std::make_unique<GraphInput>();
    in->name = name;
    in->manager = std::make_unique<OutputStreamManager>();
    in->manager->name = name;
    streams_[name] = in->manager.get();
    inputs_.push_back(std::move(in));
  }
  for (auto& np : nodes_) {
    CalculatorNode& n = *np;
    for (int i = 0; i < n.out_map->NumEntries(); ++i) {
      const std::string& name = n.out_map->EntryAt(i).name;
      auto ins = producer_of.emplace(name, "node " + Quote(n.name));
      if (!ins.second) {
        errors->push_back("Stream " + Quote(name) + " has two producers: " + ins.first->second +
                          " and node " + Quote(n.name));
        continue;
      }
      auto m = std::make_unique<OutputStreamManager>();
      m->name = name;
      const PacketType& t = n.contract->Outputs().Get(i);
      m->type = t.IsInitialized() ? &t : nullptr;
      n.outputs[i] = m.get();
      streams_[name] = m.get();
      node_streams_[name] = std::move(m);
    }
  }
  for (auto& np : nodes_) {
    CalculatorNode& n = *np;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const std::string& name = n.inputs[i].name;
      auto it = streams_.find(name);
      if (it == streams_.end()) {
        errors->push_back("Input stream " + Quote(name) + " of node " + Quote(n.name) +
                          " has no producer (neither a graph input_stream nor any node's "
                          "output_stream)");
        continue;
      }
      n.inputs[i].producer = it->second;
      it->second->consumers.emplace_back(&n, static_cast<int>(i));
      const PacketType& want = n.contract->Inputs().Get(static_cast<int>(i));
      if (it->second->type != nullptr && want.IsInitialized()) {
        absl::Status s = want.CompatibleWith(*it->second->type);
        if (!s.ok()) {
          errors->push_back("Packet type mismatch on stream " + Quote(name) + " from " +
                            producer_of[name] + " to node " + Quote(n.name) + ": " +
                            std::string(s.message()));
        }
      }
    }
  }
  // Side packets: at most one producing node each; types must agree.
  for (auto& np : nodes_) {
    for (size_t i = 0; i < np->output_side_names.size(); ++i) {
      const std::string& name = np->output_side_names[i];
      auto ins = side_producers_.emplace(name, np.get());
      if (!ins.second) {
        errors->push_back("Side packet " + Quote(name) + " has two producers: nodes " +
                          Quote(ins.first->second->name) + " and " + Quote(np->name));
      }
    }
  }
  for (auto& np : nodes_) {
    for (size_t i = 0; i < np->input_side_names.size(); ++i) {
      const std::string& name = np->input_side_names[i];
      side_consumers_[name].push_back(np.get());
      auto it = side_producers_.find(name);
      if (it == side_producers_.end()) continue;
      CalculatorNode* p = it->second;
      int pid = -1;
      for (size_t k = 0; k < p->output_side_names.size(); ++k) {
        if (p->output_side_names[k] == name) pid = static_cast<int>(k);
      }
      const PacketType& want = np->contract->InputSidePackets().Get(static_cast<int>(i));
      const PacketType& have = p->contract->OutputSidePackets().Get(pid);
      if (want.IsInitialized() && have.IsInitialized()) {
        absl::Status s = want.CompatibleWith(have);
        if (!s.ok()) {
          errors->push_back("Packet type mismatch on side packet " + Quote(name) + " from node " +
                            Quote(p->name) + " to node " + Quote(np->name) + ": " +
                            std::string(s.message()));
        }
      }
    }
  }
  for (const std::string& spec : config_.output_stream()) {
    std::string tag, name;
    int index;
    if (!ParsePortSpec(spec, &tag, &index, &name).ok()) {
      errors->push_back("Graph output_stream " + Quote(spec) + " is not a valid stream spec");
    } else if (streams_.count(name) == 0) {
      errors->push_back("Graph output_stream " + Quote(name) + " is not produced by any node");
    }
  }
}

void GraphImpl::SortAndRank(std::vector<std::string>* errors) {
  // Kahn's algorithm over node->node edges, back edges excluded.
  std::map<OutputStreamManager*, CalculatorNode*> producer_node;
  for (auto& np : nodes_) {
    for (auto* m : np->outputs) {
      if (m) producer_node[m] = np.get();
    }
  }
  const int n = static_cast<int>(nodes_.size());
  std::vector<int> indegree(n, 0);
  std::vector<std::vector<int>> succ(n);
  for (auto& np : nodes_) {
    for (const auto& in : np->inputs) {
      if (in.back_edge || in.producer == nullptr) continue;
      auto it = producer_node.find(in.producer);
      if (it == producer_node.end()) continue;
      succ[it->second->id].push_back(np->id);
      ++indegree[np->id];
    }
  }
  std::vector<int> order;
  std::vector<int> ready;
  for (int i = n - 1; i >= 0; --i) {
    if (indegree[i] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    int v = ready.back();  // lowest config index first: stable order
    ready.pop_back();
    order.push_back(v);
    for (int w : succ[v]) {
      if (--indegree[w] == 0) {
        ready.push_back(w);
        std::sort(ready.rbegin(), ready.rend());
      }
    }
  }
  if (static_cast<int>(order.size()) < n) {
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) {
      if (indegree[i] > 0) names.push_back(Quote(nodes_[i]->name));
    }
    errors->push_back("Stream cycle detected among nodes " + absl::StrJoin(names, ", ") +
                      "; mark the input that closes the loop with input_stream_info { tag_index: "
                      "\"TAG\" back_edge: true }");
    return;
  }
  for (int r = 0; r < n; ++r) nodes_[order[r]]->rank = r;
}

void GraphImpl::ComputeAncestors() {
  // Throttle units: source nodes first, then graph inputs.
  unit_nodes_.clear();
  for (auto& np : nodes_) {
    if (np->is_source) {
      np->source_unit = static_cast<int>(unit_nodes_.size());
      unit_nodes_.push_back(np.get());
    }
  }
  for (auto& in : inputs_) {
    in->unit = static_cast<int>(unit_nodes_.size());
    unit_nodes_.push_back(nullptr);
    in->manager->ancestor_sources = {in->unit};
  }
  std::vector<CalculatorNode*> by_rank(nodes_.size());
  for (auto& np : nodes_) by_rank[np->rank] = np.get();
  for (CalculatorNode* node : by_rank) {
    std::set<int> units;
    if (node->is_source) units.insert(node->source_unit);
    for (const auto& in : node->inputs) {
      if (in.back_edge || in.producer == nullptr) continue;
      units.insert(in.producer->ancestor_sources.begin(), in.producer->ancestor_sources.end());
    }
    for (auto* m : node->outputs) {
      if (m) m->ancestor_sources.assign(units.begin(), units.end());
    }
  }
  max_queue_size_ = config_.max_queue_size() == 0 ? 100 : config_.max_queue_size();
  for (auto& np : nodes_) {
    for (auto& in : np->inputs) {
      in.max_queue_size = (max_queue_size_ < 0 || in.back_edge)
                              ? -1
                              : std::max(max_queue_size_, np->config->buffer_size_hint());
    }
  }
  throttle_count_.assign(unit_nodes_.size(), 0);
}

absl::Status GraphImpl::SetUpExecutors(std::vector<std::string>* errors) {
  std::vector<std::shared_ptr<Executor>> executors(1);
  std::map<std::string, int> index_of;
  const int default_threads =
      config_.num_threads() > 0
          ? config_.num_threads()
          : std::min(NumCpuCores(), std::max<int>(1, static_cast<int>(nodes_.size())));
  auto make_pool = [&](const mediapipe::ExecutorConfig& ec, int fallback_threads)
      -> std::shared_ptr<Executor> {
    int threads = fallback_threads;
    std::string prefix = ec.name().empty() ? "sluice" : ec.name();
    int nice = 0;
    if (ec.options().HasExtension(mediapipe::ThreadPoolExecutorOptions::ext)) {
      const auto& o = ec.options().GetExtension(mediapipe::ThreadPoolExecutorOptions::ext);
      if (o.num_threads() > 0) threads = o.num_threads();
      if (!o.thread_name_prefix().empty()) prefix = o.thread_name_prefix();
      nice = o.nice_priority_level();
    }
    return std::make_shared<ThreadPoolExecutor>(threads, prefix, nice);
  };
  std::vector<const mediapipe::ExecutorConfig*> named;
  for (const auto& ec : config_.executor()) {
    const std::string& type = ec.type();
    if (type != "" && type != "ThreadPoolExecutor" && type != "ApplicationThreadExecutor") {
      errors->push_back("Executor " + Quote(ec.name()) + ": unknown type " + Quote(type) +
                        " (ThreadPoolExecutor or ApplicationThreadExecutor)");
      continue;
    }
    if (ec.name() == "default" || ec.name() == "gpu" || ec.name().rfind("__", 0) == 0) {
      errors->push_back("Executor " + Quote(ec.name()) +
                        ": the name is reserved (\"default\", \"gpu\" and names starting "
                        "with \"__\"); use \"\" for the default executor");
      continue;
    }
    if (ec.name().empty()) {
      if (config_.num_threads() > 0) {
        errors->push_back(
            "num_threads is set and the default executor (name \"\") is configured too: "
            "set the thread count in one place, e.g. the executor's ThreadPoolExecutorOptions");
        continue;
      }
      if (executors[0]) {
        errors->push_back("The default executor (name \"\") is configured twice");
      } else if (type == "ApplicationThreadExecutor") {
        app_executor_ = std::make_shared<ApplicationThreadExecutor>();
        executors[0] = app_executor_;
      } else {
        executors[0] = make_pool(ec, default_threads);
      }
      continue;
    }
    if (type == "ApplicationThreadExecutor") {
      errors->push_back("Executor " + Quote(ec.name()) +
                        ": ApplicationThreadExecutor can only be the default executor");
      continue;
    }
    if (index_of.count(ec.name())) {
      errors->push_back("Executor " + Quote(ec.name()) + " is configured twice");
      continue;
    }
    index_of[ec.name()] = -1;
    named.push_back(&ec);
  }
  for (auto& kv : custom_executors_) {
    if (kv.first.empty()) {
      if (executors[0]) errors->push_back("The default executor is both configured and set");
      executors[0] = kv.second;
    } else {
      index_of[kv.first] = -1;
    }
  }
  for (auto& np : nodes_) {
    const std::string& ex = np->config->executor();
    if (!ex.empty() && index_of.count(ex) == 0) {
      errors->push_back("Node " + Quote(np->name) + ": unknown executor " + Quote(ex) +
                        " (declare it with executor { name: \"" + ex + "\" ... })");
    }
  }
  if (!errors->empty()) return absl::OkStatus();
  if (!executors[0]) {
    executors[0] = std::make_shared<ThreadPoolExecutor>(default_threads, "sluice");
  }
  for (auto& kv : index_of) {
    kv.second = static_cast<int>(executors.size());
    auto custom = custom_executors_.find(kv.first);
    if (custom != custom_executors_.end()) {
      executors.push_back(custom->second);
      continue;
    }
    for (const auto* ec : named) {
      if (ec->name() == kv.first) executors.push_back(make_pool(*ec, default_threads));
    }
  }
  for (auto& np : nodes_) {
    const std::string& ex = np->config->executor();
    np->executor = ex.empty() ? 0 : index_of[ex];
  }
  scheduler_->SetExecutors(std::move(executors));
  return absl::OkStatus();
}

absl::Status GraphImpl::Initialize(const mediapipe::CalculatorGraphConfig& config,
                                   const CalculatorGraph::SidePackets& side_packets) {
  if (initialized_) return absl::FailedPreconditionError("CalculatorGraph is already initialized");
  config_ = config;
  {
    absl::Status s = ExpandSubgraphs(&config_);
    if (!s.ok()) {
      return absl::Status(s.code(), "Subgraph expansion failed: " + std::string(s.message()));
    }
  }
  std::vector<std::string> errors;
  RETURN_IF_ERROR(BuildNodes(&errors));
  BuildStreams(&errors);
  SortAndRank(&errors);
  if (errors.empty()) ComputeAncestors();
  RETURN_IF_ERROR(SetUpExecutors(&errors));
  if (!errors.empty()) {
    nodes_.clear();
    node_streams_.clear();
    streams_.clear();
    inputs_.clear();
    side_producers_.clear();
    side_consumers_.clear();
    return absl::InvalidArgumentError("Invalid graph config (" + std::to_string(errors.size()) +
                                      (errors.size() == 1 ? " problem" : " problems") + "):\n  " +
                                      absl::StrJoin(errors, "\n  "));
  }
  if (tracing_requested_ || config_.profiler_config().trace_enabled()) {
    std::vector<std::string> names;
    for (auto& np : nodes_) names.push_back(np->name);
    tracer_ = std::make_unique<Tracer>(std::move(names));
  }
  init_side_packets_ = side_packets;
  initialized_ = true;
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace sluice
