#include "tools/graph_dot.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "framework/tool/subgraph_expansion.h"
#include "framework/tool/tag_map.h"

namespace sluice::cli {
namespace {

std::string Quote(const std::string& s) {
  return absl::StrCat("\"", absl::StrReplaceAll(s, {{"\\", "\\\\"}, {"\"", "\\\""}}), "\"");
}

// Stream name of a spec; malformed specs are drawn verbatim (viz must not fail
// on a config that validation would reject).
std::string StreamName(const std::string& spec) {
  auto parsed = ParseTagIndexName(spec);
  return parsed.ok() ? parsed->name : spec;
}

// Names of the node's input streams marked as back edges.
std::set<std::string> BackEdgeStreams(const mediapipe::CalculatorGraphConfig::Node& node) {
  std::set<std::string> names;
  auto inputs = TagMap::Create(node.input_stream());
  if (!inputs.ok()) return names;
  for (const auto& info : node.input_stream_info()) {
    auto ti = ParseTagIndex(info.tag_index());
    if (!info.back_edge() || !ti.ok()) continue;
    int id = (*inputs)->GetId(ti->tag, ti->index);
    if (id >= 0) names.insert((*inputs)->Entry(id).name);
  }
  return names;
}

}  // namespace

std::string GraphToDot(const mediapipe::CalculatorGraphConfig& config) {
  std::ostringstream dot;
  dot << "digraph sluice {\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n";
  std::map<std::string, std::string> producer;  // stream -> dot node id
  for (int i = 0; i < config.input_stream_size(); ++i) {
    std::string name = StreamName(config.input_stream(i));
    std::string id = absl::StrCat("in_", i);
    dot << "  " << id << " [shape=ellipse,style=filled,fillcolor=\"#d8ecff\",label="
        << Quote(name) << "];\n";
    producer[name] = id;
  }
  for (int n = 0; n < config.node_size(); ++n) {
    const auto& node = config.node(n);
    std::string label = CanonicalNodeName(config, n);
    if (label != node.calculator()) label = absl::StrCat(label, "\\n(", node.calculator(), ")");
    dot << "  n" << n << " [shape=box,style=rounded,label=\"" << label << "\"];\n";
    for (const std::string& spec : node.output_stream()) {
      producer[StreamName(spec)] = absl::StrCat("n", n);
    }
  }
  std::set<std::string> consumed;
  for (int n = 0; n < config.node_size(); ++n) {
    const auto& node = config.node(n);
    const std::set<std::string> back_edges = BackEdgeStreams(node);
    for (const std::string& spec : node.input_stream()) {
      std::string name = StreamName(spec);
      consumed.insert(name);
      auto it = producer.find(name);
      std::string from = it != producer.end() ? it->second : absl::StrCat("missing_", name);
      if (it == producer.end()) {
        dot << "  " << Quote(from) << " [shape=plaintext,fontcolor=red,label="
            << Quote(absl::StrCat(name, " (no producer)")) << "];\n";
        from = Quote(from);
      }
      dot << "  " << from << " -> n" << n << " [label=" << Quote(name)
          << (back_edges.count(name) ? ",style=dashed,constraint=false" : "") << "];\n";
    }
  }
  for (int i = 0; i < config.output_stream_size(); ++i) {
    std::string name = StreamName(config.output_stream(i));
    auto it = producer.find(name);
    if (it == producer.end()) continue;
    dot << "  out_" << i << " [shape=ellipse,style=filled,fillcolor=\"#e2f5d8\",label="
        << Quote(name) << "];\n";
    dot << "  " << it->second << " -> out_" << i << ";\n";
  }
  dot << "}\n";
  return dot.str();
}

absl::Status WriteGraphDrawing(const mediapipe::CalculatorGraphConfig& config,
                               const std::string& path) {
  std::string dot = GraphToDot(config);
  if (absl::EndsWith(path, ".dot")) {
    std::ofstream out(path);
    out << dot;
    if (!out.good()) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
    return absl::OkStatus();
  }
  std::string format;
  if (absl::EndsWith(path, ".svg")) format = "svg";
  if (absl::EndsWith(path, ".png")) format = "png";
  if (format.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("output \"", path, "\" must end in .dot, .svg or .png"));
  }
  std::string command = absl::StrCat("dot -T", format, " -o '", path, "'");
  FILE* pipe = popen(command.c_str(), "w");
  if (pipe == nullptr) return absl::UnavailableError("cannot start Graphviz `dot`");
  fwrite(dot.data(), 1, dot.size(), pipe);
  int rc = pclose(pipe);
  if (rc != 0) {
    return absl::UnavailableError(absl::StrCat(
        "Graphviz `dot` failed (exit ", rc, ") writing ", path,
        "; is graphviz installed (tools/setup.sh)? Use a .dot output to skip rendering"));
  }
  return absl::OkStatus();
}

}  // namespace sluice::cli
