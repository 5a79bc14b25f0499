// ColorConvertCalculator (see color_convert_calculator.h): CPU path with
// cv::cvtColor, CUDA path (SLUICE_HAVE_GPU) with gpu/kernels/color_convert.cu.
#include "calculators/image/color_convert_calculator.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_frame_opencv.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "framework/port_map.h"
#include "opencv2/core.hpp"
#include "opencv2/imgproc.hpp"

#if SLUICE_HAVE_GPU
#include "gpu/cuda_status.h"
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"
#include "gpu/kernels/color_convert_launch.h"
#endif

namespace sluice {
namespace {

using color_convert::ColorConversionSpec;
using color_convert::kColorConversions;
using gpu_kernels::ColorConversion;

// MediaPipe's cv::cvtColor code for each conversion.
int CvCode(ColorConversion c) {
  switch (c) {
    case ColorConversion::kRgbaToRgb:
      return cv::COLOR_RGBA2RGB;
    case ColorConversion::kGrayToRgb:
      return cv::COLOR_GRAY2RGB;
    case ColorConversion::kRgbToGray:
      return cv::COLOR_RGB2GRAY;
    case ColorConversion::kRgbToRgba:
      return cv::COLOR_RGB2RGBA;
    case ColorConversion::kBgraToRgba:
      return cv::COLOR_BGRA2RGBA;
    case ColorConversion::kRgbaToBgra:
      return cv::COLOR_RGBA2BGRA;
    case ColorConversion::kBgrToRgb:
      return cv::COLOR_BGR2RGB;
  }
  return -1;
}

std::string SupportedPairs() {
  std::string s;
  for (const ColorConversionSpec& c : kColorConversions) {
    absl::StrAppend(&s, s.empty() ? "" : ", ", c.in_tag, " -> ", c.out_tag);
  }
  return s;
}

// The tag of the only stream of `ports` (an untagged stream has tag "").
std::string OnlyTag(const PortMap& ports) {
  const std::vector<std::string> tags = ports.Tags();
  return tags.empty() ? "" : tags[0];
}

}  // namespace

class ColorConvertCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string prefix = absl::StrCat("ColorConvertCalculator \"", cc->GetNodeName(), "\": ");
    if (cc->Inputs().NumEntries() != 1 || cc->Outputs().NumEntries() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, "needs exactly one input stream and one output stream, has ",
                       cc->Inputs().NumEntries(), " and ", cc->Outputs().NumEntries()));
    }
    const std::string in_tag = OnlyTag(cc->Inputs().TagMap());
    const std::string out_tag = OnlyTag(cc->Outputs().TagMap());
    if (Find(in_tag, out_tag) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          prefix, "unsupported conversion ", in_tag.empty() ? "(untagged)" : in_tag, " -> ",
          out_tag.empty() ? "(untagged)" : out_tag, "; supported: ", SupportedPairs()));
    }
    cc->Inputs().Tag(in_tag).SetOneOf<ImageFrame, Image>();
    cc->Outputs().Tag(out_tag).SetSameAs(&cc->Inputs().Tag(in_tag));
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    spec_ = Find(OnlyTag(cc->Inputs().TagMap()), OnlyTag(cc->Outputs().TagMap()));
    if (spec_ == nullptr) return absl::InternalError("ColorConvertCalculator: no conversion");
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Packet& in = cc->Inputs().Tag(spec_->in_tag).Value();
    if (in.IsEmpty()) return absl::OkStatus();
    const bool is_image = in.ValidateAsType<Image>().ok();
    if (is_image) {
      const Image& image = in.Get<Image>();
      if (absl::Status s = CheckFormat(cc, image.image_format()); !s.ok()) return s;
#if SLUICE_HAVE_GPU
      if (image.UsesGpu()) {
        auto buffer = std::dynamic_pointer_cast<GpuBuffer>(image.GpuStorage());
        if (buffer != nullptr) return ProcessGpu(cc, *buffer);
      }
#endif
    }
    std::shared_ptr<const ImageFrame> frame;
    if (is_image) {
      absl::StatusOr<std::shared_ptr<const ImageFrame>> v = in.Get<Image>().CpuView();
      if (!v.ok()) return v.status();
      frame = *std::move(v);
    } else {
      frame = *in.Share<ImageFrame>();
      if (absl::Status s = CheckFormat(cc, frame->Format()); !s.ok()) return s;
    }
    absl::StatusOr<ImageFrame> out = ConvertCpu(*frame);
    if (!out.ok()) return out.status();
    const Timestamp ts = cc->InputTimestamp();
    if (is_image) {
      cc->Outputs().Tag(spec_->out_tag).AddPacket(MakePacket<Image>(*std::move(out)).At(ts));
    } else {
      cc->Outputs().Tag(spec_->out_tag).Add(new ImageFrame(*std::move(out)), ts);
    }
    return absl::OkStatus();
  }

 private:
  static const ColorConversionSpec* Find(const std::string& in_tag, const std::string& out_tag) {
    for (const ColorConversionSpec& c : kColorConversions) {
      if (in_tag == c.in_tag && out_tag == c.out_tag) return &c;
    }
    return nullptr;
  }

  absl::Status CheckFormat(CalculatorContext* cc, ImageFormat::Format format) const {
    if (format == spec_->in_format) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("ColorConvertCalculator \"", cc->NodeName(), "\": ", spec_->in_tag,
                     " expects ", ImageFormat::Format_Name(spec_->in_format), " images, got ",
                     ImageFormat::Format_Name(format)));
  }

  // MediaPipe's conversion: cv::cvtColor with its code, alpha 255 after
  // RGB -> RGBA.
  absl::StatusOr<ImageFrame> ConvertCpu(const ImageFrame& frame) const {
    absl::StatusOr<ImageFrame> out =
        ImageFrame::Create(spec_->out_format, frame.Width(), frame.Height());
    if (!out.ok() || frame.Width() == 0 || frame.Height() == 0) return out;
    cv::Mat dst = MatView(&*out);
    try {
      cv::cvtColor(MatView(frame), dst, CvCode(spec_->conversion));
      if (dst.data != out->MutablePixelData()) dst.copyTo(MatView(&*out));
    } catch (const cv::Exception& e) {
      return absl::InternalError(absl::StrCat("ColorConvertCalculator: OpenCV failed: ", e.what()));
    }
    if (spec_->conversion == ColorConversion::kRgbToRgba) {
      for (int y = 0; y < out->Height(); ++y) {
        uint8_t* row = out->MutableRow(y);
        for (int x = 0; x < out->Width(); ++x) row[4 * x + 3] = 255;
      }
    }
    return out;
  }

