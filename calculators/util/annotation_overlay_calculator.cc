// AnnotationOverlayCalculator: draws RenderData (formats/render_data.proto)
// onto an image, or onto a blank canvas when there is no image input.
// MediaPipe's name, tags and options (AnnotationOverlayCalculatorOptions);
// the drawing is render/annotation_renderer.h (MediaPipe's renderer's
// OpenCV calls).
//
// Inputs:
//   IMAGE      ImageFrame or Image (SRGB, SRGBA or GRAY8), optional; the
//              output has the same type. UIMAGE and IMAGE_GPU (MediaPipe's
//              Image and GPU buffer tags) take an Image. An empty packet
//              skips the timestamp.
//   (untagged) RenderData, any number (indexed); drawn in index order.
//   VECTOR     std::vector<RenderData>, any number; drawn after the
//              untagged ones, in order.
// Outputs:
//   the input's tag (IMAGE, UIMAGE or IMAGE_GPU): the annotated image, SRGB
//   for a GRAY8 input (as MediaPipe), else the input's format. Without an
//   image input: a canvas_width_px x canvas_height_px SRGB canvas of
//   canvas_color (both sizes must be set), as ImageFrame (IMAGE) or Image.
//
// GPU path (builds with the GPU layer, SLUICE_HAVE_GPU): an Image whose GPU
// side is a CUDA GpuBuffer (SRGB or SRGBA) stays on the GPU. The annotations
// are drawn by the same renderer onto a transparent SRGBA layer of the
// image's size (render/overlay_layer.h), which OverlayLayerGpu uploads (once)
// and composites into a new GpuBuffer; nothing is downloaded. Chosen per
// packet; other GPU images take the CPU path through one download. The layer
// matches the CPU path exactly except at antialiased (line_type 16) rounded
// rectangle edges; gpu_scale_factor < 1 draws the layer smaller and scales
// it up (linear), as MediaPipe's GL path does. gpu_uses_top_left_origin is
// not consulted: CUDA images are stored top row first.
//
//   node {
//     calculator: "AnnotationOverlayCalculator"
//     input_stream: "IMAGE:input_image"
//     input_stream: "detection_render_data"
//     input_stream: "VECTOR:landmark_render_data"
//     output_stream: "IMAGE:output_image"
//   }
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "calculators/util/annotation_overlay_calculator.pb.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_frame_opencv.h"
#include "formats/render_data.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "opencv2/core.hpp"
#include "opencv2/imgproc.hpp"
#include "render/annotation_renderer.h"

#if SLUICE_HAVE_GPU
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"
#include "gpu/overlay_gpu.h"
#include "render/overlay_layer.h"
#endif

namespace sluice {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kUImageTag[] = "UIMAGE";
constexpr char kImageGpuTag[] = "IMAGE_GPU";
constexpr char kVectorTag[] = "VECTOR";

using mediapipe::AnnotationOverlayCalculatorOptions;
using mediapipe::RenderData;

}  // namespace

class AnnotationOverlayCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    std::vector<std::string> errors;
    std::vector<std::string> in_tags, out_tags;
    for (const char* tag : {kImageTag, kUImageTag, kImageGpuTag}) {
      if (cc->Inputs().HasTag(tag)) in_tags.push_back(tag);
      if (cc->Outputs().HasTag(tag)) out_tags.push_back(tag);
    }
    if (in_tags.size() > 1) {
      errors.push_back(absl::StrCat("at most one image input, got ", absl::StrJoin(in_tags, ", ")));
    }
    if (out_tags.size() != 1 || cc->Outputs().NumEntries() != 1) {
      errors.push_back("needs exactly one output: IMAGE, UIMAGE or IMAGE_GPU");
    } else if (in_tags.size() == 1 && in_tags[0] != out_tags[0]) {
      errors.push_back(absl::StrCat("the output tag must be the input's, ", in_tags[0]));
    }
    int render_inputs = 0;
    for (int id = 0; id < cc->Inputs().NumEntries(); ++id) {
      const std::string& tag = cc->Inputs().TagMap().EntryAt(id).tag;
      if (tag.empty()) {
        cc->Inputs().Get(id).Set<RenderData>();
        ++render_inputs;
      } else if (tag == kVectorTag) {
        cc->Inputs().Get(id).Set<std::vector<RenderData>>();
        ++render_inputs;
      } else if (tag == kImageTag) {
        cc->Inputs().Get(id).SetOneOf<ImageFrame, Image>();
      } else if (tag == kUImageTag || tag == kImageGpuTag) {
        cc->Inputs().Get(id).Set<Image>();
      } else {
        errors.push_back(absl::StrCat("unknown input tag ", tag,
                                      " (IMAGE, UIMAGE, IMAGE_GPU, VECTOR or untagged RenderData)"));
      }
    }
    if (render_inputs == 0 && in_tags.empty()) errors.push_back("has no inputs");
    if (out_tags.size() == 1) {
      if (out_tags[0] != kImageTag) {
        cc->Outputs().Tag(out_tags[0]).Set<Image>();
      } else if (in_tags.empty()) {
        cc->Outputs().Tag(kImageTag).Set<ImageFrame>();
      } else {
        cc->Outputs().Tag(kImageTag).SetOneOf<ImageFrame, Image>();
      }
    }
    if (!errors.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("AnnotationOverlayCalculator \"",
                                                     cc->GetNodeName(), "\": ",
                                                     absl::StrJoin(errors, "; ")));
    }
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<AnnotationOverlayCalculatorOptions>();
    for (const char* tag : {kImageTag, kUImageTag, kImageGpuTag}) {
      if (cc->Outputs().HasTag(tag)) out_tag_ = tag;
      if (cc->Inputs().HasTag(tag)) in_tag_ = tag;
    }
    if (in_tag_.empty()) {
      if (!options_.has_canvas_width_px() || !options_.has_canvas_height_px() ||
          options_.canvas_width_px() <= 0 || options_.canvas_height_px() <= 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "AnnotationOverlayCalculator \"", cc->NodeName(),
            "\": without an image input, canvas_width_px and canvas_height_px must be set and "
            "positive"));
      }
    }
    // MediaPipe's SetScaleFactor: non-positive is ignored, above 1 is 1.
    const float f = options_.gpu_scale_factor();
    gpu_scale_factor_ = f > 0.0f ? std::min(f, 1.0f) : 1.0f;
    render_options_.flip_text_vertically = options_.flip_text_vertically();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Timestamp ts = cc->InputTimestamp();
    if (in_tag_.empty()) {
      const auto& c = options_.canvas_color();
      absl::StatusOr<ImageFrame> canvas = ImageFrame::Create(
          ImageFormat::SRGB, options_.canvas_width_px(), options_.canvas_height_px());
      if (!canvas.ok()) return canvas.status();
      MatView(&*canvas).setTo(cv::Scalar(c.r(), c.g(), c.b()));
      if (absl::Status s = DrawAll(cc, render_options_, &*canvas); !s.ok()) return s;
      return Emit(cc, std::move(*canvas), out_tag_ != kImageTag);
    }
    const Packet& in = cc->Inputs().Tag(in_tag_).Value();
    if (in.IsEmpty()) return absl::OkStatus();
    const bool is_image = in.ValidateAsType<Image>().ok();
#if SLUICE_HAVE_GPU
    if (is_image && in.Get<Image>().UsesGpu()) {
      auto buffer = std::dynamic_pointer_cast<GpuBuffer>(in.Get<Image>().GpuStorage());
      if (buffer != nullptr && GpuOverlaySupports(*buffer)) {
        absl::StatusOr<std::shared_ptr<GpuBuffer>> out = ProcessGpu(cc, *buffer);
        if (!out.ok()) return out.status();
        cc->Outputs().Tag(out_tag_).AddPacket(
            MakePacket<Image>(MakeGpuImage(*std::move(out))).At(ts));
        return absl::OkStatus();
      }
    }
