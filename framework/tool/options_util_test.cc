#include "framework/tool/options_util.h"

#include "framework/tool/graph_config_io.h"
#include "graphs/face_detection/face_detection_options.pb.h"
#include "calculators/core/flow_limiter_calculator.pb.h"
#include "calculators/tensor/image_to_tensor_calculator.pb.h"
#include "calculators/tensor/inference_calculator.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::CalculatorGraphConfig;
using mediapipe::FaceDetectionOptions;
using mediapipe::FlowLimiterCalculatorOptions;
using mediapipe::ImageToTensorCalculatorOptions;
using mediapipe::InferenceCalculatorOptions;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

CalculatorGraphConfig Parse(const std::string& text) {
  auto config = ParseGraphConfigText(text);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : CalculatorGraphConfig();
}

CalculatorGraphConfig::Node ParseNode(const std::string& text) {
  return Parse("node {" + text + "}").node(0);
}

TEST(GetNodeOptionsTest, ExtensionWinsOverNodeOptions) {
  auto node = ParseNode(R"pb(
    calculator: "FlowLimiterCalculator"
    options { [mediapipe.FlowLimiterCalculatorOptions.ext] { max_in_flight: 3 } }
    node_options {
      [type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions] { max_in_flight: 9 }
    })pb");
  auto options = GetNodeOptions<FlowLimiterCalculatorOptions>(node);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->max_in_flight(), 3);
  EXPECT_TRUE(HasNodeOptions(node, FlowLimiterCalculatorOptions::descriptor()));
  EXPECT_FALSE(HasNodeOptions(node, FaceDetectionOptions::descriptor()));
}

TEST(GetNodeOptionsTest, LastNodeOptionsAnyOfTheTypeWinsWhole) {
  auto node = ParseNode(R"pb(
    calculator: "FlowLimiterCalculator"
    node_options {
      [type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions] { max_in_flight: 4 max_in_queue: 2 }
    }
    node_options {
      [type.googleapis.com/mediapipe.ImageToTensorCalculatorOptions] { output_tensor_width: 7 }
    }
    node_options {
      [type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions] { max_in_queue: 5 }
    })pb");
  FlowLimiterCalculatorOptions options;
  options.set_in_flight_timeout(77);  // must be cleared, not merged into
  ASSERT_TRUE(GetNodeOptions(node, &options).ok());
  EXPECT_EQ(options.max_in_queue(), 5);
  EXPECT_FALSE(options.has_max_in_flight());  // Any::UnpackTo replaces
  EXPECT_EQ(options.max_in_flight(), 1);      // proto default
  EXPECT_FALSE(options.has_in_flight_timeout());
  auto image = GetNodeOptions<ImageToTensorCalculatorOptions>(node);
  ASSERT_TRUE(image.ok());
  EXPECT_EQ(image->output_tensor_width(), 7);
}

TEST(GetNodeOptionsTest, DefaultsWhenAbsentAndErrorForCorruptPayload) {
  auto node = ParseNode(R"pb(calculator: "X")pb");
  auto options = GetNodeOptions<FlowLimiterCalculatorOptions>(node);
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->max_in_flight(), 1);
  auto* any = node.add_node_options();
  any->set_type_url("type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions");
  any->set_value("\xff\xff");
  auto corrupt = GetNodeOptions<FlowLimiterCalculatorOptions>(node);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_THAT(std::string(corrupt.status().message()), HasSubstr("FlowLimiterCalculatorOptions"));
}

TEST(GetGraphOptionsTest, ReadsGraphOptionsAny) {
  auto config = Parse(R"pb(
    graph_options { [type.googleapis.com/mediapipe.FaceDetectionOptions] { tensor_width: 128 } })pb");
  auto options = GetGraphOptions<FaceDetectionOptions>(config);
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->tensor_width(), 128);
}

TEST(SetNodeOptionsTest, ReplacesSameTypeOrAppends) {
  auto node = ParseNode(R"pb(calculator: "X")pb");
  FlowLimiterCalculatorOptions a;
  a.set_max_in_flight(2);
  SetNodeOptions(a, &node);
  a.set_max_in_flight(3);
  SetNodeOptions(a, &node);
  ASSERT_EQ(node.node_options_size(), 1);
  EXPECT_EQ(GetNodeOptions<FlowLimiterCalculatorOptions>(node)->max_in_flight(), 3);
}

