#include "render/overlay_layer.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sluice {

absl::StatusOr<ImageFrame> RenderAnnotationLayer(
    int width, int height, const std::function<absl::Status(ImageFrame*)>& draw) {
  if (width <= 0 || height <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("RenderAnnotationLayer: size must be positive, got ", width, "x", height));
  }
  absl::StatusOr<ImageFrame> layer = ImageFrame::Create(ImageFormat::SRGBA, width, height);
  if (!layer.ok()) return layer.status();
  for (int y = 0; y < height; ++y) {
    std::memset(layer->MutableRow(y), 0, static_cast<size_t>(width) * 4);
  }
  if (draw) {
    if (absl::Status s = draw(&*layer); !s.ok()) return s;
  }
  return layer;
}

}  // namespace sluice
