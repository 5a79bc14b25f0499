// numpy <-> ImageFrame helpers shared by the binding files.
#ifndef SLUICE_PYTHON_IMAGE_UTIL_H_
#define SLUICE_PYTHON_IMAGE_UTIL_H_

#include <memory>

#include <pybind11/numpy.h>

#include "formats/image_frame.h"

namespace sluice::python {

// A copy of `data` (H x W x C, or H x W for one channel, of the format's
// dtype) as a frame of `format`; ValueError naming the expected layout.
ImageFrame FrameFromArray(const pybind11::array& data, ImageFormat::Format format);

// A read-only numpy view of `frame` that keeps it alive.
pybind11::array ArrayView(std::shared_ptr<const ImageFrame> frame);

}  // namespace sluice::python

#endif  // SLUICE_PYTHON_IMAGE_UTIL_H_