// The body of seed_graph_options_subgraph_body.pbtxt.
constexpr char kBody[] = R"pb(
  graph_options: { [type.googleapis.com/mediapipe.FaceDetectionOptions] {} }
  node: {
    calculator: "ImageToTensorCalculator"
    input_stream: "IMAGE:multi_backend_image"
    node_options: {
      [type.googleapis.com/mediapipe.ImageToTensorCalculatorOptions] {
        keep_aspect_ratio: true
        border_mode: BORDER_ZERO
        output_tensor_height: 99
      }
    }
    option_value: "output_tensor_width:options/tensor_width"
    option_value: "output_tensor_height:options/tensor_height"
  }
  node {
    calculator: "InferenceCalculator"
    node_options: {
      [type.googleapis.com/mediapipe.InferenceCalculatorOptions] {
        model_path: "literal.tflite"
        delegate { xnnpack { num_threads: 2 } }
      }
    }
    option_value: "delegate:options/delegate"
    option_value: "model_path:options/model_path"
  })pb";

TEST(ApplyOptionValuesTest, CopiesParentValuesAndClearsUnsetScalars) {
  CalculatorGraphConfig body = Parse(kBody);
  auto parent = ParseNode(R"pb(
    calculator: "FaceDetectionSubgraph"
    node_options {
      [type.googleapis.com/mediapipe.FaceDetectionOptions] {
        tensor_width: 192
        delegate { xnnpack { enable_zero_copy_tensor_io: true } }
      }
    })pb");
  std::vector<std::string> warnings;
  ASSERT_TRUE(ApplyOptionValues(parent, &body, &warnings).ok());
  EXPECT_TRUE(warnings.empty());
  const auto& image_node = body.node(0);
  EXPECT_EQ(image_node.option_value_size(), 0);
  auto image = GetNodeOptions<ImageToTensorCalculatorOptions>(image_node);
  ASSERT_TRUE(image.ok());
  EXPECT_EQ(image->output_tensor_width(), 192);
  // tensor_height is not set in the graph options: the node's value is replaced
  // by nothing, as MediaPipe's field replacement does.
  EXPECT_FALSE(image->has_output_tensor_height());
  EXPECT_TRUE(image->keep_aspect_ratio());
  EXPECT_EQ(image->border_mode(), ImageToTensorCalculatorOptions::BORDER_ZERO);
  auto inference = GetNodeOptions<InferenceCalculatorOptions>(body.node(1));
  ASSERT_TRUE(inference.ok());
  EXPECT_FALSE(inference->has_model_path());
  // Message values merge into the node's value, the graph's fields winning.
  EXPECT_EQ(inference->delegate().xnnpack().num_threads(), 2);
  EXPECT_TRUE(inference->delegate().xnnpack().enable_zero_copy_tensor_io());
}

TEST(ApplyOptionValuesTest, ParentValuesOverrideGraphDefaults) {
  CalculatorGraphConfig body = Parse(R"pb(
    graph_options {
      [type.googleapis.com/mediapipe.FaceDetectionOptions] { tensor_width: 128 tensor_height: 64 }
    }
    node {
      calculator: "ImageToTensorCalculator"
      options { [mediapipe.ImageToTensorCalculatorOptions.ext] { keep_aspect_ratio: true } }
      option_value: "output_tensor_width:tensor_width"
      option_value: "OPTIONS/output_tensor_height:options/tensor_height"
    })pb");
  auto parent = ParseNode(R"pb(
    calculator: "S"
    options { [mediapipe.FaceDetectionOptions.ext] { tensor_width: 256 } })pb");
  ASSERT_TRUE(ApplyOptionValues(parent, &body).ok());
  const auto& node = body.node(0);
  EXPECT_FALSE(node.has_options());  // moved to node_options
  ASSERT_EQ(node.node_options_size(), 1);
  auto image = GetNodeOptions<ImageToTensorCalculatorOptions>(node);
  EXPECT_EQ(image->output_tensor_width(), 256);
  EXPECT_EQ(image->output_tensor_height(), 64);
  EXPECT_TRUE(image->keep_aspect_ratio());
}

