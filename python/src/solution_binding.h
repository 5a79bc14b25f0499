// The Python object of a frame-in, result-out C++ solution (FaceDetector,
// FaceMesh, SelfieSegmenter, PoseTracker, all on solutions/common's
// FramePipeline): process / send / next / close, the GIL released while C++
// works. Each binding file gives a Traits struct:
//   using Solution = FaceMesh; using Options = FaceMeshOptions;
//   using Result = FaceMeshResult;
//   static constexpr char kName[] = "FaceMesh";   // the Python class's name
//   static absl::Status Validate(const Options&);
//   static pybind11::object ToPython(Result);
#ifndef SLUICE_PYTHON_SOLUTION_BINDING_H_
#define SLUICE_PYTHON_SOLUTION_BINDING_H_

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "image_util.h"
#include "solution_util.h"
#include "status_util.h"

namespace sluice::python {

template <typename Traits>
class PySolution {
 public:
  using Solution = typename Traits::Solution;
  using Options = typename Traits::Options;
  using Result = typename Traits::Result;

  explicit PySolution(const Options& options) {
    RaiseIfError(Traits::Validate(options));
    absl::StatusOr<std::unique_ptr<Solution>> created;
    {
      pybind11::gil_scoped_release release;  // loads the models
      created = Solution::Create(options);
    }
    solution_ = ValueOrRaise(std::move(created));
  }
  ~PySolution() { Close(); }

  void Close() {
    pybind11::gil_scoped_release release;
    solution_.reset();
  }

  // The result for `image` (an RGB uint8 array; not copied).
  pybind11::object Process(const pybind11::array& image, int64_t timestamp_us) {
    CheckOpen();
    const std::string where = absl::StrCat(Traits::kName, ".process");
    RgbFrameView view(where.c_str(), image);
    absl::StatusOr<Result> result;
    {
      pybind11::gil_scoped_release release;
      result = solution_->Process(view.frame(), timestamp_us);
    }
    return Traits::ToPython(ValueOrRaise(std::move(result)));
  }

  // Pipelined use: Send() a copy of the frame (blocks while max_in_flight
  // frames are in the graph), Next() the oldest frame's result.
  void Send(const pybind11::array& image, int64_t timestamp_us) {
    CheckOpen();
    const std::string where = absl::StrCat(Traits::kName, ".process_stream");
    CheckRgbImage(where.c_str(), image);
    ImageFrame frame = FrameFromArray(image, ImageFormat::SRGB);
    absl::Status s;
    {
      pybind11::gil_scoped_release release;
      s = solution_->Send(std::move(frame), timestamp_us);
    }
    RaiseIfError(s);
  }

  pybind11::object Next() {
    CheckOpen();
    Result r;
    bool ok;
    {
      pybind11::gil_scoped_release release;
      ok = solution_->Next(&r);
    }
    if (!ok) {
      absl::Status s = solution_->status();
      RaiseIfError(s.ok() ? absl::InternalError(absl::StrCat(Traits::kName, ": the graph stopped"))
                          : s);
    }
    return Traits::ToPython(std::move(r));
  }

  // Adds process / send / next / close to the class (the constructor is the
  // binding file's: its keyword arguments are the solution's options).
  static void DefineMethods(pybind11::class_<PySolution>& cls) {
    namespace py = pybind11;
    cls.def("process", &PySolution::Process, py::arg("image"), py::arg("timestamp_us"))
        .def("send", &PySolution::Send, py::arg("image"), py::arg("timestamp_us"))
        .def("next", &PySolution::Next)
        .def("close", &PySolution::Close);
  }

 private:
  void CheckOpen() const {
    if (solution_ == nullptr) {
      throw std::runtime_error(absl::StrCat(Traits::kName, ": the graph is closed"));
    }
  }

  std::unique_ptr<Solution> solution_;
};

}  // namespace sluice::python

#endif  // SLUICE_PYTHON_SOLUTION_BINDING_H_
