#include "tests/oracle/npy.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace sluice::oracle {
namespace {

std::string TempPath(const std::string& name) { return testing::TempDir() + "/" + name; }

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(NpyTest, RoundTripsShapeAndData) {
  const std::string path = TempPath("rt.npy");
  const float data[6] = {1.5f, -2.f, 3.f, 0.f, 1e-7f, 42.f};
  ASSERT_TRUE(WriteNpy(path, {1, 2, 3}, data).ok());
  auto a = ReadNpy(path);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->shape, (std::vector<int64_t>{1, 2, 3}));
  ASSERT_EQ(a->data.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(a->data[i], data[i]);
}

TEST(NpyTest, WritesTheHeaderNumpyExpects) {
  const std::string path = TempPath("hdr.npy");
  const float v = 1.f;
  ASSERT_TRUE(WriteNpy(path, {1}, &v).ok());
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // numpy requires the data to start at a multiple of 64 and the header to end in '\n'.
  ASSERT_GT(bytes.size(), 4u);
  const size_t data_start = bytes.size() - 4;
  EXPECT_EQ(data_start % 64, 0u);
  EXPECT_EQ(bytes[data_start - 1], '\n');
  EXPECT_NE(bytes.find("'shape': (1,)"), std::string::npos);
}

TEST(NpyTest, ReadsScalarAndVersion2Headers) {
  const std::string path = TempPath("v2.npy");
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (), }";
  header.append(64 - (12 + header.size() + 1) % 64, ' ');
  header.push_back('\n');
  std::string bytes = std::string("\x93NUMPY\x02\x00", 8);
  const uint32_t len = header.size();
  bytes.append(reinterpret_cast<const char*>(&len), 4);
  bytes += header;
  const float v = 7.f;
  bytes.append(reinterpret_cast<const char*>(&v), 4);
  WriteBytes(path, bytes);
  auto a = ReadNpy(path);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->shape.empty());
  ASSERT_EQ(a->data.size(), 1u);
  EXPECT_EQ(a->data[0], 7.f);
}

TEST(NpyTest, RejectsOtherDtypesTruncatedDataAndGarbage) {
  const std::string path = TempPath("bad.npy");
  const float data[2] = {1.f, 2.f};
  ASSERT_TRUE(WriteNpy(path, {2}, data).ok());
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  std::string f8 = bytes;
  f8.replace(f8.find("<f4"), 3, "<f8");
  WriteBytes(path, f8);
  EXPECT_NE(ReadNpy(path).status().message().find("dtype"), std::string::npos);

  WriteBytes(path, bytes.substr(0, bytes.size() - 1));
  EXPECT_NE(ReadNpy(path).status().message().find("data bytes"), std::string::npos);

  WriteBytes(path, "not numpy at all");
  EXPECT_FALSE(ReadNpy(path).ok());
  EXPECT_EQ(ReadNpy(TempPath("missing.npy")).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace sluice::oracle
