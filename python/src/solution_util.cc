#include "solution_util.h"

#include "absl/strings/str_cat.h"
#include "status_util.h"

namespace py = pybind11;

namespace sluice::python {

void CheckRgbImage(const char* what, const py::array& image) {
  if (!image.dtype().equal(py::dtype::of<uint8_t>()) || image.ndim() != 3 ||
      image.shape(2) != 3 || image.shape(0) < 1 || image.shape(1) < 1) {
    throw py::value_error(absl::StrCat(what,
                                       ": expected an RGB image as a numpy uint8 array of shape "
                                       "(height, width, 3)"));
  }
}

RgbFrameView::RgbFrameView(const char* what, const py::array& image) {
  CheckRgbImage(what, image);
  // Strided or read-only input is fine: ensure() copies only when not C-contiguous.
  packed_ = py::array::ensure(image, py::array::c_style);
  auto* pixels = static_cast<uint8_t*>(const_cast<void*>(packed_.data()));
  const int h = static_cast<int>(packed_.shape(0));
  const int w = static_cast<int>(packed_.shape(1));
  frame_ = ValueOrRaise(
      ImageFrame::Adopt(ImageFormat::SRGB, w, h, w * 3, pixels, [](uint8_t*) {}));
}

}  // namespace sluice::python
