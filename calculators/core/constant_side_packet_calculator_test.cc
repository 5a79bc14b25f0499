#include <cstdint>
#include <string>
#include <vector>

#include "calculators/core/testing/graph_test_util.h"
#include "formats/classification.pb.h"
#include "formats/landmark.pb.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::ParseConfig;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ConstantSidePacketCalculatorTest, OutputsEveryValueKind) {
  auto config = ParseConfig(R"pb(
    node {
      calculator: "ConstantSidePacketCalculator"
      output_side_packet: "PACKET:0:i"
      output_side_packet: "PACKET:1:u64"
      output_side_packet: "PACKET:2:i64"
      output_side_packet: "PACKET:3:f"
      output_side_packet: "PACKET:4:d"
      output_side_packet: "PACKET:5:b"
      output_side_packet: "PACKET:6:s"
      output_side_packet: "PACKET:7:sv"
      output_side_packet: "PACKET:8:cl"
      output_side_packet: "PACKET:9:ll"
      node_options: {
        [type.googleapis.com/mediapipe.ConstantSidePacketCalculatorOptions] {
          packet { int_value: -3 }
          packet { uint64_value: 18446744073709551615 }
          packet { int64_value: -9000000000 }
          packet { float_value: 1.5 }
          packet { double_value: 0.25 }
          packet { bool_value: true }
          packet { string_value: "hello" }
          packet { string_vector_value { string_value: "a" string_value: "b" } }
          packet { classification_list_value { classification { index: 3 label: "cat" } } }
          packet { landmark_list_value { landmark { x: 1 y: 2 } landmark { z: 3 } } }
        }
      }
    }
  )pb");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  ASSERT_TRUE(graph.Run().ok());
  auto get = [&](const std::string& name) {
    auto p = graph.GetOutputSidePacket(name);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *p : Packet();
  };
  EXPECT_EQ(get("i").Get<int>(), -3);
  EXPECT_EQ(get("u64").Get<uint64_t>(), UINT64_MAX);
  EXPECT_EQ(get("i64").Get<int64_t>(), -9000000000LL);
  EXPECT_EQ(get("f").Get<float>(), 1.5f);
  EXPECT_EQ(get("d").Get<double>(), 0.25);
  EXPECT_TRUE(get("b").Get<bool>());
  EXPECT_EQ(get("s").Get<std::string>(), "hello");
  EXPECT_THAT(get("sv").Get<std::vector<std::string>>(), ElementsAre("a", "b"));
  const auto& cl = get("cl").Get<mediapipe::ClassificationList>();
  ASSERT_EQ(cl.classification_size(), 1);
  EXPECT_EQ(cl.classification(0).index(), 3);
  EXPECT_EQ(cl.classification(0).label(), "cat");
  const auto& ll = get("ll").Get<mediapipe::LandmarkList>();
  ASSERT_EQ(ll.landmark_size(), 2);
  EXPECT_EQ(ll.landmark(0).y(), 2.f);
  EXPECT_EQ(ll.landmark(1).z(), 3.f);
}

TEST(ConstantSidePacketCalculatorTest, FeedsOtherNodes) {
  // The constant drives a SidePacketToStream node: types line up end to end.
  auto config = ParseConfig(R"pb(
    node {
      calculator: "ConstantSidePacketCalculator"
      output_side_packet: "PACKET:answer"
      options: {
        [mediapipe.ConstantSidePacketCalculatorOptions.ext] { packet { int_value: 42 } }
      }
    }
    node {
      calculator: "SidePacketToStreamCalculator"
      input_side_packet: "answer"
      output_stream: "AT_ZERO:answer_stream"
    }
  )pb");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  sluice::testing::PacketCollector out;
  ASSERT_TRUE(out.Attach(&graph, "answer_stream").ok());
  ASSERT_TRUE(graph.Run().ok());
  EXPECT_THAT(out.Values<int>(), ElementsAre(42));
  EXPECT_THAT(out.Timestamps(), ElementsAre(0));
}

TEST(ConstantSidePacketCalculatorTest, RejectsCountMismatch) {
  auto config = ParseConfig(R"pb(
    node {
      calculator: "ConstantSidePacketCalculator"
      output_side_packet: "PACKET:0:a"
      output_side_packet: "PACKET:1:b"
      node_options: {
        [type.googleapis.com/mediapipe.ConstantSidePacketCalculatorOptions] {
          packet { int_value: 1 }
        }
      }
    }
  )pb");
  ASSERT_TRUE(config.ok());
  CalculatorGraph graph;
  absl::Status s = graph.Initialize(*config);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("must match"));
}

TEST(ConstantSidePacketCalculatorTest, RejectsPacketWithoutValue) {
  auto config = ParseConfig(R"pb(
    node {
      calculator: "ConstantSidePacketCalculator"
      output_side_packet: "PACKET:a"
      node_options: {
        [type.googleapis.com/mediapipe.ConstantSidePacketCalculatorOptions] { packet {} }
      }
    }
  )pb");
  ASSERT_TRUE(config.ok());
  CalculatorGraph graph;
  absl::Status s = graph.Initialize(*config);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("none of the supported values"));
}

}  // namespace
}  // namespace sluice
