// Helpers shared by the solution bindings (face detection, face mesh, selfie
// segmentation): the RGB input check and a zero-copy view of the caller's
// pixels (the C++ solutions copy the frame into their graph themselves).
#ifndef SLUICE_PYTHON_SOLUTION_UTIL_H_
#define SLUICE_PYTHON_SOLUTION_UTIL_H_

#include <string>

#include <pybind11/numpy.h>

#include "formats/image_frame.h"

namespace sluice::python {

// ValueError "<what>: expected an RGB image ..." unless `image` is a
// non-empty uint8 array of shape (height, width, 3).
void CheckRgbImage(const char* what, const pybind11::array& image);

// An SRGB frame over a C-contiguous copy-or-alias of `image`; valid while
// this object lives (it holds the array).
class RgbFrameView {
 public:
  RgbFrameView(const char* what, const pybind11::array& image);
  const ImageFrame& frame() const { return frame_; }

 private:
  pybind11::array packed_;
  ImageFrame frame_;
};

}  // namespace sluice::python

#endif  // SLUICE_PYTHON_SOLUTION_UTIL_H_
