#include "framework/packet.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

TEST(PacketTest, CopiesShareThePayload) {
  Packet p = MakePacket<std::vector<int>>(3, 7).At(Timestamp(5));
  Packet q = p.At(Timestamp(9));
  EXPECT_EQ(&p.Get<std::vector<int>>(), &q.Get<std::vector<int>>());
  EXPECT_EQ(p.Timestamp(), Timestamp(5));
  EXPECT_EQ(q.Timestamp(), Timestamp(9));
}

TEST(PacketTest, EmptyPacket) {
  Packet p;
  EXPECT_TRUE(p.IsEmpty());
  EXPECT_EQ(p.Timestamp(), Timestamp::Unset());
  EXPECT_FALSE(p.ValidateAsType<int>().ok());
  EXPECT_FALSE(p.TryGet<int>().ok());
}

TEST(PacketTest, TypeMismatchIsAnErrorNamingBothTypes) {
  Packet p = MakePacket<std::string>("hi");
  auto r = p.TryGet<int>();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("std::string"));
  EXPECT_THAT(r.status().message(), HasSubstr("\"int\""));
  ASSERT_TRUE(p.TryGet<std::string>().ok());
  EXPECT_EQ(**p.TryGet<std::string>(), "hi");
}

TEST(PacketTest, ConsumeNeedsSoleOwnership) {
  Packet p = MakePacket<std::string>("payload");
  Packet copy = p;
  EXPECT_FALSE(p.Consume<std::string>().ok());
  copy = Packet();
  auto owned = p.Consume<std::string>();
  ASSERT_TRUE(owned.ok());
  EXPECT_EQ(**owned, "payload");
  EXPECT_TRUE(p.IsEmpty());
}

TEST(PacketTest, PointToForeignRunsCleanupWhenLastCopyGoes) {
  int value = 4;
  bool cleaned = false;
  {
    Packet p = PointToForeign(&value, [&] { cleaned = true; });
    Packet q = p;
    EXPECT_EQ(&q.Get<int>(), &value);
    EXPECT_FALSE(q.Consume<int>().ok());  // not owned
  }
  EXPECT_TRUE(cleaned);
}

TEST(PacketTest, AdoptAndTypeNames) {
  Packet p = Adopt(new int(3));
  EXPECT_EQ(p.Get<int>(), 3);
  EXPECT_EQ(p.DebugTypeName(), "int");
  EXPECT_EQ(p.RegisteredTypeName(), "int");
  EXPECT_EQ(MakePacket<std::string>("x").DebugTypeName(), "std::string");
  auto shared = p.Share<int>();
  ASSERT_TRUE(shared.ok());
  EXPECT_EQ(**shared, 3);
}

}  // namespace
}  // namespace sluice