#endif
    std::shared_ptr<const ImageFrame> frame;
    if (is_image) {
      absl::StatusOr<std::shared_ptr<const ImageFrame>> v = in.Get<Image>().CpuView();
      if (!v.ok()) return v.status();
      frame = *v;
    } else {
      frame = *in.Share<ImageFrame>();
    }
    absl::StatusOr<ImageFrame> target = RenderTarget(cc, *frame);
    if (!target.ok()) return target.status();
    if (absl::Status s = DrawAll(cc, render_options_, &*target); !s.ok()) return s;
    return Emit(cc, std::move(*target), is_image);
  }

 private:
  // A copy of the input to draw on: SRGB(A) as is, GRAY8 as SRGB.
  absl::StatusOr<ImageFrame> RenderTarget(CalculatorContext* cc, const ImageFrame& frame) const {
    if (frame.Format() == ImageFormat::SRGB || frame.Format() == ImageFormat::SRGBA) {
      return frame.Clone();
    }
    if (frame.Format() == ImageFormat::GRAY8) {
      absl::StatusOr<ImageFrame> rgb =
          ImageFrame::Create(ImageFormat::SRGB, frame.Width(), frame.Height());
      if (!rgb.ok()) return rgb.status();
      cv::Mat dst = MatView(&*rgb);
      cv::cvtColor(MatView(frame), dst, cv::COLOR_GRAY2RGB);
      return rgb;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "AnnotationOverlayCalculator \"", cc->NodeName(), "\": ", in_tag_,
        " must be SRGB, SRGBA or GRAY8, not ", ImageFormat::Format_Name(frame.Format())));
  }

  // Every RenderData input of this timestamp, untagged first, in id order.
  absl::Status DrawAll(CalculatorContext* cc, const AnnotationRenderOptions& options,
                       ImageFrame* target) const {
    for (int id = 0; id < cc->Inputs().NumEntries(); ++id) {
      const std::string& tag = cc->Inputs().TagMap().EntryAt(id).tag;
      if (!tag.empty() && tag != kVectorTag) continue;
      const Packet& p = cc->Inputs().Get(id).Value();
      if (p.IsEmpty()) continue;
      absl::Status s;
      if (tag.empty()) {
        s = RenderAnnotations(p.Get<RenderData>(), options, target);
      } else {
        for (const RenderData& rd : p.Get<std::vector<RenderData>>()) {
          s = RenderAnnotations(rd, options, target);
          if (!s.ok()) break;
        }
      }
      if (!s.ok()) {
        return absl::Status(s.code(), absl::StrCat("AnnotationOverlayCalculator \"",
                                                   cc->NodeName(), "\": input ",
                                                   cc->Inputs().TagMap().TagIndexString(id), ": ",
                                                   s.message()));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Emit(CalculatorContext* cc, ImageFrame&& frame, bool as_image) const {
    const Timestamp ts = cc->InputTimestamp();
    if (as_image) {
      cc->Outputs().Tag(out_tag_).AddPacket(MakePacket<Image>(std::move(frame)).At(ts));
    } else {
      cc->Outputs().Tag(out_tag_).Add(new ImageFrame(std::move(frame)), ts);
    }
    return absl::OkStatus();
  }

#if SLUICE_HAVE_GPU
  // The CUDA path (see the header comment): layer drawn here, composited on
  // the image's own resources and stream.
  absl::StatusOr<std::shared_ptr<GpuBuffer>> ProcessGpu(CalculatorContext* cc, GpuBuffer& image) {
    const int w = image.width(), h = image.height();
    AnnotationRenderOptions options = render_options_;
    options.scale_factor = gpu_scale_factor_;
    const int lw = std::max(1, static_cast<int>(std::lround(w * gpu_scale_factor_)));
    const int lh = std::max(1, static_cast<int>(std::lround(h * gpu_scale_factor_)));
    absl::StatusOr<ImageFrame> layer = RenderAnnotationLayer(
        lw, lh, [&](ImageFrame* f) { return DrawAll(cc, options, f); });
    if (!layer.ok()) return layer.status();
    if (lw != w || lh != h) {
      // Premultiplied colour and coverage interpolate linearly.
      absl::StatusOr<ImageFrame> full = ImageFrame::Create(ImageFormat::SRGBA, w, h);
      if (!full.ok()) return full.status();
      cv::Mat dst = MatView(&*full);
      cv::resize(MatView(*layer), dst, cv::Size(w, h), 0, 0, cv::INTER_LINEAR);
      layer = std::move(full);
    }
    const std::shared_ptr<GpuResources>& gpu = image.shared_resources();
    if (absl::Status s = gpu->Activate(); !s.ok()) return s;
    absl::StatusOr<GpuContext*> ctx = gpu->Context();
    if (!ctx.ok()) return ctx.status();
    return OverlayLayerGpu(image, *layer, gpu, (*ctx)->stream());
  }
#endif

  AnnotationOverlayCalculatorOptions options_;
  AnnotationRenderOptions render_options_;
  float gpu_scale_factor_ = 1.0f;
  std::string in_tag_, out_tag_;
};

REGISTER_CALCULATOR(AnnotationOverlayCalculator);

}  // namespace sluice
