#include "framework/tool/subgraph_expansion.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/tool/options_util.h"
#include "framework/tool/tag_map.h"
#include "util/status_macros.h"

namespace sluice {
namespace {

using mediapipe::CalculatorGraphConfig;
using Node = mediapipe::CalculatorGraphConfig::Node;
using Streams = google::protobuf::RepeatedPtrField<std::string>;
using NameFn = std::function<std::string(const std::string&)>;

// Rewrites the name part (after the last ':') of every spec.
void TransformStreamNames(Streams* streams, const NameFn& transform) {
  for (std::string& spec : *streams) {
    size_t colon = spec.rfind(':');
    size_t name_pos = colon == std::string::npos ? 0 : colon + 1;
    spec = spec.substr(0, name_pos) + transform(spec.substr(name_pos));
  }
}

void TransformNames(CalculatorGraphConfig* config, const NameFn& transform) {
  for (Streams* s : {config->mutable_input_stream(), config->mutable_output_stream(),
                     config->mutable_input_side_packet(),
                     config->mutable_output_side_packet()}) {
    TransformStreamNames(s, transform);
  }
  std::vector<std::string> names;
  for (int i = 0; i < config->node_size(); ++i) names.push_back(CanonicalNodeName(*config, i));
  for (int i = 0; i < config->node_size(); ++i) {
    Node* node = config->mutable_node(i);
    node->set_name(transform(names[i]));
    for (Streams* s : {node->mutable_input_stream(), node->mutable_output_stream(),
                       node->mutable_input_side_packet(), node->mutable_output_side_packet()}) {
      TransformStreamNames(s, transform);
    }
  }
  for (auto& generator : *config->mutable_packet_generator()) {
    TransformStreamNames(generator.mutable_input_side_packet(), transform);
    TransformStreamNames(generator.mutable_output_side_packet(), transform);
  }
  for (auto& handler : *config->mutable_status_handler()) {
    TransformStreamNames(handler.mutable_input_side_packet(), transform);
  }
}

// Maps the subgraph's declared names to the parent node's, by (tag, index).
absl::Status MapCorrespondingStreams(const Streams& subgraph_side, const Streams& node_side,
                                     absl::string_view what,
                                     std::map<std::string, std::string>* map) {
  auto context = [&](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("in the ", what, ": ", s.message()));
  };
  auto src = TagMap::Create(subgraph_side);
  if (!src.ok()) return context(absl::InvalidArgumentError(absl::StrCat(
      "subgraph config: ", src.status().message())));
  auto dst = TagMap::Create(node_side);
  if (!dst.ok()) return context(dst.status());
  for (const std::string& tag : (*dst)->Tags()) {
    if (!(*src)->HasTag(tag)) {
      return context(absl::InvalidArgumentError(absl::StrCat(
          "tag \"", tag, "\" does not exist in the subgraph config (declared: ",
          absl::StrJoin((*src)->CanonicalSpecs(), ", "), ")")));
    }
    const int want = (*dst)->NumEntries(tag);
    const int have = (*src)->NumEntries(tag);
    if (want > have) {
      return context(absl::InvalidArgumentError(absl::StrCat(
          "tag \"", tag, "\" has ", want, " indexes in the subgraph node but only ",
          have, " in the subgraph config")));
    }
    for (int i = 0; i < want; ++i) {
      (*map)[(*src)->Entry((*src)->GetId(tag, i)).name] =
          (*dst)->Entry((*dst)->GetId(tag, i)).name;
    }
  }
  return absl::OkStatus();
}

// Declared subgraph inputs that the parent node does not connect.
std::set<std::string> IgnoredInputs(const Streams& subgraph_side, const Streams& node_side) {
  std::set<std::string> ignored;
  auto src = TagMap::Create(subgraph_side);
  auto dst = TagMap::Create(node_side);
  if (!src.ok() || !dst.ok()) return ignored;  // already reported by the mapping
  for (const TagIndexName& e : (*src)->Entries()) {
    if ((*dst)->GetId(e.tag, e.index) < 0) ignored.insert(e.name);
  }
  return ignored;
}

void RemoveIgnored(Streams* streams, const std::set<std::string>& ignored) {
  for (int i = streams->size() - 1; i >= 0; --i) {
    auto parsed = ParseTagIndexName(streams->Get(i));
    if (parsed.ok() && ignored.count(parsed->name) > 0) streams->DeleteSubrange(i, 1);
  }
}

absl::Status ConnectSubgraphStreams(const Node& node, CalculatorGraphConfig* subgraph) {
  std::map<std::string, std::string> streams, side_packets;
  RETURN_IF_ERROR(MapCorrespondingStreams(subgraph->input_stream(), node.input_stream(),
                                          "input streams", &streams));
  RETURN_IF_ERROR(MapCorrespondingStreams(subgraph->output_stream(), node.output_stream(),
                                          "output streams", &streams));
  RETURN_IF_ERROR(MapCorrespondingStreams(subgraph->input_side_packet(),
                                          node.input_side_packet(), "input side packets",
                                          &side_packets));
  RETURN_IF_ERROR(MapCorrespondingStreams(subgraph->output_side_packet(),
                                          node.output_side_packet(), "output side packets",
                                          &side_packets));
  const std::set<std::string> ignored_streams =
      IgnoredInputs(subgraph->input_stream(), node.input_stream());
  const std::set<std::string> ignored_side_packets =
      IgnoredInputs(subgraph->input_side_packet(), node.input_side_packet());
  auto replace_in = [](const std::map<std::string, std::string>& map) {
    return [&map](const std::string& name) {
      auto it = map.find(name);
      return it == map.end() ? name : it->second;
    };
  };
  for (Node& inner : *subgraph->mutable_node()) {
    TransformStreamNames(inner.mutable_input_stream(), replace_in(streams));
    TransformStreamNames(inner.mutable_output_stream(), replace_in(streams));
    TransformStreamNames(inner.mutable_input_side_packet(), replace_in(side_packets));
    TransformStreamNames(inner.mutable_output_side_packet(), replace_in(side_packets));
    RemoveIgnored(inner.mutable_input_stream(), ignored_streams);
    RemoveIgnored(inner.mutable_input_side_packet(), ignored_side_packets);
  }
  for (auto& generator : *subgraph->mutable_packet_generator()) {
    TransformStreamNames(generator.mutable_input_side_packet(), replace_in(side_packets));
    TransformStreamNames(generator.mutable_output_side_packet(), replace_in(side_packets));
    RemoveIgnored(generator.mutable_input_side_packet(), ignored_side_packets);
  }
  return absl::OkStatus();
}

absl::Status ValidateSubgraphFields(const Node& node, const std::string& node_name) {
  std::vector<std::string> bad;
  if (node.source_layer() != 0) bad.push_back("source_layer");
  if (node.buffer_size_hint() != 0) bad.push_back("buffer_size_hint");
  if (node.has_output_stream_handler()) bad.push_back("output_stream_handler");
  if (node.input_stream_info_size() != 0) bad.push_back("input_stream_info");
  if (bad.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "subgraph node \"", node_name, "\" (", node.calculator(),
      ") has fields that are only applicable to calculators: ", absl::StrJoin(bad, ", ")));
}

}  // namespace