TEST(ApplyOptionValuesTest, WholeMessageAndRepeatedFields) {
  CalculatorGraphConfig body = Parse(R"pb(
    graph_options {
      [type.googleapis.com/mediapipe.FaceDetectionOptions] { tensor_width: 2 strides: [8, 16] }
    }
    node {
      calculator: "Whole"
      node_options {
        [type.googleapis.com/mediapipe.FaceDetectionOptions] {
          model_path: "a" tensor_width: 1 strides: [1, 2, 3]
        }
      }
      option_value: "OPTIONS:options"
    }
    node {
      calculator: "Repeated"
      node_options {
        [type.googleapis.com/mediapipe.FaceDetectionOptions] { strides: [1, 2, 3] num_layers: 4 }
      }
      option_value: "strides:strides"
    }
    node {
      calculator: "Indexed"
      node_options {
        [type.googleapis.com/mediapipe.FaceDetectionOptions] { strides: [1, 2, 3] }
      }
      option_value: "strides/1:strides/0"
    })pb");
  ASSERT_TRUE(ApplyOptionValues(CalculatorGraphConfig::Node(), &body).ok());
  auto whole = GetNodeOptions<FaceDetectionOptions>(body.node(0));
  EXPECT_EQ(whole->model_path(), "a");
  EXPECT_EQ(whole->tensor_width(), 2);
  EXPECT_THAT(whole->strides(), ElementsAre(1, 2, 3, 8, 16));  // message merge appends
  auto repeated = GetNodeOptions<FaceDetectionOptions>(body.node(1));
  EXPECT_THAT(repeated->strides(), ElementsAre(8, 16));
  EXPECT_EQ(repeated->num_layers(), 4);
  auto indexed = GetNodeOptions<FaceDetectionOptions>(body.node(2));
  EXPECT_THAT(indexed->strides(), ElementsAre(1, 8, 3));
}

TEST(ApplyOptionValuesTest, WithoutGraphOptionsNothingIsCopied) {
  CalculatorGraphConfig body = Parse(R"pb(
    node {
      calculator: "ImageToTensorCalculator"
      node_options {
        [type.googleapis.com/mediapipe.ImageToTensorCalculatorOptions] { output_tensor_width: 5 }
      }
      option_value: "output_tensor_width:tensor_width"
    })pb");
  ASSERT_TRUE(ApplyOptionValues(CalculatorGraphConfig::Node(), &body).ok());
  EXPECT_EQ(body.node(0).option_value_size(), 0);
  EXPECT_EQ(GetNodeOptions<ImageToTensorCalculatorOptions>(body.node(0))->output_tensor_width(), 5);
}

TEST(ApplyOptionValuesTest, BadPathsAreErrorsNamingNodeAndPath) {
  const std::string header = R"pb(
    graph_options { [type.googleapis.com/mediapipe.FaceDetectionOptions] { tensor_width: 1 } }
    node {
      name: "img"
      calculator: "ImageToTensorCalculator"
      node_options { [type.googleapis.com/mediapipe.ImageToTensorCalculatorOptions] {} }
  )pb";
  struct Case {
    const char* option_value;
    const char* expected;
  };
  for (const Case& c : {Case{"output_tensor_wdth:tensor_width", "no field \"output_tensor_wdth\""},
                        Case{"output_tensor_width:tensor_wdth", "no field \"tensor_wdth\""},
                        Case{"output_tensor_width", "NODE_PATH:GRAPH_PATH"},
                        Case{"a:b:c", "NODE_PATH:GRAPH_PATH"},
                        Case{"output_tensor_width/x:tensor_width", "not a message"},
                        Case{"output_tensor_width:delegate/xnnpack/num_threads", "missing value"}}) {
    CalculatorGraphConfig body =
        Parse(header + "option_value: \"" + c.option_value + "\" }");
    absl::Status status = ApplyOptionValues(CalculatorGraphConfig::Node(), &body);
    ASSERT_FALSE(status.ok()) << c.option_value;
    EXPECT_THAT(std::string(status.message()), HasSubstr("node \"img\"")) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.option_value)) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.expected)) << status;
  }
}

TEST(ApplyOptionValuesTest, UnlinkedOptionsTypesAreSkippedWithAWarning) {
  CalculatorGraphConfig body = Parse(R"pb(
    graph_options { [type.googleapis.com/mediapipe.FaceDetectionOptions] { tensor_width: 1 } }
    node { calculator: "SsdAnchorsCalculator" option_value: "input_size_width:tensor_width" })pb");
  auto* any = body.mutable_node(0)->add_node_options();
  any->set_type_url("type.googleapis.com/mediapipe.SsdAnchorsCalculatorOptions");
  any->set_value(std::string("\x08\x05", 2));
  std::vector<std::string> warnings;
  ASSERT_TRUE(ApplyOptionValues(CalculatorGraphConfig::Node(), &body, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("SsdAnchorsCalculatorOptions"));
  EXPECT_THAT(warnings[0], HasSubstr("input_size_width:tensor_width"));
  EXPECT_EQ(body.node(0).option_value_size(), 0);
  EXPECT_EQ(body.node(0).node_options(0).value(), std::string("\x08\x05", 2));  // untouched
}

}  // namespace
}  // namespace sluice
