#include <string>

#include "calculators/core/testing/graph_test_util.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::ParseConfig;

absl::StatusOr<Packet> RunAndGetValue(const std::string& text,
                                      const CalculatorGraph::SidePackets& side) {
  auto config = ParseConfig(text);
  if (!config.ok()) return config.status();
  CalculatorGraph graph;
  absl::Status s = graph.Initialize(*config);
  if (!s.ok()) return s;
  s = graph.Run(side);
  if (!s.ok()) return s;
  return graph.GetOutputSidePacket("value");
}

constexpr char kBothInputs[] = R"pb(
  input_side_packet: "optional"
  input_side_packet: "default"
  node {
    calculator: "DefaultSidePacketCalculator"
    input_side_packet: "OPTIONAL_VALUE:optional"
    input_side_packet: "DEFAULT_VALUE:default"
    output_side_packet: "VALUE:value"
  })pb";

TEST(DefaultSidePacketCalculatorTest, PrefersOptionalValue) {
  auto v = RunAndGetValue(kBothInputs, {{"optional", MakePacket<int>(1)},
                                        {"default", MakePacket<int>(2)}});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->Get<int>(), 1);
}

TEST(DefaultSidePacketCalculatorTest, FallsBackToDefaultWithoutOptionalPort) {
  auto v = RunAndGetValue(R"pb(
    input_side_packet: "default"
    node {
      calculator: "DefaultSidePacketCalculator"
      input_side_packet: "DEFAULT_VALUE:default"
      output_side_packet: "VALUE:value"
    })pb",
                          {{"default", MakePacket<std::string>("d")}});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->Get<std::string>(), "d");
}

TEST(DefaultSidePacketCalculatorTest, FallsBackToDefaultWhenOptionalNotSupplied) {
  auto v = RunAndGetValue(kBothInputs, {{"default", MakePacket<int>(2)}});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->Get<int>(), 2);
}

TEST(DefaultSidePacketCalculatorTest, RequiresDefaultValue) {
  auto v = RunAndGetValue(R"pb(
    input_side_packet: "optional"
    node {
      calculator: "DefaultSidePacketCalculator"
      input_side_packet: "OPTIONAL_VALUE:optional"
      output_side_packet: "VALUE:value"
    })pb",
                          {{"optional", MakePacket<int>(1)}});
  EXPECT_FALSE(v.ok());
}

}  // namespace
}  // namespace sluice
