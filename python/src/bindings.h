// One Init function per binding file; module.cc calls them in order.
#ifndef SLUICE_PYTHON_BINDINGS_H_
#define SLUICE_PYTHON_BINDINGS_H_

#include <pybind11/pybind11.h>

namespace sluice::python {

void InitPacket(pybind11::module_& m);  // Timestamp, Packet, packet_creator/getter
void InitImage(pybind11::module_& m);   // ImageFormat, ImageFrame, Image (numpy)
void InitGraph(pybind11::module_& m);   // CalculatorGraph, OutputStreamPoller
void InitHands(pybind11::module_& m);   // HandTracker (solutions.hands)
void InitFaceDetection(pybind11::module_& m);       // FaceDetector
void InitFaceMesh(pybind11::module_& m);            // FaceMesh, face_mesh_connections()
void InitSelfieSegmentation(pybind11::module_& m);  // SelfieSegmenter
void InitPose(pybind11::module_& m);                // PoseTracker, pose_connections()
// Image creators/getters live beside the image classes.
void InitImagePackets(pybind11::module_& creator, pybind11::module_& getter);

}  // namespace sluice::python

#endif  // SLUICE_PYTHON_BINDINGS_H_
