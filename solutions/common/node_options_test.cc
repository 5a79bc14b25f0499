// Editing expanded solution graphs: options edited where option_value put
// them, the `options` extension otherwise; nodes found by canonical name.
#include "solutions/common/node_options.h"

#include <gtest/gtest.h>

#include "calculators/tensor/inference_calculator.pb.h"
#include "inference/backend.h"
#include "solutions/common/frame_pipeline.h"

namespace sluice {
namespace {

using mediapipe::CalculatorGraphConfig;
using mediapipe::InferenceCalculatorOptions;

int ThreadsOf(const InferenceCalculatorOptions& o) { return o.delegate().xnnpack().num_threads(); }

TEST(NodeOptionsTest, EditsNodeOptionsInPlaceKeepingTheirOtherFields) {
  CalculatorGraphConfig::Node node;
  node.set_calculator("InferenceCalculatorCpu");
  InferenceCalculatorOptions from_option_value;
  from_option_value.set_model_path("face_landmark.tflite");
  node.add_node_options()->PackFrom(from_option_value);

  ASSERT_TRUE(EditNodeOptions<InferenceCalculatorOptions>(&node, [](auto* o) {
                o->mutable_delegate()->mutable_xnnpack()->set_num_threads(3);
              }).ok());
  // No `options` extension, which would take precedence and drop model_path.
  EXPECT_FALSE(node.options().HasExtension(InferenceCalculatorOptions::ext));
  ASSERT_EQ(node.node_options_size(), 1);
  InferenceCalculatorOptions edited;
  ASSERT_TRUE(node.node_options(0).UnpackTo(&edited));
  EXPECT_EQ(edited.model_path(), "face_landmark.tflite");
  EXPECT_EQ(ThreadsOf(edited), 3);
}

TEST(NodeOptionsTest, EditsTheOptionsExtensionOtherwise) {
  CalculatorGraphConfig::Node node;
  node.mutable_options()->MutableExtension(InferenceCalculatorOptions::ext)->set_model_path("a");
  ASSERT_TRUE(EditNodeOptions<InferenceCalculatorOptions>(&node, [](auto* o) {
                o->mutable_delegate()->mutable_xnnpack()->set_num_threads(2);
              }).ok());
  EXPECT_EQ(node.node_options_size(), 0);
  const auto& o = node.options().GetExtension(InferenceCalculatorOptions::ext);
  EXPECT_EQ(o.model_path(), "a");
  EXPECT_EQ(ThreadsOf(o), 2);

  CalculatorGraphConfig::Node bare;  // no options at all: the extension is created
  ASSERT_TRUE(EditNodeOptions<InferenceCalculatorOptions>(&bare, [](auto* o) {
                o->set_model_path("b");
              }).ok());
  EXPECT_EQ(bare.options().GetExtension(InferenceCalculatorOptions::ext).model_path(), "b");
}

TEST(NodeOptionsTest, InferenceThreadsOnInferenceNodesOnly) {
  CalculatorGraphConfig config;
  auto* inference = config.add_node();
  inference->set_calculator("InferenceCalculator");
  inference->add_node_options()->PackFrom(InferenceCalculatorOptions());
  config.add_node()->set_calculator("PassThroughCalculator");

  ASSERT_TRUE(EditInferenceThreads(&config, 0).ok());  // 0: MediaPipe's default, untouched
  InferenceCalculatorOptions o;
  ASSERT_TRUE(config.node(0).node_options(0).UnpackTo(&o));
  EXPECT_FALSE(o.has_delegate());

  ASSERT_TRUE(EditInferenceThreads(&config, 4).ok());
  ASSERT_TRUE(config.node(0).node_options(0).UnpackTo(&o));
  EXPECT_EQ(ThreadsOf(o), 4);
  EXPECT_FALSE(config.node(1).has_options());
  EXPECT_EQ(config.node(1).node_options_size(), 0);
}

// --device: cuda puts MediaPipe's GPU delegate on every inference node (in
// place of a CPU thread setting); cpu changes nothing; auto is cuda only when
// the CUDA inference backend is built and finds a device.
TEST(NodeOptionsTest, InferenceDeviceOnInferenceNodesOnly) {
  CalculatorGraphConfig config;
  auto* inference = config.add_node();
  inference->set_calculator("InferenceCalculator");
  config.add_node()->set_calculator("PassThroughCalculator");
  SetInferenceThreads(&config, 2);
  const CalculatorGraphConfig cpu_config = config;

  SetInferenceDevice(&config, "cpu");
  EXPECT_EQ(config.DebugString(), cpu_config.DebugString());

  SetInferenceDevice(&config, "cuda");
  const auto& o = config.node(0).options().GetExtension(InferenceCalculatorOptions::ext);
  EXPECT_TRUE(o.delegate().has_gpu());
  EXPECT_FALSE(o.delegate().has_xnnpack());
  EXPECT_FALSE(config.node(1).has_options());

  const inference::Backend* cuda = inference::FindBackend("cuda");
  const bool gpu = cuda != nullptr && cuda->IsAvailable();
  EXPECT_EQ(ResolveDevice("auto"), gpu ? "cuda" : "cpu");
  EXPECT_EQ(ResolveDevice("cpu"), "cpu");
  EXPECT_EQ(ResolveDevice("cuda"), "cuda");
  EXPECT_EQ(ValidateDevice("cuda").ok(), gpu);
  EXPECT_TRUE(ValidateDevice("auto").ok());
  EXPECT_FALSE(ValidateDevice("tpu").ok());
}

TEST(NodeOptionsTest, FindNodeByCanonicalNameOrSaysWhichIsMissing) {
  CalculatorGraphConfig config;
  config.add_node()->set_calculator("ThresholdingCalculator");
  auto* named = config.add_node();
  named->set_calculator("PassThroughCalculator");
  named->set_name("facelandmarkcpu__PassThroughCalculator");

  auto found = FindNode(&config, "ThresholdingCalculator", "face mesh");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, config.mutable_node(0));
  found = FindNode(&config, "facelandmarkcpu__PassThroughCalculator", "face mesh");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, named);

  auto missing = FindNode(&config, "nosuchnode", "face mesh");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "face mesh graph has no node \"nosuchnode\"");
}

}  // namespace
}  // namespace sluice
