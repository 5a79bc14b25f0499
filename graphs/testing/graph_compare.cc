#include "graphs/testing/graph_compare.h"

#include <cstdlib>
#include <vector>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "framework/tool/subgraph_expansion.h"

namespace sluice::graph_test {
namespace {

template <typename Repeated>
std::vector<std::string> List(const Repeated& r) {
  return std::vector<std::string>(r.begin(), r.end());
}

}  // namespace

std::string MediaPipeModulesDir() {
  const char* env = std::getenv("SLUICE_SHARED_DIR");
  return std::string(env != nullptr && *env ? env : "../shared") +
         "/mediapipe_graphs/mediapipe/modules";
}

mediapipe::CalculatorGraphConfig ExpandTopLevel(const SubgraphRegistry& registry,
                                                const std::string& type) {
  auto config = registry.Create(type, mediapipe::CalculatorGraphConfig::Node());
  EXPECT_TRUE(config.ok()) << config.status();
  if (!config.ok()) return {};
  absl::Status s = ExpandSubgraphs(&*config, registry);
  EXPECT_TRUE(s.ok()) << s;
  return *config;
}

std::map<std::string, mediapipe::CalculatorGraphConfig::Node> NodesByName(
    const mediapipe::CalculatorGraphConfig& config) {
  std::map<std::string, mediapipe::CalculatorGraphConfig::Node> nodes;
  for (int i = 0; i < config.node_size(); ++i) nodes[CanonicalNodeName(config, i)] = config.node(i);
  return nodes;
}

void ExpectExpandsLike(const SubgraphRegistry& ours, const SubgraphRegistry& theirs,
                       const std::string& type, const CompareOptions& options) {
  SCOPED_TRACE(type);
  const mediapipe::CalculatorGraphConfig our_config = ExpandTopLevel(ours, type);
  const mediapipe::CalculatorGraphConfig their_config = ExpandTopLevel(theirs, type);
  const auto our_nodes = NodesByName(our_config);
  const auto their_nodes = NodesByName(their_config);
  ASSERT_FALSE(their_nodes.empty());
  if (options.same_node_count) EXPECT_EQ(our_nodes.size(), their_nodes.size());
  for (const auto& [name, node] : our_nodes) {
    if (options.ours_only.count(name)) continue;
    EXPECT_TRUE(their_nodes.count(name)) << "extra node " << name;
  }
  for (const auto& [name, their_node] : their_nodes) {
    auto it = our_nodes.find(name);
    if (it == our_nodes.end()) {
      ADD_FAILURE() << "missing node " << name;
      continue;
    }
    if (options.name_only_calculators.count(it->second.calculator())) continue;
    std::string diff;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&diff);
    EXPECT_TRUE(differencer.Compare(it->second, their_node)) << name << ":\n" << diff;
  }
  if (options.same_interface) {
    EXPECT_EQ(List(our_config.input_stream()), List(their_config.input_stream()));
    EXPECT_EQ(List(our_config.output_stream()), List(their_config.output_stream()));
    EXPECT_EQ(List(our_config.input_side_packet()), List(their_config.input_side_packet()));
    EXPECT_EQ(List(our_config.output_side_packet()), List(their_config.output_side_packet()));
  }
}

}  // namespace sluice::graph_test
