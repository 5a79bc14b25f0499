// `sluice pose`: pose tracking (MediaPipe Pose, 33 body landmarks) on an
// image, a folder of images, a video or a camera; writes landmarks as JSON
// Lines and/or CSV, segmentation masks as PNGs, and/or an annotated
// image/video (skeleton, optionally the mask blended in).
//
// --landmarks, one JSON object per frame read:
//   {"frame": 0, "timestamp_us": 0, "width": W, "height": H,
//    "poses": [{"landmarks": [[x, y, z, visibility, presence], ...33],
//               "world_landmarks": [[x, y, z, visibility, presence], ...33]}]}
// "poses" is empty when no pose was found (MediaPipe tracks one pose at most).
// x, y are normalized to the image, z at about x's scale; world landmarks in
// metres, origin between the hips. Unlike mp.solutions.pose, presence is kept.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "formats/image_frame_opencv.h"
#include "formats/image_io.h"
#include "render/drawing.h"
#include "render/pose_connections.h"
#include "solutions/pose/pose_tracker.h"
#include "tools/commands.h"
#include "tools/frame_loop.h"
#include "tools/json_text.h"
#include "util/status_macros.h"

namespace sluice::cli {
namespace {

[[noreturn]] void Fail(const absl::Status& status) { FailCommand("pose", status); }

struct PoseArgs {
  FrameLoopArgs loop;
  std::string landmarks;
  std::string csv;
  std::string mask_dir;
  float mask_alpha = 0.5f;
  bool show_rois = false;
  PoseTrackerOptions tracker;
};

// The mask blend's tint (a light blue that stays visible on skin and dark clothes).
constexpr Rgb kMaskTint{0, 160, 255};

// visibility / presence as JSON: null when the landmark does not carry it.
template <typename Landmark>
std::string Scores(const Landmark& l) {
  return absl::StrCat(l.has_visibility() ? Num(l.visibility()) : "null", ", ",
                      l.has_presence() ? Num(l.presence()) : "null");
}

// [[x, y, z, visibility, presence], ...]
template <typename List>
std::string Points5(const List& list) {
  std::string out = "[";
  for (int i = 0; i < list.landmark_size(); ++i) {
    const auto& l = list.landmark(i);
    absl::StrAppend(&out, i ? ", " : "", "[", Num(l.x()), ", ", Num(l.y()), ", ", Num(l.z()), ", ",
                    Scores(l), "]");
  }
  return out + "]";
}

// One line of the --landmarks file (format above).
std::string FrameJson(int64_t frame, const PoseTrackingResult& r) {
  std::string out = absl::StrCat("{\"frame\": ", frame, ", \"timestamp_us\": ", r.timestamp_us,
                                 ", \"width\": ", r.width, ", \"height\": ", r.height,
                                 ", \"poses\": [");
  if (r.detected) {
    absl::StrAppend(&out, "{\"landmarks\": ", Points5(r.landmarks),
                    ", \"world_landmarks\": ", Points5(r.world_landmarks), "}");
  }
  return out + "]}";
}

// CSV: one row per frame; landmark columns named after MediaPipe's
// PoseLandmark (nose_x, ..., world_right_foot_index_presence), empty cells
// when no pose was found.
constexpr const char* kCsvFields[] = {"x", "y", "z", "visibility", "presence"};

std::string CsvHeader() {
  std::string out = "frame,timestamp_us,width,height,detected";
  for (const char* prefix : {"", "world_"}) {
    for (const char* name : PoseLandmarkNames()) {
      for (const char* field : kCsvFields) absl::StrAppend(&out, ",", prefix, name, "_", field);
    }
  }
  return out;
}

template <typename List>
void AppendCsvPoints(const List& list, std::string* out) {
  for (int i = 0; i < kNumPoseLandmarks; ++i) {
    if (i >= list.landmark_size()) {
      absl::StrAppend(out, ",,,,,");
      continue;
    }
    const auto& l = list.landmark(i);
    absl::StrAppend(out, ",", Num(l.x()), ",", Num(l.y()), ",", Num(l.z()), ",",
                    l.has_visibility() ? Num(l.visibility()) : "", ",",
                    l.has_presence() ? Num(l.presence()) : "");
  }
}

std::string CsvRow(int64_t frame, const PoseTrackingResult& r) {
  std::string out = absl::StrCat(frame, ",", r.timestamp_us, ",", r.width, ",", r.height, ",",
                                 r.detected ? 1 : 0);
  if (!r.detected) {
    out.append(2 * kNumPoseLandmarks * 5, ',');
    return out;
  }
  AppendCsvPoints(r.landmarks, &out);
  AppendCsvPoints(r.world_landmarks, &out);
  return out;
}

// The mask as 8-bit gray, 0..255.
absl::Status WriteMaskPng(const ImageFrame& mask, const std::string& path) {
  ASSIGN_OR_RETURN(ImageFrame gray, ImageFrame::Create(ImageFormat::GRAY8, mask.Width(),
                                                       mask.Height()));
  cv::Mat dst = MatView(&gray);
  MatView(mask).convertTo(dst, CV_8U, 255.0);
  return WritePngFile(gray, path);
}

// Tints the person: pixel += (tint - pixel) * alpha * P(person).
absl::Status BlendMask(const ImageFrame& mask, float alpha, ImageFrame* canvas) {
  if (mask.Width() != canvas->Width() || mask.Height() != canvas->Height() ||
      mask.Format() != ImageFormat::VEC32F1) {
    return absl::InternalError(absl::StrFormat(
        "segmentation mask is %dx%d %s, the frame %dx%d", mask.Width(), mask.Height(),
        ImageFormat::Format_Name(mask.Format()), canvas->Width(), canvas->Height()));
  }
  const int channels = canvas->NumberOfChannels();
  const float tint[3] = {kMaskTint.r, kMaskTint.g, kMaskTint.b};
  for (int y = 0; y < canvas->Height(); ++y) {
    const float* m = reinterpret_cast<const float*>(mask.Row(y));
    uint8_t* p = canvas->MutableRow(y);
    for (int x = 0; x < canvas->Width(); ++x, p += channels) {
      const float w = alpha * std::clamp(m[x], 0.0f, 1.0f);
      for (int c = 0; c < 3; ++c) {
        p[c] = static_cast<uint8_t>(p[c] + (tint[c] - p[c]) * w + 0.5f);
      }
    }
  }
  return absl::OkStatus();
}

void RunPose(const PoseArgs& args) {
  PoseTrackerOptions options = args.tracker;
  if (!args.mask_dir.empty()) options.enable_segmentation = true;
  if (absl::Status s = ValidatePoseTrackerOptions(options); !s.ok()) Fail(s);
  if (!(args.mask_alpha >= 0.0f && args.mask_alpha <= 1.0f)) {
    Fail(absl::InvalidArgumentError(
        absl::StrCat("--mask-alpha must be in [0, 1], got ", args.mask_alpha)));
  }
  FrameLoopHooks hooks;
  std::ofstream landmarks_file, csv_file;
  OpenLandmarksFile("pose", args.landmarks, &landmarks_file, &hooks);
  if (!args.csv.empty()) {
    csv_file.open(args.csv, std::ios::out | std::ios::trunc);
    if (!csv_file) {
      Fail(absl::PermissionDeniedError(absl::StrCat("cannot write --csv file \"", args.csv, "\"")));
    }
    csv_file << CsvHeader() << '\n';
  }
  if (!args.mask_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.mask_dir, ec);
    if (ec || !std::filesystem::is_directory(args.mask_dir)) {
      Fail(absl::PermissionDeniedError(absl::StrCat(
          "cannot create --mask-dir \"", args.mask_dir, "\"",
          ec ? absl::StrCat(": ", ec.message()) : "")));
    }
  }
  options.enable_tracing = true;  // for the per-stage summary
  absl::StatusOr<std::unique_ptr<PoseTracker>> created = PoseTracker::Create(options);
  if (!created.ok()) Fail(created.status());
  PoseTracker& tracker = **created;

