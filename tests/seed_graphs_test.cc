// The graphs of ../shared/graphs run verbatim with the behaviour its README states.
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "framework/calculator_graph.h"
#include "framework/tool/graph_config_io.h"
#include "framework/tool/options_util.h"
#include "framework/tool/subgraph_expansion.h"
#include "framework/tool/subgraph_registry.h"
#include "gtest/gtest.h"
#include "graphs/face_detection/face_detection_options.pb.h"
#include "calculators/tensor/image_to_tensor_calculator.pb.h"
#include "calculators/tensor/inference_calculator.pb.h"
#include "tests/seed_test_calculators.h"
#include "tests/test_paths.h"

namespace sluice {
namespace {

using testing::SharedPath;

mediapipe::CalculatorGraphConfig LoadSeed(const std::string& name) {
  auto config = LoadGraphConfigFile(SharedPath("graphs/" + name));
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : mediapipe::CalculatorGraphConfig();
}

// Collects the packets of one stream (observer callbacks run on scheduler threads).
struct Collected {
  std::mutex mu;
  std::vector<Packet> packets;
  std::function<absl::Status(const Packet&)> Callback() {
    return [this](const Packet& p) {
      std::lock_guard<std::mutex> lock(mu);
      packets.push_back(p);
      return absl::OkStatus();
    };
  }
};

// Sends 0..n-1 (value = 10 * t) into `in` and checks `out` carries exactly them.
void ExpectPassThroughBehaviour(const mediapipe::CalculatorGraphConfig& config,
                                const std::string& out, int n) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(config).ok());
  Collected got;
  ASSERT_TRUE(graph.ObserveOutputStream(out, got.Callback()).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  for (int t = 0; t < n; ++t) {
    ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(10 * t).At(Timestamp(t))).ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  ASSERT_EQ(got.packets.size(), static_cast<size_t>(n));
  for (int t = 0; t < n; ++t) {
    EXPECT_EQ(got.packets[t].Timestamp(), Timestamp(t));
    EXPECT_EQ(got.packets[t].Get<int>(), 10 * t);
  }
}

TEST(SeedGraphsTest, PassThroughChainDeliversEveryPacketUnchangedInOrder) {
  mediapipe::CalculatorGraphConfig config = LoadSeed("seed_passthrough_chain.pbtxt");
  for (int n : {0, 1, 7, 500}) ExpectPassThroughBehaviour(config, "out4", n);
}

TEST(SeedGraphsTest, SubgraphFromPbtxtBehavesLikeTheChainAndExpandsWithPrefixedNames) {
  ASSERT_TRUE(SubgraphRegistry::Get()
                  .RegisterGraphFile(SharedPath("graphs/seed_two_pass_through_subgraph.pbtxt"))
                  .ok());
  ASSERT_TRUE(SubgraphRegistry::Get().IsRegistered("TwoPassThroughSubgraph"));
  mediapipe::CalculatorGraphConfig config = LoadSeed("seed_main_pass_throughcals.pbtxt");
  ExpectPassThroughBehaviour(config, "out4", 300);

  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(config).ok());
  std::vector<std::string> names;
  for (int i = 0; i < graph.Config().node_size(); ++i) {
    names.push_back(CanonicalNodeName(graph.Config(), i));
  }
  // MediaPipe: the subgraph's nodes move to the end, named with the lower-cased
  // subgraph node name as prefix; the two top-level PassThroughs become _1/_2.
  EXPECT_EQ(names, (std::vector<std::string>{
                       "PassThroughCalculator_1", "PassThroughCalculator_2",
                       "twopassthroughsubgraph__PassThroughCalculator_1",
                       "twopassthroughsubgraph__PassThroughCalculator_2"}));
  // The inner stream is prefixed; the interface streams are the parent's.
  bool found_inner = false;
  for (const auto& node : graph.Config().node()) {
    for (const auto& s : node.output_stream()) found_inner |= s == "twopassthroughsubgraph__out2";
  }
  EXPECT_TRUE(found_inner);
}

