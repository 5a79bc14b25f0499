// `sluice selfie`: selfie segmentation on an image, a folder of images, a
// video or a camera; writes the frames with their background replaced and/or
// one 8-bit PNG mask per frame.
#include <filesystem>
#include <memory>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "formats/image_frame_opencv.h"
#include "formats/image_io.h"
#include "solutions/selfie_segmentation/selfie_segmenter.h"
#include "tools/commands.h"
#include "tools/frame_loop.h"
#include "util/status_macros.h"

namespace sluice::cli {
namespace {

[[noreturn]] void Fail(const absl::Status& status) { FailCommand("selfie", status); }

struct SelfieArgs {
  FrameLoopArgs loop;
  std::string mask_dir;
  std::string background = "blur";
  SelfieSegmenterOptions segmenter;
};

// What replaces the background: a blur of the frame, a colour, or an image.
struct Background {
  enum Kind { kBlur, kColor, kImage } kind = kBlur;
  cv::Scalar color;  // RGB(A)
  cv::Mat image;     // RGB, resized to each frame's size when needed
};

// "#rrggbb" or "r,g,b" (0-255 each).
bool ParseColor(const std::string& text, cv::Scalar* color) {
  std::string s(absl::StripAsciiWhitespace(text));
  if (s.size() == 7 && s[0] == '#') {
    int rgb[3];
    for (int i = 0; i < 3; ++i) {
      const std::string hex = s.substr(1 + 2 * i, 2);
      char* end = nullptr;
      const long v = std::strtol(hex.c_str(), &end, 16);
      if (end != hex.c_str() + 2) return false;
      rgb[i] = static_cast<int>(v);
    }
    *color = cv::Scalar(rgb[0], rgb[1], rgb[2], 255);
    return true;
  }
  std::vector<std::string> parts = absl::StrSplit(s, ',');
  if (parts.size() != 3) return false;
  int rgb[3];
  for (int i = 0; i < 3; ++i) {
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(parts[i]), &rgb[i]) || rgb[i] < 0 ||
        rgb[i] > 255) {
      return false;
    }
  }
  *color = cv::Scalar(rgb[0], rgb[1], rgb[2], 255);
  return true;
}

absl::StatusOr<Background> ParseBackground(const std::string& spec) {
  Background bg;
  if (spec == "blur") return bg;
  if (ParseColor(spec, &bg.color)) {
    bg.kind = Background::kColor;
    return bg;
  }
  if (!std::filesystem::exists(spec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--background \"", spec,
        "\" is not blur, a colour (\"#00ff00\" or \"0,255,0\") or an existing image file"));
  }
  absl::StatusOr<ImageFrame> image = ReadImageFile(spec);
  if (!image.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--background image \"", spec, "\" cannot be read: ", image.status().message()));
  }
  cv::Mat view = MatView(*image);
  if (view.channels() == 4) {
    cv::cvtColor(view, bg.image, cv::COLOR_RGBA2RGB);
  } else if (view.channels() == 1) {
    cv::cvtColor(view, bg.image, cv::COLOR_GRAY2RGB);
  } else {
    bg.image = view.clone();
  }
  bg.kind = Background::kImage;
  return bg;
}

// frame * mask + background * (1 - mask), per pixel (the mask as alpha).
absl::StatusOr<ImageFrame> ReplaceBackground(const ImageFrame& frame, const ImageFrame& mask,
                                             Background* bg) {
  absl::StatusOr<ImageFrame> out = frame.Clone();
  if (!out.ok()) return out.status();
  const cv::Mat src = MatView(frame);
  cv::Mat dst = MatView(&*out);
  const int channels = src.channels();
  cv::Mat back;
  switch (bg->kind) {
    case Background::kBlur: {
      // Strong enough to hide detail at any resolution. A blur this wide
      // looks the same computed at a quarter of the size, and costs 1/16.
      const double sigma = std::max(src.cols, src.rows) / 60.0 + 2.0;
      const int factor = std::max(1, std::min(4, std::min(src.cols, src.rows) / 64));
      if (factor == 1) {
        cv::GaussianBlur(src, back, cv::Size(0, 0), sigma);
      } else {
        cv::Mat small;
        cv::resize(src, small, cv::Size((src.cols + factor - 1) / factor,
                                        (src.rows + factor - 1) / factor),
                   0, 0, cv::INTER_AREA);
        cv::GaussianBlur(small, small, cv::Size(0, 0), sigma / factor);
        cv::resize(small, back, src.size(), 0, 0, cv::INTER_LINEAR);
      }
      break;
    }
    case Background::kColor:
      back = cv::Mat(src.rows, src.cols, src.type(), bg->color);
      break;
    case Background::kImage: {
      cv::Mat resized;
      if (bg->image.cols != src.cols || bg->image.rows != src.rows) {
        cv::resize(bg->image, resized, src.size(), 0, 0, cv::INTER_AREA);
      } else {
        resized = bg->image;
      }
      if (channels == 4) {
        cv::cvtColor(resized, back, cv::COLOR_RGB2RGBA);
      } else {
        back = resized;
      }
      break;
    }
  }
  const cv::Mat alpha = MatView(mask);
  for (int y = 0; y < src.rows; ++y) {
    const uint8_t* s = src.ptr<uint8_t>(y);
    const uint8_t* b = back.ptr<uint8_t>(y);
    const float* a = alpha.ptr<float>(y);
    uint8_t* d = dst.ptr<uint8_t>(y);
    for (int x = 0; x < src.cols; ++x) {
      const float w = std::min(1.0f, std::max(0.0f, a[x]));
      for (int c = 0; c < std::min(channels, 3); ++c) {
        const int i = x * channels + c;
        d[i] = static_cast<uint8_t>(s[i] * w + b[i] * (1.0f - w) + 0.5f);
      }
    }
  }
  return out;
}