std::string CanonicalNodeName(const CalculatorGraphConfig& config, int node_index) {
  auto base = [&](int i) -> const std::string& {
    const Node& n = config.node(i);
    return n.name().empty() ? n.calculator() : n.name();
  };
  const std::string& name = base(node_index);
  int count = 0, sequence = 0;
  for (int i = 0; i < config.node_size(); ++i) {
    if (base(i) != name) continue;
    ++count;
    if (i < node_index) ++sequence;
  }
  return count <= 1 ? name : absl::StrCat(name, "_", sequence + 1);
}

std::string SubgraphPrefix(const std::string& node_name) {
  std::string prefix = absl::AsciiStrToLower(node_name);
  for (char& c : prefix) {
    if (c == '.' || c == ' ' || c == ':') c = '_';
  }
  return prefix + "__";
}

CalculatorGraphConfig MakeSingleNodeGraph(Node node) {
  CalculatorGraphConfig config;
  *config.mutable_input_stream() = node.input_stream();
  *config.mutable_output_stream() = node.output_stream();
  *config.mutable_input_side_packet() = node.input_side_packet();
  *config.mutable_output_side_packet() = node.output_side_packet();
  *config.add_node() = std::move(node);
  return config;
}

absl::Status ExpandSubgraphs(CalculatorGraphConfig* config, const SubgraphRegistry& registry) {
  return ExpandSubgraphs(config, registry, ExpansionOptions());
}