TEST(SeedGraphsTest, CycleAdderEmitsRunningTotalsAndFinishes) {
  mediapipe::CalculatorGraphConfig config = LoadSeed("seed_cycle_adder.pbtxt");
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(config).ok());
  Collected integers, sums;
  ASSERT_TRUE(graph.ObserveOutputStream("integers", integers.Callback()).ok());
  ASSERT_TRUE(graph.ObserveOutputStream("sum", sums.Callback()).ok());
  auto counter = std::make_shared<std::atomic<int>>(3);
  absl::Status status = graph.Run({{"global_counter", MakePacket<std::shared_ptr<std::atomic<int>>>(counter)}});
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_FALSE(integers.packets.empty());
  ASSERT_EQ(sums.packets.size(), integers.packets.size());
  int total = 0;
  for (size_t i = 0; i < sums.packets.size(); ++i) {
    total += integers.packets[i].Get<int>();
    EXPECT_EQ(integers.packets[i].Get<int>(), 3 + static_cast<int>(i));  // counter values
    EXPECT_EQ(sums.packets[i].Get<int>(), total) << "at " << i;
    EXPECT_EQ(sums.packets[i].Timestamp(), integers.packets[i].Timestamp());
  }
  EXPECT_EQ(counter->load(), 3 + static_cast<int>(integers.packets.size()));
}

TEST(SeedGraphsTest, GraphOptionsSubgraphBodyCopiesOptionValuesIntoNodes) {
  ASSERT_TRUE(SubgraphRegistry::Get()
                  .RegisterGraphFile(SharedPath("graphs/seed_graph_options_subgraph_body.pbtxt"),
                                     "TestFaceDetectionBody")
                  .ok());
  auto parent = ParseGraphConfigText(R"pb(
    node {
      # The body declares no interface streams: only its options are exercised.
      calculator: "TestFaceDetectionBody"
      node_options {
        [type.googleapis.com/mediapipe.FaceDetectionOptions] {
          tensor_width: 192
          tensor_height: 128
          model_path: "face.tflite"
          delegate { xnnpack {} }
        }
      }
    }
  )pb");
  ASSERT_TRUE(parent.ok()) << parent.status();
  mediapipe::CalculatorGraphConfig config = *parent;
  absl::Status expanded = ExpandSubgraphs(&config);
  ASSERT_TRUE(expanded.ok()) << expanded;
  ASSERT_EQ(config.node_size(), 2);
  EXPECT_EQ(config.node(0).name(), "testfacedetectionbody__ImageToTensorCalculator");
  auto to_tensor = GetNodeOptions<mediapipe::ImageToTensorCalculatorOptions>(config.node(0));
  ASSERT_TRUE(to_tensor.ok()) << to_tensor.status();
  EXPECT_EQ(to_tensor->output_tensor_width(), 192);
  EXPECT_EQ(to_tensor->output_tensor_height(), 128);
  EXPECT_TRUE(to_tensor->keep_aspect_ratio());  // the node's own value survives
  EXPECT_EQ(to_tensor->border_mode(), mediapipe::ImageToTensorCalculatorOptions::BORDER_ZERO);
  auto inference = GetNodeOptions<mediapipe::InferenceCalculatorOptions>(config.node(1));
  ASSERT_TRUE(inference.ok()) << inference.status();
  EXPECT_EQ(inference->model_path(), "face.tflite");
  EXPECT_TRUE(inference->delegate().has_xnnpack());
  EXPECT_EQ(config.node(1).option_value_size(), 0);  // consumed by expansion
}

TEST(SeedGraphsTest, FlowLimiterWithAnyOptionsFeedsTheSubgraphNodeOneFrameInFlight) {
  mediapipe::CalculatorGraphConfig config = LoadSeed("seed_flow_limiter_options.pbtxt");
  // `FaceDetectionSubgraph` is a test calculator here (tests/seed_test_calculators.cc)
  // that records the options it was given and the images it receives. The file
  // does not declare its source stream; feeding it from the application makes
  // `image` a graph input stream.
  config.add_input_stream("image");
  CalculatorGraph graph;
  absl::Status status = graph.Initialize(config);
  ASSERT_TRUE(status.ok()) << status;
  Collected throttled;
  ASSERT_TRUE(graph.ObserveOutputStream("throttled_image", throttled.Callback()).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  for (int t = 0; t < 20; ++t) {
    ASSERT_TRUE(graph.AddPacketToInputStream("image", MakePacket<int>(t).At(Timestamp(t))).ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  // max_in_flight: 1 and nothing reports FINISHED: only the first frame passes.
  ASSERT_EQ(throttled.packets.size(), 1u);
  EXPECT_EQ(throttled.packets[0].Timestamp(), Timestamp(0));
  FaceDetectionSubgraphRecord record = LastFaceDetectionSubgraphRecord();
  EXPECT_EQ(record.tensor_width, 192);
  EXPECT_EQ(record.tensor_height, 192);
  EXPECT_EQ(record.images, 1);
}

}  // namespace
}  // namespace sluice