// The mask as 8-bit gray, 0..255.
absl::Status WriteMaskPng(const ImageFrame& mask, const std::string& path) {
  absl::StatusOr<ImageFrame> gray =
      ImageFrame::Create(ImageFormat::GRAY8, mask.Width(), mask.Height());
  if (!gray.ok()) return gray.status();
  cv::Mat dst = MatView(&*gray);
  MatView(mask).convertTo(dst, CV_8U, 255.0);
  return WritePngFile(*gray, path);
}

void RunSelfie(const SelfieArgs& args) {
  if (absl::Status s = ValidateSelfieSegmenterOptions(args.segmenter); !s.ok()) Fail(s);
  absl::StatusOr<Background> background = ParseBackground(args.background);
  if (!background.ok()) Fail(background.status());
  if (!args.mask_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.mask_dir, ec);
    if (ec || !std::filesystem::is_directory(args.mask_dir)) {
      Fail(absl::PermissionDeniedError(absl::StrCat("cannot create --mask-dir \"", args.mask_dir,
                                                    "\"",
                                                    ec ? absl::StrCat(": ", ec.message()) : "")));
    }
  }
  SelfieSegmenterOptions options = args.segmenter;
  options.enable_tracing = true;  // for the per-stage summary
  absl::StatusOr<std::unique_ptr<SelfieSegmenter>> segmenter = SelfieSegmenter::Create(options);
  if (!segmenter.ok()) Fail(segmenter.status());

  SegmentationResult result;
  FrameLoopHooks hooks;
  ForwardToSolution(segmenter->get(), &result, &hooks);
  int64_t frames = 0, masks_written = 0;
  double person_fraction = 0;
  hooks.emit = [&](const LoopFrame& frame, ImageFrame* canvas) -> absl::Status {
    if (result.mask == nullptr) {
      return absl::InternalError(absl::StrCat("no mask for frame ", frame.index));
    }
    ++frames;
    person_fraction += cv::mean(MatView(*result.mask))[0];
    if (!args.mask_dir.empty()) {
      RETURN_IF_ERROR(WriteMaskPng(
          *result.mask,
          (std::filesystem::path(args.mask_dir) / absl::StrFormat("%06d.png", frame.index))
              .string()));
      ++masks_written;
    }
    if (canvas != nullptr) {
      ASSIGN_OR_RETURN(*canvas, ReplaceBackground(*frame.image, *result.mask, &*background));
    }
    return absl::OkStatus();
  };
  hooks.found = [&] {
    return absl::StrFormat("person %.0f%% of the pixels on average",
                           frames ? 100.0 * person_fraction / frames : 0.0);
  };
  hooks.summary_lines = [&]() -> std::vector<std::string> {
    if (args.mask_dir.empty()) return {};
    return {absl::StrCat("masks: ", args.mask_dir, " (", masks_written, " PNG files)")};
  };
  hooks.output_label = "output";
  RunFrameLoop("selfie", args.loop, hooks);
}

}  // namespace

void AddSelfieCommands(CLI::App& app) {
  auto args = std::make_shared<SelfieArgs>();
  CLI::App* cmd = app.add_subcommand(
      "selfie",
      "Selfie segmentation (MediaPipe Selfie Segmentation): background replacement and masks");
  AddFrameLoopOptions(cmd, &args->loop,
                      "Frames with the background replaced: .mp4/.mkv/.avi video, .png/.jpg "
                      "image, or a folder");
  cmd->add_option("--mask-dir", args->mask_dir,
                  "Folder for one 8-bit PNG mask per frame (000000.png, ...)");
  cmd->add_option("--model-selection", args->segmenter.model_selection,
                  "0: general model (256x256), 1: landscape model (256x144, faster) (default 0)");
  cmd->add_option("--background", args->background,
                  "blur, a colour (\"#00ff00\" or \"0,255,0\") or an image file (default blur)");
  cmd->add_flag("--smooth", args->segmenter.smooth_segmentation,
                "Smooth the mask across frames (video); MediaPipe's selfie solution does not");
  cmd->add_option("--device", args->segmenter.device, "cpu, cuda or auto (default cpu)");
  cmd->add_option("--threads", args->segmenter.inference_threads,
                  "CPU threads of the inference node (default 1, MediaPipe's)");
  cmd->callback([args] { RunSelfie(*args); });
}

}  // namespace sluice::cli
