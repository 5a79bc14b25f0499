// MediaPipe's model loader graphs (SwitchContainer -> LocalFileContents ->
// TfLiteModel) run as written and load the model chosen by MODEL_COMPLEXITY.
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "framework/calculator_graph.h"
#include "framework/tool/subgraph_registry.h"
#include "gtest/gtest.h"
#include "inference/model.h"
#include "util/resource_util.h"

namespace sluice {
namespace {

using ModelPtr = std::shared_ptr<const inference::Model>;

std::string Shared(const std::string& rel) {
  const char* dir = std::getenv("SLUICE_SHARED_DIR");
  return absl::StrCat(dir != nullptr ? dir : "../shared", "/", rel);
}

struct Loaded {
  std::string path;
  ModelPtr model;
};

// Runs `loader` (a registered graph type) with MODEL_COMPLEXITY = `complexity`
// (-1: not connected).
absl::StatusOr<Loaded> Load(const std::string& loader, int complexity) {
  const std::string folder =
      loader == "PalmDetectionModelLoader" ? "palm_detection" : "hand_landmark";
  auto status = SubgraphRegistry::Get().RegisterGraphFile(
      Shared(absl::StrCat("mediapipe_graphs/mediapipe/modules/", folder, "/", folder,
                          "_model_loader.pbtxt")));
  if (!status.ok()) return status;
  const std::string complexity_port =
      complexity >= 0 ? "input_side_packet: \"MODEL_COMPLEXITY:complexity\"" : "";
  CalculatorGraph graph;
  auto c = testing::InitGraphWithCollectors(
      &graph,
      absl::StrCat("input_side_packet: \"complexity\" node { name: \"loader\" calculator: \"",
                   loader, "\" ", complexity_port, " output_side_packet: \"MODEL:model\" }"),
      {});
  if (!c.ok()) return c.status();
  CalculatorGraph::SidePackets side;
  if (complexity >= 0) side["complexity"] = MakePacket<int>(complexity);
  if (auto s = graph.Run(side); !s.ok()) return s;
  Loaded loaded;
  auto path = graph.GetOutputSidePacket("loader__model_path");
  if (!path.ok()) return path.status();
  loaded.path = path->Get<std::string>();
  auto model = graph.GetOutputSidePacket("model");
  if (!model.ok()) return model.status();
  loaded.model = model->Get<ModelPtr>();
  return loaded;
}

void ExpectModel(const Loaded& loaded, const std::string& mediapipe_path) {
  EXPECT_EQ(loaded.path, mediapipe_path);
  ASSERT_NE(loaded.model, nullptr);
  // The loaded model is that file's: same op count and tensor shapes.
  auto file = ResolveModelPath(mediapipe_path);
  ASSERT_TRUE(file.ok()) << file.status();
  auto reference = inference::Model::Load(*file);
  ASSERT_TRUE(reference.ok()) << reference.status();
  EXPECT_EQ(loaded.model->file_op_count(), reference->file_op_count());
  ASSERT_EQ(loaded.model->outputs().size(), reference->outputs().size());
  for (size_t i = 0; i < reference->outputs().size(); ++i) {
    EXPECT_EQ(loaded.model->outputs()[i].shape, reference->outputs()[i].shape);
  }
}

TEST(TfLiteModelLoaderGraphTest, PalmDetectionModelComplexityPicksLiteOrFull) {
  const std::string dir = "mediapipe/modules/palm_detection/";
  for (auto [complexity, file] : {std::make_pair(0, "palm_detection_lite.tflite"),
                                  std::make_pair(1, "palm_detection_full.tflite"),
                                  std::make_pair(-1, "palm_detection_full.tflite")}) {
    SCOPED_TRACE(complexity);
    auto loaded = Load("PalmDetectionModelLoader", complexity);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    ExpectModel(*loaded, dir + file);
  }
}

TEST(TfLiteModelLoaderGraphTest, HandLandmarkModelComplexityPicksLiteOrFull) {
  const std::string dir = "mediapipe/modules/hand_landmark/";
  for (auto [complexity, file] : {std::make_pair(0, "hand_landmark_lite.tflite"),
                                  std::make_pair(1, "hand_landmark_full.tflite"),
                                  std::make_pair(-1, "hand_landmark_full.tflite")}) {
    SCOPED_TRACE(complexity);
    auto loaded = Load("HandLandmarkModelLoader", complexity);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    ExpectModel(*loaded, dir + file);
  }
}

}  // namespace
}  // namespace sluice