#if SLUICE_HAVE_GPU
  // The CUDA path (see the header): output stays on the GPU; nothing waits
  // on the host.
  absl::Status ProcessGpu(CalculatorContext* cc, GpuBuffer& image) {
    // The image's resources (the graph's service when a converter made it).
    const std::shared_ptr<GpuResources>& gpu = image.shared_resources();
    if (absl::Status s = gpu->Activate(); !s.ok()) return s;
    absl::StatusOr<GpuContext*> ctx = gpu->Context();
    if (!ctx.ok()) return ctx.status();
    const cudaStream_t stream = (*ctx)->stream();
    absl::StatusOr<std::shared_ptr<GpuBuffer>> out =
        GpuBuffer::Create(gpu, spec_->out_format, image.width(), image.height(), stream);
    if (!out.ok()) return out.status();
    gpu_kernels::ColorConvertParams params;
    params.width = image.width();
    params.height = image.height();
    params.conversion = spec_->conversion;
    params.src_pitch = static_cast<long>(image.pitch());
    params.dst_pitch = static_cast<long>((*out)->pitch());
    if (absl::Status s = image.WaitReady(stream); !s.ok()) return s;
    if (absl::Status s = CudaStatus(
            gpu_kernels::LaunchColorConvertU8(image.data(), (*out)->data(), params, stream),
            absl::StrCat("ColorConvertCalculator \"", cc->NodeName(), "\": kernel ColorConvertU8"));
        !s.ok()) {
      return s;
    }
    if (absl::Status s = image.MarkRead(stream); !s.ok()) return s;
    if (absl::Status s = (*out)->MarkReady(stream); !s.ok()) return s;
    cc->Outputs()
        .Tag(spec_->out_tag)
        .AddPacket(MakePacket<Image>(MakeGpuImage(*std::move(out))).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
#endif

  const ColorConversionSpec* spec_ = nullptr;
};

REGISTER_CALCULATOR(ColorConvertCalculator);

}  // namespace sluice
