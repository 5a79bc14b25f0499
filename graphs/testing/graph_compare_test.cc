// The comparison harness itself: it must pass identical graphs and report
// each kind of difference the graphs/*_graphs_test.cc rely on it to find.
#include "graphs/testing/graph_compare.h"

#include <string>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

namespace sluice::graph_test {
namespace {

constexpr char kGraph[] = R"pb(
  type: "Tiny"
  input_stream: "in"
  output_stream: "out"
  node { name: "n1" calculator: "PassThroughCalculator" input_stream: "in" output_stream: "mid" }
  node { name: "n2" calculator: "PassThroughCalculator" input_stream: "mid" output_stream: "out" }
)pb";

// kGraph with `from` replaced by `to`.
std::string Edited(const std::string& from, const std::string& to) {
  std::string text = kGraph;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Registers kGraph as theirs and `ours_text` as ours, then compares.
void Compare(const std::string& ours_text, const CompareOptions& options) {
  SubgraphRegistry ours, theirs;
  ASSERT_TRUE(theirs.RegisterGraphText(kGraph).ok());
  ASSERT_TRUE(ours.RegisterGraphText(ours_text).ok());
  ExpectExpandsLike(ours, theirs, "Tiny", options);
}

TEST(GraphCompareTest, IdenticalGraphsPass) {
  CompareOptions options;
  options.same_node_count = true;
  options.same_interface = true;
  Compare(kGraph, options);
}

TEST(GraphCompareTest, ReportsADifferentStream) {
  EXPECT_NONFATAL_FAILURE(Compare(Edited("output_stream: \"out\" }", "output_stream: \"x\" }"), {}),
                          "n2:");
}

TEST(GraphCompareTest, ReportsAMissingNode) {
  const std::string ours = Edited("node { name: \"n2\"", "# node { name: \"n2\"");
  EXPECT_NONFATAL_FAILURE(Compare(ours, {}), "missing node n2");
}

TEST(GraphCompareTest, ExtraNodesFailUnlessDeclaredOursOnly) {
  const std::string ours = Edited(
      "output_stream: \"out\"\n",
      "output_stream: \"out\"\n  node { calculator: \"GateCalculator\" input_stream: \"in\" "
      "output_stream: \"gated\" }\n");
  EXPECT_NONFATAL_FAILURE(Compare(ours, {}), "extra node GateCalculator");
  CompareOptions options;
  options.ours_only = {"GateCalculator"};
  Compare(ours, options);
  options.same_node_count = true;
  EXPECT_NONFATAL_FAILURE(Compare(ours, options), "their_nodes.size()");
}

TEST(GraphCompareTest, InterfaceIsComparedOnlyWhenAsked) {
  const std::string ours =
      Edited("input_stream: \"in\"\n", "input_stream: \"in\"\n  input_stream: \"extra\"\n");
  Compare(ours, {});
  CompareOptions options;
  options.same_interface = true;
  EXPECT_NONFATAL_FAILURE(Compare(ours, options), "input_stream");
}

TEST(GraphCompareTest, NameOnlyCalculatorsSkipTheFieldComparison) {
  const std::string ours = Edited("output_stream: \"out\" }", "output_stream: \"x\" }");
  CompareOptions options;
  options.name_only_calculators = {"PassThroughCalculator"};
  Compare(ours, options);
}

}  // namespace
}  // namespace sluice::graph_test
