#include "tools/packet_text.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::cli {
namespace {

using ::testing::HasSubstr;

TEST(PacketTextTest, ParsesEveryScalarType) {
  EXPECT_EQ(ParsePacketValue("int", "-7")->Get<int>(), -7);
  EXPECT_EQ(ParsePacketValue("int64", "9000000000")->Get<int64_t>(), 9000000000LL);
  EXPECT_FLOAT_EQ(ParsePacketValue("float", "0.5")->Get<float>(), 0.5f);
  EXPECT_DOUBLE_EQ(ParsePacketValue("double", "2.25")->Get<double>(), 2.25);
  EXPECT_TRUE(ParsePacketValue("bool", "true")->Get<bool>());
  EXPECT_EQ(ParsePacketValue("string", "a b")->Get<std::string>(), "a b");
}

TEST(PacketTextTest, RejectsBadValuesAndTypesWithClearErrors) {
  auto bad_int = ParsePacketValue("int", "12x");
  ASSERT_FALSE(bad_int.ok());
  EXPECT_THAT(bad_int.status().message(), HasSubstr("\"12x\" as int"));
  auto bad_type = ParsePacketValue("complex", "1");
  ASSERT_FALSE(bad_type.ok());
  EXPECT_THAT(bad_type.status().message(), HasSubstr("unknown packet type \"complex\""));
}

TEST(PacketTextTest, ParsesSideAndInputSpecs) {
  auto side = ParseSideSpec("limit=int:3");
  ASSERT_TRUE(side.ok()) << side.status();
  EXPECT_EQ(side->first, "limit");
  EXPECT_EQ(side->second.Get<int>(), 3);

  auto input = ParseInputSpec("in=float:1, 2.5,3");
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->first, "in");
  ASSERT_EQ(input->second.size(), 3u);
  EXPECT_FLOAT_EQ(input->second[1].Get<float>(), 2.5f);

  EXPECT_TRUE(ParseInputSpec("in=int:")->second.empty());
  EXPECT_FALSE(ParseSideSpec("limit").ok());
  EXPECT_FALSE(ParseSideSpec("=int:3").ok());
  EXPECT_FALSE(ParseInputSpec("in").ok());
  auto bad_item = ParseInputSpec("in=int:1,two");
  ASSERT_FALSE(bad_item.ok());
  EXPECT_THAT(bad_item.status().message(), HasSubstr("input stream \"in\""));
}

TEST(PacketTextTest, PrintsScalarsVectorsAndUnprintableTypes) {
  EXPECT_EQ(PacketValueToText(MakePacket<int>(42)), "42");
  EXPECT_EQ(PacketValueToText(MakePacket<bool>(false)), "false");
  EXPECT_EQ(PacketValueToText(MakePacket<std::vector<int>>(std::vector<int>{1, 2})), "[1, 2]");
  EXPECT_EQ(PacketValueToText(MakePacket<double>(0.25)), "0.25");
  struct Opaque {};
  EXPECT_THAT(PacketValueToText(MakePacket<Opaque>()), HasSubstr("Opaque"));
  EXPECT_EQ(PacketValueToText(Packet()), "<empty>");
}

}  // namespace
}  // namespace sluice::cli
