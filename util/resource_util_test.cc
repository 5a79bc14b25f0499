#include "util/resource_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A private folder holding mediapipe/modules/test/<name>.
class ResourceUtilTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sluice_resource_test_" + std::to_string(getpid()));
    fs::create_directories(root_ / "mediapipe/modules/test");
    unsetenv("SLUICE_RESOURCE_DIR");
  }
  void TearDown() override {
    unsetenv("SLUICE_RESOURCE_DIR");
    unsetenv("SLUICE_MODELS_DIR");
    fs::remove_all(root_);
  }
  void Write(const std::string& rel, const std::string& contents) {
    std::ofstream(root_ / rel, std::ios::binary) << contents;
  }
  fs::path root_;
};

TEST_F(ResourceUtilTest, ReadsAPathAsGiven) {
  const std::string bytes("abc\r\n\0x", 7);  // binary: kept byte for byte
  Write("mediapipe/modules/test/a.txt", bytes);
  auto contents = ReadResource((root_ / "mediapipe/modules/test/a.txt").string());
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(*contents, bytes);
}

TEST_F(ResourceUtilTest, SearchesEveryResourceRootInOrder) {
  Write("mediapipe/modules/test/b.txt", "from root");
  const std::string roots = "/nonexistent_sluice_root:" + root_.string();
  setenv("SLUICE_RESOURCE_DIR", roots.c_str(), 1);
  auto path = ResolveResourcePath("mediapipe/modules/test/b.txt");
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(*path, (root_ / "mediapipe/modules/test/b.txt").string());
  auto contents = ReadResource("mediapipe/modules/test/b.txt");
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(*contents, "from root");
}

TEST_F(ResourceUtilTest, ErrorListsWhereItLooked) {
  setenv("SLUICE_RESOURCE_DIR", root_.c_str(), 1);
  auto contents = ReadResource("mediapipe/modules/test/missing.txt");
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(contents.status().message(), HasSubstr("mediapipe/modules/test/missing.txt"));
  EXPECT_THAT(contents.status().message(),
              HasSubstr((root_ / "mediapipe/modules/test/missing.txt").string()));
  EXPECT_THAT(contents.status().message(), HasSubstr("<embedded resources>"));
}

TEST_F(ResourceUtilTest, ModelsAreFoundByFileNameInTheModelFolders) {
  Write("mediapipe/modules/test/tiny.tflite", "model bytes");
  const std::string dir = (root_ / "mediapipe/modules/test").string();
  setenv("SLUICE_MODELS_DIR", dir.c_str(), 1);
  auto path = ResolveResourcePath("mediapipe/modules/palm_detection/tiny.tflite");
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(*path, dir + "/tiny.tflite");
  // Other files are not searched for in the model folders.
  Write("mediapipe/modules/test/labels.txt", "x");
  EXPECT_FALSE(ResolveResourcePath("elsewhere/labels.txt").ok());
  // ResolveModelPath searches them whatever the extension; its error keeps the hint.
  EXPECT_TRUE(ResolveModelPath("elsewhere/labels.txt").ok());
  auto missing = ResolveModelPath("elsewhere/none.tflite");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("model \"elsewhere/none.tflite\" not found"));
  EXPECT_THAT(missing.status().message(), HasSubstr("SLUICE_MODELS_DIR"));
}

TEST_F(ResourceUtilTest, EmbeddedResourcesAreFoundAndFilesOverrideThem) {
  RegisterEmbeddedResource("mediapipe/modules/test/c.txt", "embedded");
  auto contents = ReadResource("mediapipe/modules/test/c.txt");
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(*contents, "embedded");
  // Not a file on disk.
  EXPECT_FALSE(ResolveResourcePath("mediapipe/modules/test/c.txt").ok());

  Write("mediapipe/modules/test/c.txt", "on disk");
  setenv("SLUICE_RESOURCE_DIR", root_.c_str(), 1);
  contents = ReadResource("mediapipe/modules/test/c.txt");
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(*contents, "on disk");
}

const EmbeddedResourceRegistrar kStatic("sluice/test/static.txt", "static contents");

TEST_F(ResourceUtilTest, RegistrarRegistersAtStaticInit) {
  const std::string* found = FindEmbeddedResource("sluice/test/static.txt");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(*found, "static contents");
  EXPECT_EQ(FindEmbeddedResource("sluice/test/absent.txt"), nullptr);
}

}  // namespace
}  // namespace sluice
