#include "formats/image_io.h"

#include <fstream>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "formats/image_frame_opencv.h"
#include "opencv2/imgcodecs.hpp"
#include "opencv2/imgproc.hpp"

namespace sluice {
namespace {

// Converts a decoded (BGR/BGRA/gray, 8-bit) Mat into a new frame of `format`.
absl::StatusOr<ImageFrame> FromDecoded(const cv::Mat& decoded, ImageFormat::Format format,
                                       const std::string& what) {
  int code = -1;
  const int ch = decoded.channels();
  switch (format) {
    case ImageFormat::SRGB:
      code = ch == 1 ? cv::COLOR_GRAY2RGB : ch == 3 ? cv::COLOR_BGR2RGB : cv::COLOR_BGRA2RGB;
      break;
    case ImageFormat::SRGBA:
      code = ch == 1 ? cv::COLOR_GRAY2RGBA : ch == 3 ? cv::COLOR_BGR2RGBA : cv::COLOR_BGRA2RGBA;
      break;
    case ImageFormat::GRAY8:
      code = ch == 1 ? -1 : ch == 3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("cannot read ", what, " as ",
                                                     ImageFormat::Format_Name(format),
                                                     ": only SRGB, SRGBA and GRAY8 are supported"));
  }
  absl::StatusOr<ImageFrame> frame = ImageFrame::Create(format, decoded.cols, decoded.rows);
  if (!frame.ok()) return frame.status();
  cv::Mat dst = MatView(&*frame);
  if (code < 0) {
    decoded.copyTo(dst);
  } else {
    cv::cvtColor(decoded, dst, code);
  }
  return frame;
}

absl::StatusOr<cv::Mat> To8Bit(const cv::Mat& m, const std::string& what) {
  if (m.depth() == CV_8U) return m;
  if (m.depth() == CV_16U) {
    cv::Mat out;
    m.convertTo(out, CV_8U, 1.0 / 257.0);
    return out;
  }
  return absl::InvalidArgumentError(absl::StrCat(what, ": unsupported pixel depth"));
}

}  // namespace

absl::StatusOr<ImageFrame> DecodeImage(const std::string& bytes, ImageFormat::Format format,
                                       const std::string& what) {
  if (bytes.empty()) return absl::InvalidArgumentError(absl::StrCat(what, " is empty"));
  std::vector<uchar> buf(bytes.begin(), bytes.end());
  cv::Mat decoded;
  try {
    decoded = cv::imdecode(buf, cv::IMREAD_UNCHANGED);
  } catch (const cv::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("cannot decode ", what, ": ", e.what()));
  }
  if (decoded.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot decode ", what, ": not a supported image file"));
  }
  absl::StatusOr<cv::Mat> m8 = To8Bit(decoded, what);
  if (!m8.ok()) return m8.status();
  return FromDecoded(*m8, format, what);
}

absl::StatusOr<ImageFrame> ReadImageFile(const std::string& path, ImageFormat::Format format) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open image file \"", path, "\""));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read image file \"", path, "\""));
  return DecodeImage(bytes, format, absl::StrCat("image file \"", path, "\""));
}

absl::Status WritePngFile(const ImageFrame& frame, const std::string& path) {
  if (frame.IsEmpty()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write \"", path, "\": empty frame"));
  }
  cv::Mat src = MatView(frame);
  cv::Mat out;
  switch (frame.Format()) {
    case ImageFormat::SRGB:
      cv::cvtColor(src, out, cv::COLOR_RGB2BGR);
      break;
    case ImageFormat::SRGBA:
      cv::cvtColor(src, out, cv::COLOR_RGBA2BGRA);
      break;
    case ImageFormat::GRAY8:
    case ImageFormat::GRAY16:
      out = src;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("cannot write \"", path, "\" as PNG: format ",
                                                     ImageFormat::Format_Name(frame.Format()),
                                                     " is not supported"));
  }
  std::vector<uchar> encoded;
  try {
    if (!cv::imencode(".png", out, encoded)) {
      return absl::InternalError(absl::StrCat("cannot encode \"", path, "\" as PNG"));
    }
  } catch (const cv::Exception& e) {
    return absl::InternalError(absl::StrCat("cannot encode \"", path, "\" as PNG: ", e.what()));
  }
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(encoded.data()),
          static_cast<std::streamsize>(encoded.size()));
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write file \"", path, "\""));
  return absl::OkStatus();
}

}  // namespace sluice

#if defined(__SANITIZE_THREAD__)
// Debian's OpenCV registers its GDAL codec on first use; GDAL's one-time
// initialisation takes its own mutexes in an order TSan reports as a
// potential deadlock. Not our code and single-threaded: suppress it here, in
// the only library that reaches imgcodecs.
extern "C" const char* __tsan_default_suppressions() { return "deadlock:libgdal.so\n"; }
#endif
