// ColorConvertCalculator: MediaPipe's colour conversion node (same name, tags
// and behaviour), on the CPU and, for images on the GPU, on CUDA.
//
// Exactly one input stream and one output stream; the pair of tags picks the
// conversion (MediaPipe's seven, listed in kColorConversions below):
//   RGBA_IN -> RGB_OUT    GRAY_IN -> RGB_OUT    RGB_IN -> GRAY_OUT
//   RGB_IN -> RGBA_OUT    BGRA_IN -> RGBA_OUT   RGBA_IN -> BGRA_OUT
//   BGR_IN -> RGB_OUT
// Input formats by tag: RGBA_IN SRGBA, RGB_IN SRGB, GRAY_IN GRAY8, BGRA_IN
// SBGRA, BGR_IN SRGB (3 bytes per pixel in B, G, R order: ImageFormat has no
// SBGR). Another format on the tag is an error naming both. Any other tag,
// pair or number of streams fails the graph's validation, naming the node
// (MediaPipe fails only at the first frame).
//
// Packet types: ImageFrame or Image; the output has the input's type, size
// and timestamp. The CPU path is cv::cvtColor with MediaPipe's codes (alpha
// set to 255 for RGB -> RGBA, as MediaPipe does).
//
// GPU path (builds with the GPU layer, SLUICE_HAVE_GPU): an `Image` whose GPU
// side is a CUDA GpuBuffer runs the kernel of gpu/kernels/color_convert.cu
// (maths in color_convert.h, proven equal to cv::cvtColor byte for byte by
// color_convert_calculator_test) on the image's own GpuResources, after
// waiting on its ready event; the output `Image` stays on the GPU. Chosen
// per packet; the node does not request the GPU service.
//
//   node {
//     calculator: "ColorConvertCalculator"
//     input_stream: "RGB_IN:previous_hair_mask_rgb"
//     output_stream: "GRAY_OUT:previous_hair_mask"
//   }
#ifndef SLUICE_CALCULATORS_IMAGE_COLOR_CONVERT_CALCULATOR_H_
#define SLUICE_CALCULATORS_IMAGE_COLOR_CONVERT_CALCULATOR_H_

#include "formats/image_frame.h"
#include "gpu/kernels/color_convert.h"

namespace sluice {
namespace color_convert {

// One supported IN -> OUT pair.
struct ColorConversionSpec {
  const char* in_tag;
  const char* out_tag;
  ImageFormat::Format in_format;
  ImageFormat::Format out_format;
  gpu_kernels::ColorConversion conversion;
};

// The one list of what the calculator converts (MediaPipe's order).
inline constexpr ColorConversionSpec kColorConversions[] = {
    {"RGBA_IN", "RGB_OUT", ImageFormat::SRGBA, ImageFormat::SRGB,
     gpu_kernels::ColorConversion::kRgbaToRgb},
    {"GRAY_IN", "RGB_OUT", ImageFormat::GRAY8, ImageFormat::SRGB,
     gpu_kernels::ColorConversion::kGrayToRgb},
    {"RGB_IN", "GRAY_OUT", ImageFormat::SRGB, ImageFormat::GRAY8,
     gpu_kernels::ColorConversion::kRgbToGray},
    {"RGB_IN", "RGBA_OUT", ImageFormat::SRGB, ImageFormat::SRGBA,
     gpu_kernels::ColorConversion::kRgbToRgba},
    {"BGRA_IN", "RGBA_OUT", ImageFormat::SBGRA, ImageFormat::SRGBA,
     gpu_kernels::ColorConversion::kBgraToRgba},
    {"RGBA_IN", "BGRA_OUT", ImageFormat::SRGBA, ImageFormat::SBGRA,
     gpu_kernels::ColorConversion::kRgbaToBgra},
    {"BGR_IN", "RGB_OUT", ImageFormat::SRGB, ImageFormat::SRGB,
     gpu_kernels::ColorConversion::kBgrToRgb},
};

}  // namespace color_convert
}  // namespace sluice

#endif  // SLUICE_CALCULATORS_IMAGE_COLOR_CONVERT_CALCULATOR_H_
