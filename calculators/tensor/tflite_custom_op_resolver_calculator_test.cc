#include "calculators/tensor/tflite_custom_op_resolver_calculator.h"

#include "calculators/core/testing/graph_test_util.h"
#include "framework/calculator_graph.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

TfLiteOpResolver RunResolver(const std::string& options) {
  CalculatorGraph graph;
  auto c = testing::InitGraphWithCollectors(&graph, R"pb(
    node {
      calculator: "TfLiteCustomOpResolverCalculator"
      output_side_packet: "OP_RESOLVER:op_resolver"
      )pb" + options + "}", {});
  EXPECT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(graph.Run({}).ok());
  auto packet = graph.GetOutputSidePacket("op_resolver");
  EXPECT_TRUE(packet.ok()) << packet.status();
  auto resolver = packet->TryGet<TfLiteOpResolver>();
  EXPECT_TRUE(resolver.ok()) << resolver.status();
  return resolver.ok() ? **resolver : TfLiteOpResolver{true};
}

TEST(TfLiteCustomOpResolverCalculatorTest, OutputsAMarkerWithTheGpuFlavour) {
  EXPECT_FALSE(RunResolver("").use_gpu);
  EXPECT_TRUE(RunResolver(
                  "options { [mediapipe.TfLiteCustomOpResolverCalculatorOptions.ext] { use_gpu: true } }")
                  .use_gpu);
}

}  // namespace
}  // namespace sluice
