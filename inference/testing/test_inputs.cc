#include "inference/testing/test_inputs.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace sluice::inference::testing {
namespace {

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

int Paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

}  // namespace

std::string SharedDir() {
  const char* env = std::getenv("SLUICE_SHARED_DIR");
  return env && *env ? env : "../shared";
}

absl::StatusOr<RgbImage> LoadPng(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string file = ss.str();
  const auto* d = reinterpret_cast<const uint8_t*>(file.data());
  static const uint8_t kSig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (file.size() < 8 || std::memcmp(d, kSig, 8) != 0)
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a PNG"));
  int width = 0, height = 0, channels = 0;
  std::string idat;
  for (size_t pos = 8; pos + 12 <= file.size();) {
    const uint32_t len = BigEndian32(d + pos);
    if (pos + 12 + len > file.size())
      return absl::DataLossError(absl::StrCat(path, ": truncated PNG"));
    const std::string type(file.data() + pos + 4, 4);
    const uint8_t* body = d + pos + 8;
    if (type == "IHDR") {
      width = static_cast<int>(BigEndian32(body));
      height = static_cast<int>(BigEndian32(body + 4));
      const int depth = body[8], color = body[9], interlace = body[12];
      channels = color == 0 ? 1 : color == 2 ? 3 : color == 6 ? 4 : 0;
      if (depth != 8 || channels == 0 || interlace != 0) {
        return absl::UnimplementedError(
            absl::StrCat(path, ": only 8-bit gray/RGB/RGBA non-interlaced PNGs"));
      }
    } else if (type == "IDAT") {
      idat.append(reinterpret_cast<const char*>(body), len);
    }
    pos += 12 + len;
  }
  if (width <= 0 || height <= 0) return absl::InvalidArgumentError(absl::StrCat(path, ": no IHDR"));
  const size_t stride = static_cast<size_t>(width) * channels;
  std::vector<uint8_t> raw((stride + 1) * height);
  uLongf raw_len = raw.size();
  if (uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) !=
          Z_OK ||
      raw_len != raw.size()) {
    return absl::DataLossError(absl::StrCat(path, ": bad PNG image data"));
  }
  std::vector<uint8_t> px(stride * height);
  for (int y = 0; y < height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* src = &raw[y * (stride + 1) + 1];
    uint8_t* cur = &px[y * stride];
    const uint8_t* prev = y > 0 ? &px[(y - 1) * stride] : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<size_t>(channels) ? cur[i - channels] : 0;
      const int b = prev ? prev[i] : 0;
      const int c = prev && i >= static_cast<size_t>(channels) ? prev[i - channels] : 0;
      int v = src[i];
      switch (filter) {
        case 0:
          break;
        case 1:
          v += a;
          break;
        case 2:
          v += b;
          break;
        case 3:
          v += (a + b) / 2;
          break;
        case 4:
          v += Paeth(a, b, c);
          break;
        default:
          return absl::DataLossError(absl::StrCat(path, ": bad PNG filter"));
      }
      cur[i] = static_cast<uint8_t>(v);
    }
  }
  RgbImage img;
  img.width = width;
  img.height = height;
  img.rgb.resize(static_cast<size_t>(width) * height * 3);
  for (size_t p = 0; p < static_cast<size_t>(width) * height; ++p) {
    for (int k = 0; k < 3; ++k) img.rgb[p * 3 + k] = px[p * channels + (channels == 1 ? 0 : k)];
  }
  return img;
}

absl::Status FillImageInput(const RgbImage& image, const IoTensor& input, float lo, float hi) {
  if (input.dtype != ir::DType::kFloat32 || input.shape.size() != 4 || input.shape[0] != 1 ||
      input.shape[3] != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", input.name, "' is not a [1,H,W,3] float tensor"));
  }
  const int oh = input.shape[1], ow = input.shape[2];
  float* out = input.f32();
  for (int y = 0; y < oh; ++y) {
    const float sy = std::clamp((y + 0.5f) * image.height / oh - 0.5f, 0.0f, image.height - 1.0f);
    const int y0 = static_cast<int>(sy), y1 = std::min(y0 + 1, image.height - 1);
    const float fy = sy - y0;
    for (int x = 0; x < ow; ++x) {
      const float sx = std::clamp((x + 0.5f) * image.width / ow - 0.5f, 0.0f, image.width - 1.0f);
      const int x0 = static_cast<int>(sx), x1 = std::min(x0 + 1, image.width - 1);
      const float fx = sx - x0;
      for (int k = 0; k < 3; ++k) {
        auto at = [&](int yy, int xx) {
          return static_cast<float>(
              image.rgb[(static_cast<size_t>(yy) * image.width + xx) * 3 + k]);
        };
        const float v = (1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x1)) +
                        fy * ((1 - fx) * at(y1, x0) + fx * at(y1, x1));
        out[(static_cast<size_t>(y) * ow + x) * 3 + k] = lo + (hi - lo) * v / 255.0f;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace sluice::inference::testing
