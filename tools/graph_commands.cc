// `sluice run | validate | expand | viz`: the graph runtime from the command line.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "framework/calculator_graph.h"
#include "framework/tool/graph_config_io.h"
#include "framework/tool/subgraph_expansion.h"
#include "framework/tool/subgraph_registry.h"
#include "framework/tool/tag_map.h"
#include "framework/tracer.h"
#include "tools/commands.h"
#include "tools/graph_dot.h"
#include "tools/packet_text.h"

namespace sluice::cli {
namespace {

// Prints "sluice <cmd>: <message>" and leaves with exit code 1.
[[noreturn]] void Fail(const std::string& cmd, const absl::Status& status) {
  std::cerr << "sluice " << cmd << ": " << status.message() << std::endl;
  throw CLI::RuntimeError(1);
}

struct GraphArgs {
  std::string graph;
  std::vector<std::string> subgraphs;
};

void AddGraphArgs(CLI::App* cmd, GraphArgs* args) {
  cmd->add_option("graph", args->graph, "Graph config (.pbtxt text or .binarypb binary)")
      ->required();
  cmd->add_option("--subgraphs", args->subgraphs,
                  "Register every subgraph (.pbtxt/.binarypb with `type:`) in a file or folder");
}

// Loads the graph file after registering the --subgraphs files.
mediapipe::CalculatorGraphConfig LoadGraph(const std::string& cmd, const GraphArgs& args) {
  for (const std::string& path : args.subgraphs) {
    absl::Status s = SubgraphRegistry::Get().RegisterGraphsFrom(path);
    if (!s.ok()) Fail(cmd, s);
  }
  auto config = LoadGraphConfigFile(args.graph);
  if (!config.ok()) Fail(cmd, config.status());
  return *std::move(config);
}

// A stream fed with --input that the config consumes but neither declares nor
// produces becomes a graph input stream (MediaPipe's snippets often leave the
// source out); anything else is left to validation.
void DeclareFedStreams(const std::vector<std::pair<std::string, std::vector<Packet>>>& inputs,
                       mediapipe::CalculatorGraphConfig* config) {
  std::set<std::string> known;
  for (const std::string& spec : config->input_stream()) {
    auto parsed = ParseTagIndexName(spec);
    known.insert(parsed.ok() ? parsed->name : spec);
  }
  for (const auto& node : config->node()) {
    for (const std::string& spec : node.output_stream()) {
      auto parsed = ParseTagIndexName(spec);
      known.insert(parsed.ok() ? parsed->name : spec);
    }
  }
  std::set<std::string> consumed;
  for (const auto& node : config->node()) {
    for (const std::string& spec : node.input_stream()) {
      auto parsed = ParseTagIndexName(spec);
      consumed.insert(parsed.ok() ? parsed->name : spec);
    }
  }
  for (const auto& input : inputs) {
    if (consumed.count(input.first) && known.insert(input.first).second) {
      config->add_input_stream(input.first);
    }
  }
}

struct RunArgs {
  GraphArgs graph;
  std::vector<std::string> sides;
  std::vector<std::string> inputs;
  std::vector<std::string> prints;
  std::string trace;
};

void RunGraph(const RunArgs& args) {
  const std::string cmd = "run";
  mediapipe::CalculatorGraphConfig config = LoadGraph(cmd, args.graph);

  CalculatorGraph::SidePackets side_packets;
  for (const std::string& spec : args.sides) {
    auto side = ParseSideSpec(spec);
    if (!side.ok()) Fail(cmd, side.status());
    side_packets[side->first] = side->second;
  }
  std::vector<std::pair<std::string, std::vector<Packet>>> inputs;
  for (const std::string& spec : args.inputs) {
    auto input = ParseInputSpec(spec);
    if (!input.ok()) Fail(cmd, input.status());
    inputs.push_back(*std::move(input));
  }

  DeclareFedStreams(inputs, &config);
  CalculatorGraph graph;
  if (!args.trace.empty()) graph.EnableTracing();
  absl::Status status = graph.Initialize(config);
  if (!status.ok()) Fail(cmd, status);

  // Observers run on scheduler threads; one mutex keeps each line whole.
  std::mutex print_mu;
  for (const std::string& stream : args.prints) {
    status = graph.ObserveOutputStream(stream, [stream, &print_mu](const Packet& p) {
      std::lock_guard<std::mutex> lock(print_mu);
      std::cout << stream << " " << p.Timestamp().Value() << " " << PacketValueToText(p)
                << "\n";
      return absl::OkStatus();
    });
    if (!status.ok()) Fail(cmd, status);
  }
  for (const auto& [name, packets] : inputs) {
    if (!graph.HasInputStream(name)) {
      Fail(cmd, absl::InvalidArgumentError(
                    absl::StrCat("--input names \"", name,
                                 "\", which is not an input_stream of the graph")));
    }
  }

  status = graph.StartRun(side_packets);
  if (!status.ok()) Fail(cmd, status);
  for (const auto& [name, packets] : inputs) {
    for (size_t i = 0; i < packets.size() && status.ok(); ++i) {
      status = graph.AddPacketToInputStream(name, packets[i].At(Timestamp(i)));
    }
    if (!status.ok()) break;
    status = graph.CloseInputStream(name);
    if (!status.ok()) break;
  }
  if (status.ok()) status = graph.CloseAllInputStreams();
  absl::Status done = graph.WaitUntilDone();
  std::cout.flush();
  if (!args.trace.empty() && graph.tracer() != nullptr) {
    absl::Status t = graph.tracer()->WriteChromeTrace(args.trace);
    if (!t.ok()) std::cerr << "sluice run: " << t.message() << std::endl;
    std::cerr << graph.tracer()->Summary();
  }
  if (!done.ok()) Fail(cmd, done);
  if (!status.ok()) Fail(cmd, status);
}

}  // namespace

void AddGraphCommands(CLI::App& app) {
  // Shared with the callbacks, which the app keeps as long as it lives.
  auto run_args = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand("run", "Run a graph to completion");
  AddGraphArgs(run, &run_args->graph);
  run->add_option("--side", run_args->sides, "Input side packet NAME=TYPE:VALUE "
                                             "(TYPE: int, int64, float, double, bool, string, counter)");
  run->add_option("--input", run_args->inputs,
                  "Feed graph input STREAM=TYPE:V1,V2,... at timestamps 0,1,2,... then close it");
  run->add_option("--print", run_args->prints,
                  "Print every packet of STREAM as `STREAM TIMESTAMP VALUE`");
  run->add_option("--trace", run_args->trace, "Write a Chrome/Perfetto trace JSON here");
  run->callback([run_args] { RunGraph(*run_args); });

  auto validate_args = std::make_shared<GraphArgs>();
  CLI::App* validate = app.add_subcommand("validate", "Check a graph config; prints OK or errors");
  AddGraphArgs(validate, validate_args.get());
  validate->callback([validate_args] {
    mediapipe::CalculatorGraphConfig config = LoadGraph("validate", *validate_args);
    CalculatorGraph graph;
    absl::Status status = graph.Initialize(config);
    if (!status.ok()) Fail("validate", status);
    std::cout << "OK " << validate_args->graph << " (" << graph.Config().node_size()
              << " nodes after expansion)" << std::endl;
  });

  auto expand_args = std::make_shared<GraphArgs>();
  CLI::App* expand = app.add_subcommand(
      "expand", "Print the config after subgraph expansion and option_value, as pbtxt");
  AddGraphArgs(expand, expand_args.get());
  expand->callback([expand_args] {
    mediapipe::CalculatorGraphConfig config = LoadGraph("expand", *expand_args);
    absl::Status status = ExpandSubgraphs(&config);
    if (!status.ok()) Fail("expand", status);
    std::cout << GraphConfigToText(config);
  });

  auto viz_args = std::make_shared<GraphArgs>();
  auto viz_out = std::make_shared<std::string>();
  CLI::App* viz = app.add_subcommand("viz", "Draw the expanded graph with Graphviz");
  AddGraphArgs(viz, viz_args.get());
  viz->add_option("-o,--output", *viz_out, "Output file: .dot, .svg or .png")->required();
  viz->callback([viz_args, viz_out] {
    mediapipe::CalculatorGraphConfig config = LoadGraph("viz", *viz_args);
    absl::Status status = ExpandSubgraphs(&config);
    if (status.ok()) status = WriteGraphDrawing(config, *viz_out);
    if (!status.ok()) Fail("viz", status);
    std::cout << "wrote " << *viz_out << std::endl;
  });
}

}  // namespace sluice::cli