  PoseTrackingResult result;
  int64_t frames = 0, with_pose = 0, masks_written = 0;
  ForwardToSolution(&tracker, &result, &hooks);
  hooks.emit = [&](const LoopFrame& frame, ImageFrame* canvas) -> absl::Status {
    ++frames;
    with_pose += result.detected ? 1 : 0;
    if (landmarks_file.is_open()) landmarks_file << FrameJson(frame.index, result) << '\n';
    if (csv_file.is_open()) csv_file << CsvRow(frame.index, result) << '\n';
    const ImageFrame* mask = result.segmentation_mask.get();
    if (!args.mask_dir.empty() && mask != nullptr) {
      RETURN_IF_ERROR(WriteMaskPng(
          *mask, (std::filesystem::path(args.mask_dir) / absl::StrFormat("%06d.png", frame.index))
                     .string()));
      ++masks_written;
    }
    if (canvas == nullptr) return absl::OkStatus();
    if (mask != nullptr && args.mask_alpha > 0.0f) {
      RETURN_IF_ERROR(BlendMask(*mask, args.mask_alpha, canvas));
    }
    if (args.show_rois) {
      if (result.rect_from_landmarks) {
        RETURN_IF_ERROR(DrawNormalizedRect(canvas, *result.rect_from_landmarks));
      }
      if (result.pose_detection) RETURN_IF_ERROR(DrawDetection(canvas, *result.pose_detection));
    }
    if (result.detected) RETURN_IF_ERROR(DrawPose(canvas, result.landmarks));
    return absl::OkStatus();
  };
  hooks.found = [&] { return absl::StrCat("a pose in ", with_pose, " of ", frames, " frames"); };
  // (Replaces the landmarks-only summary OpenLandmarksFile set.)
  hooks.summary_lines = [&]() -> std::vector<std::string> {
    std::vector<std::string> lines;
    if (!args.landmarks.empty()) lines.push_back("landmarks: " + args.landmarks);
    if (!args.csv.empty()) lines.push_back("csv: " + args.csv);
    if (!args.mask_dir.empty()) {
      lines.push_back(absl::StrCat("masks: ", args.mask_dir, " (", masks_written,
                                   " PNG files; none for frames without a pose)"));
    }
    return lines;
  };
  RunFrameLoop("pose", args.loop, hooks);
}

}  // namespace

