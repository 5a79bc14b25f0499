// ImageFormat, ImageFrame and Image with numpy conversion. numpy -> frame
// copies (the array may change after the call); frame -> numpy is a read-only
// view that keeps the frame (and the packet holding it) alive.
#include <cstring>
#include <memory>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "framework/packet.h"
#include "image_util.h"
#include "status_util.h"

namespace py = pybind11;

namespace sluice::python {
namespace {

std::string ShapeText(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) absl::StrAppend(&s, i ? ", " : "", a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

// The numpy dtype of one channel of `format`.
py::dtype DtypeOf(int byte_depth) {
  switch (byte_depth) {
    case 1:
      return py::dtype::of<uint8_t>();
    case 2:
      return py::dtype::of<uint16_t>();
    default:
      return py::dtype::of<float>();
  }
}

}  // namespace

ImageFrame FrameFromArray(const py::array& data, ImageFormat::Format format) {
  const int channels = ValueOrRaise(ImageFrame::NumberOfChannelsForFormat(format));
  const int depth = ValueOrRaise(ImageFrame::ByteDepthForFormat(format));
  const py::dtype want = DtypeOf(depth);
  const std::string expected = absl::StrCat(
      "a numpy ", py::repr(want).cast<std::string>(), " array of shape (height, width",
      channels == 1 ? "" : absl::StrCat(", ", channels), ")",
      channels == 1 ? " or (height, width, 1)" : "", " for ", ImageFormat::Format_Name(format));
  const bool shape_ok = (data.ndim() == 3 && data.shape(2) == channels) ||
                        (data.ndim() == 2 && channels == 1);
  if (!data.dtype().equal(want) || !shape_ok || data.shape(0) < 1 || data.shape(1) < 1) {
    throw py::value_error(absl::StrCat("expected ", expected, ", got a ",
                                       py::str(py::handle(data.dtype())).cast<std::string>(), " array of shape ",
                                       ShapeText(data)));
  }
  py::array packed = py::array::ensure(data, py::array::c_style);
  const int height = static_cast<int>(data.shape(0));
  const int width = static_cast<int>(data.shape(1));
  ImageFrame frame = ValueOrRaise(ImageFrame::Create(format, width, height));
  const auto* src = static_cast<const uint8_t*>(packed.data());
  for (int y = 0; y < height; ++y) {
    std::memcpy(frame.MutableRow(y), src + static_cast<size_t>(y) * frame.RowBytes(),
                frame.RowBytes());
  }
  return frame;
}

py::array ArrayView(std::shared_ptr<const ImageFrame> frame) {
  const ImageFrame& f = *frame;
  std::vector<py::ssize_t> shape{f.Height(), f.Width()};
  std::vector<py::ssize_t> strides{f.WidthStep(), f.PixelStride()};
  if (f.NumberOfChannels() > 1) {
    shape.push_back(f.NumberOfChannels());
    strides.push_back(f.ByteDepth());
  }
  // The capsule owns a reference to the frame; numpy drops it with the view.
  auto* keep = new std::shared_ptr<const ImageFrame>(frame);
  py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<const ImageFrame>*>(p); });
  py::array view(DtypeOf(f.ByteDepth()), shape, strides, f.PixelData(), base);
  py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return view;
}

