// The extension module `sluice._sluice`; the public API is the `sluice`
// package around it (python/sluice).
#include <pybind11/pybind11.h>

#include "bindings.h"

PYBIND11_MODULE(_sluice, m) {
  m.doc() = "Sluice C++ core (graph runtime, packets, images, solutions)";
  sluice::python::InitImage(m);
  sluice::python::InitPacket(m);
  sluice::python::InitGraph(m);
  sluice::python::InitHands(m);
  sluice::python::InitFaceDetection(m);
  sluice::python::InitFaceMesh(m);
  sluice::python::InitSelfieSegmentation(m);
  sluice::python::InitPose(m);
}