void AddPoseCommands(CLI::App& app) {
  auto args = std::make_shared<PoseArgs>();
  CLI::App* cmd = app.add_subcommand(
      "pose",
      "Pose tracking (MediaPipe Pose): 33 body landmarks as JSON Lines or CSV, masks, and an "
      "annotated video");
  AddFrameLoopOptions(cmd, &args->loop,
                      "Annotated output: .mp4/.mkv/.avi video, .png/.jpg image, or a folder");
  cmd->add_option("--landmarks", args->landmarks, "JSON Lines file, one object per frame");
  cmd->add_option("--csv", args->csv,
                  "CSV file, one row per frame (nose_x, ..., world_right_foot_index_presence)");
  cmd->add_option("--mask-dir", args->mask_dir,
                  "Folder for one 8-bit PNG segmentation mask per frame with a pose "
                  "(000000.png, ...); implies --segmentation");
  cmd->add_flag("--static", args->tracker.static_image_mode,
                "Treat every frame on its own (no tracking, no smoothing)");
  cmd->add_option("--model-complexity", args->tracker.model_complexity,
                  "0: lite, 1: full, 2: heavy landmark model (default 1)");
  cmd->add_flag("!--no-smooth", args->tracker.smooth_landmarks,
                "Do not filter the landmarks across frames");
  cmd->add_flag("--segmentation", args->tracker.enable_segmentation,
                "Also compute the person segmentation mask (blended into --output)");
  cmd->add_flag("!--no-smooth-segmentation", args->tracker.smooth_segmentation,
                "Do not smooth the mask across frames");
  cmd->add_option("--mask-alpha", args->mask_alpha,
                  "Strength of the mask's tint in --output, 0 to 1 (default 0.5; 0: none)");
  cmd->add_option("--min-detection-confidence", args->tracker.min_detection_confidence,
                  "Pose detection score threshold (default 0.5)");
  cmd->add_option("--min-tracking-confidence", args->tracker.min_tracking_confidence,
                  "Pose presence threshold to keep tracking (default 0.5)");
  cmd->add_option("--device", args->tracker.device, "cpu, cuda or auto (default cpu)");
  cmd->add_option("--threads", args->tracker.inference_threads,
                  "CPU threads per inference node (default 1, MediaPipe's)");
  cmd->add_flag("--show-rois", args->show_rois,
                "Also draw the pose detection and the tracked region");
  cmd->callback([args] { RunPose(*args); });
}

}  // namespace sluice::cli