void InitImage(py::module_& m) {
  py::enum_<ImageFormat::Format>(m, "ImageFormat", "Pixel formats (MediaPipe's ImageFormat).")
      .value("UNKNOWN", ImageFormat::UNKNOWN)
      .value("SRGB", ImageFormat::SRGB)
      .value("SRGBA", ImageFormat::SRGBA)
      .value("GRAY8", ImageFormat::GRAY8)
      .value("GRAY16", ImageFormat::GRAY16)
      .value("SRGB48", ImageFormat::SRGB48)
      .value("SRGBA64", ImageFormat::SRGBA64)
      .value("VEC32F1", ImageFormat::VEC32F1)
      .value("VEC32F2", ImageFormat::VEC32F2)
      .value("VEC32F4", ImageFormat::VEC32F4)
      .value("SBGRA", ImageFormat::SBGRA);

  // Held by shared_ptr: frames taken from packets share the packet's payload.
  py::class_<ImageFrame, std::shared_ptr<ImageFrame>>(m, "ImageFrame",
                                                      "Pixels in CPU memory (copied in, viewed out).")
      .def(py::init([](ImageFormat::Format image_format, py::array data) {
             return std::make_shared<ImageFrame>(FrameFromArray(data, image_format));
           }),
           py::kw_only(), py::arg("image_format"), py::arg("data"))
      .def_property_readonly("width", &ImageFrame::Width)
      .def_property_readonly("height", &ImageFrame::Height)
      .def_property_readonly("channels", &ImageFrame::NumberOfChannels)
      .def_property_readonly("byte_depth", &ImageFrame::ByteDepth)
      .def_property_readonly("image_format", &ImageFrame::Format)
      .def("numpy_view", [](std::shared_ptr<ImageFrame> self) { return ArrayView(self); },
           "A read-only numpy view of the pixels (no copy).")
      .def("__repr__", [](const ImageFrame& f) {
        return absl::StrCat("<sluice.ImageFrame ", ImageFormat::Format_Name(f.Format()), " ",
                            f.Width(), "x", f.Height(), ">");
      });

  py::class_<Image>(m, "Image", "A frame on the CPU (or GPU), shared by reference.")
      .def(py::init([](ImageFormat::Format image_format, py::array data) {
             return Image(FrameFromArray(data, image_format));
           }),
           py::kw_only(), py::arg("image_format"), py::arg("data"))
      .def_property_readonly("width", &Image::width)
      .def_property_readonly("height", &Image::height)
      .def_property_readonly("channels", &Image::channels)
      .def_property_readonly("image_format", &Image::image_format)
      .def("uses_gpu", &Image::UsesGpu)
      .def("numpy_view",
           [](const Image& self) {
             std::shared_ptr<const ImageFrame> cpu;
             {
               py::gil_scoped_release release;  // may download from the GPU
               cpu = ValueOrRaise(self.CpuView());
             }
             return ArrayView(std::move(cpu));
           },
           "A read-only numpy view of the CPU pixels (no copy once on the CPU).")
      .def("__repr__", [](const Image& i) {
        return absl::StrCat("<sluice.Image ", ImageFormat::Format_Name(i.image_format()), " ",
                            i.width(), "x", i.height(), ">");
      });
}

void InitImagePackets(py::module_& creator, py::module_& getter) {
  creator.def(
      "create_image_frame",
      [](py::array data, ImageFormat::Format image_format) {
        return MakePacket<ImageFrame>(FrameFromArray(data, image_format));
      },
      py::arg("data"), py::arg("image_format") = ImageFormat::SRGB,
      "An ImageFrame packet with a copy of `data`.");
  creator.def(
      "create_image_frame",
      [](std::shared_ptr<ImageFrame> frame) {
        auto copy = std::make_unique<ImageFrame>(ValueOrRaise(frame->Clone()));
        return Adopt(copy.release());
      },
      py::arg("image_frame"));
  creator.def(
      "create_image",
      [](py::array data, ImageFormat::Format image_format) {
        return MakePacket<Image>(Image(FrameFromArray(data, image_format)));
      },
      py::arg("data"), py::arg("image_format") = ImageFormat::SRGB,
      "An Image packet with a copy of `data`.");
  creator.def("create_image", [](const Image& image) { return MakePacket<Image>(image); },
              py::arg("image"), "An Image packet sharing `image` (no copy).");

  getter.def(
      "get_image_frame",
      [](const Packet& p) {
        auto shared = ValueOrRaise(p.Share<ImageFrame>());
        return std::const_pointer_cast<ImageFrame>(shared);
      },
      py::arg("packet"), "The packet's ImageFrame (shares the packet's pixels).");
  getter.def(
      "get_image", [](const Packet& p) { return *ValueOrRaise(p.TryGet<Image>()); },
      py::arg("packet"), "The packet's Image (shared, not copied).");
  getter.def(
      "get_numpy",
      [](const Packet& p) {
        if (p.ValidateAsType<Image>().ok()) {
          std::shared_ptr<const ImageFrame> cpu;
          {
            py::gil_scoped_release release;
            cpu = ValueOrRaise(p.Get<Image>().CpuView());
          }
          return ArrayView(std::move(cpu));
        }
        return ArrayView(ValueOrRaise(p.Share<ImageFrame>()));
      },
      py::arg("packet"),
      "Pixels of an ImageFrame or Image packet as a read-only numpy view (no copy; "
      "the view keeps the packet's payload alive).");
}

}  // namespace sluice::python