absl::Status ExpandSubgraphs(CalculatorGraphConfig* config, const SubgraphRegistry& registry,
                             const ExpansionOptions& options) {
  RETURN_IF_ERROR(ApplyOptionValues(options.parent_node, config, options.warnings));
  auto* nodes = config->mutable_node();
  // Subgraph types each expanded node came from, keyed by its (prefixed, so
  // unique) name: a subgraph that contains itself is reported, not expanded
  // forever.
  std::map<std::string, std::vector<std::string>> ancestry;
  for (int round = 0;; ++round) {
    auto first_subgraph = std::stable_partition(
        nodes->begin(), nodes->end(),
        [&](const Node& node) { return !registry.IsRegistered(node.calculator()); });
    if (first_subgraph == nodes->end()) return absl::OkStatus();
    if (round >= options.max_depth || nodes->size() > options.max_nodes) {
      return absl::FailedPreconditionError(absl::StrCat(
          "subgraph expansion stopped after ", round, " nested levels and ", nodes->size(),
          " nodes (limits: ", options.max_depth, ", ", options.max_nodes,
          "); still unexpanded: \"", first_subgraph->calculator(), "\" as node \"",
          first_subgraph->name(), "\""));
    }
    std::vector<CalculatorGraphConfig> expanded;
    for (auto it = first_subgraph; it != nodes->end(); ++it) {
      const Node& node = *it;
      const std::string node_name =
          CanonicalNodeName(*config, static_cast<int>(it - nodes->begin()));
      std::vector<std::string> chain;
      if (auto found = ancestry.find(node.name()); found != ancestry.end()) {
        chain = found->second;
      }
      chain.push_back(node.calculator());
      if (std::count(chain.begin(), chain.end(), node.calculator()) > 1) {
        return absl::FailedPreconditionError(absl::StrCat(
            "infinite recursion: subgraph \"", node.calculator(), "\" contains itself (",
            absl::StrJoin(chain, " -> "), ") at node \"", node_name, "\""));
      }
      RETURN_IF_ERROR(ValidateSubgraphFields(node, node_name));
      auto subgraph = registry.Create(node.calculator(), node);
      if (!subgraph.ok()) {
        return absl::Status(subgraph.status().code(),
                            absl::StrCat("expanding node \"", node_name, "\": ",
                                         subgraph.status().message()));
      }
      auto annotate = [&](const absl::Status& s) {
        return absl::Status(s.code(), absl::StrCat("expanding node \"", node_name,
                                                   "\" (subgraph ", node.calculator(),
                                                   "): ", s.message()));
      };
      if (subgraph->packet_factory_size() != 0) {
        return annotate(absl::InvalidArgumentError("packet_factory is not supported in subgraphs"));
      }
      absl::Status status = ApplyOptionValues(node, &*subgraph, options.warnings);
      if (!status.ok()) return annotate(status);
      TransformNames(&*subgraph, [prefix = SubgraphPrefix(node_name)](const std::string& s) {
        return prefix + s;
      });
      status = ConnectSubgraphStreams(node, &*subgraph);
      if (!status.ok()) return annotate(status);
      for (const Node& inner : subgraph->node()) ancestry[inner.name()] = chain;
      expanded.push_back(*std::move(subgraph));
    }
    nodes->erase(first_subgraph, nodes->end());
    for (CalculatorGraphConfig& subgraph : expanded) {
      for (Node& n : *subgraph.mutable_node()) *nodes->Add() = std::move(n);
      for (auto& g : *subgraph.mutable_packet_generator()) {
        *config->add_packet_generator() = std::move(g);
      }
      for (auto& h : *subgraph.mutable_status_handler()) {
        *config->add_status_handler() = std::move(h);
      }
    }
  }
}

}  // namespace sluice
