#include "framework/tool/tag_map.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ParseTagIndexNameTest, AcceptsTheThreeForms) {
  auto a = ParseTagIndexName("name_1");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->tag, "");
  EXPECT_EQ(a->index, -1);
  EXPECT_EQ(a->name, "name_1");
  auto b = ParseTagIndexName("IMAGE:frame");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->tag, "IMAGE");
  EXPECT_EQ(b->index, 0);
  EXPECT_EQ(b->name, "frame");
  auto c = ParseTagIndexName("VIDEO_2:12:_x9");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->tag, "VIDEO_2");
  EXPECT_EQ(c->index, 12);
  EXPECT_EQ(c->name, "_x9");
}

TEST(ParseTagIndexNameTest, RejectsBadSpecsQuotingThem) {
  for (const char* bad : {"", "Name", "TAG:Name", "tag:name", "TAG:01:a", "TAG:-1:a",
                          "TAG:x:a", "A:1:b:c", ":name", "TAG:", "9name",
                          "TAG:10001:a", "na-me"}) {
    auto r = ParseTagIndexName(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr(std::string("\"") + bad + "\""));
  }
}

TEST(ParseTagIndexTest, AcceptsTagIndexForms) {
  auto a = ParseTagIndex("TAG");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->tag, "TAG");
  EXPECT_EQ(a->index, 0);
  auto b = ParseTagIndex("TAG:2");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->index, 2);
  auto c = ParseTagIndex(":3");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->tag, "");
  EXPECT_EQ(c->index, 3);
  auto d = ParseTagIndex("");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->tag, "");
  EXPECT_EQ(d->index, 0);
  for (const char* bad : {"tag", "TAG:01", "TAG:a", "A:1:2", "TAG:"}) {
    EXPECT_FALSE(ParseTagIndex(bad).ok()) << bad;
  }
}

TEST(TagMapTest, UntaggedAutoIncrementsAndTagsSortWithEmptyFirst) {
  auto map = TagMap::Create(std::vector<std::string>{
      "VIDEO:1:v1", "a", "ALLOW:allow", "b", "VIDEO:0:v0", "c"});
  ASSERT_TRUE(map.ok()) << map.status();
  const TagMap& m = **map;
  EXPECT_EQ(m.NumEntries(), 6);
  EXPECT_THAT(m.Tags(), ElementsAre("", "ALLOW", "VIDEO"));
  EXPECT_EQ(m.NumEntries(""), 3);
  EXPECT_EQ(m.NumEntries("VIDEO"), 2);
  EXPECT_EQ(m.NumEntries("NOPE"), 0);
  EXPECT_TRUE(m.HasTag("ALLOW"));
  EXPECT_FALSE(m.HasTag("NOPE"));
  EXPECT_EQ(m.GetId("", 0), 0);
  EXPECT_EQ(m.GetId("", 2), 2);
  EXPECT_EQ(m.GetId("ALLOW", 0), 3);
  EXPECT_EQ(m.GetId("VIDEO", 1), 5);
  EXPECT_EQ(m.GetId("VIDEO", 2), -1);
  EXPECT_EQ(m.GetId("NOPE", 0), -1);
  EXPECT_EQ(m.Entry(1).name, "b");
  EXPECT_EQ(m.Entry(4).name, "v0");
  EXPECT_THAT(m.CanonicalSpecs(),
              ElementsAre("a", "b", "c", "ALLOW:allow", "VIDEO:0:v0", "VIDEO:1:v1"));
}

TEST(TagMapTest, TagNameMeansIndexZeroSoTwoCollide) {
  auto map = TagMap::Create(std::vector<std::string>{"TAG:a", "TAG:b"});
  ASSERT_FALSE(map.ok());
  EXPECT_THAT(map.status().message(), HasSubstr("already had a name \"a\""));
  EXPECT_THAT(map.status().message(), HasSubstr("\"b\""));
}

TEST(TagMapTest, IndicesMustHaveNoGaps) {
  auto map = TagMap::Create(std::vector<std::string>{"TAG:0:a", "TAG:2:c"});
  ASSERT_FALSE(map.ok());
  EXPECT_THAT(map.status().message(), HasSubstr("index 1: <missing>"));
  EXPECT_FALSE(TagMap::Create(std::vector<std::string>{"TAG:1:a"}).ok());
  EXPECT_FALSE(TagMap::Create(std::vector<std::string>{"a", "a_b", "BAD-TAG:x"}).ok());
}

TEST(TagMapTest, TagNameAndTagIndexNameMayMixWhenConsistent) {
  auto map = TagMap::Create(std::vector<std::string>{"TAG:a", "TAG:1:b"});
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ((*map)->CanonicalSpec(0), "TAG:0:a");
  EXPECT_EQ((*map)->CanonicalSpec(1), "TAG:1:b");
}

TEST(TagMapTest, EmptyListAndRepeatedFieldOverload) {
  google::protobuf::RepeatedPtrField<std::string> specs;
  auto empty = TagMap::Create(specs);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->NumEntries(), 0);
  *specs.Add() = "IMAGE:img";
  auto one = TagMap::Create(specs);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ((*one)->CanonicalSpec(0), "IMAGE:img");
  EXPECT_EQ((*one)->BeginId("IMAGE"), 0);
}

}  // namespace
}  // namespace sluice
