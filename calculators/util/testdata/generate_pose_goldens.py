"""Generates pose_goldens.txt: inputs and the outputs of MediaPipe's own pose
calculators (pip package mediapipe==0.10.21, see
tests/hands/setup_mediapipe_venv.sh), for pose_mediapipe_golden_test.cc.

  $(bash tests/hands/setup_mediapipe_venv.sh | tail -1) \
      calculators/util/testdata/generate_pose_goldens.py > \
      calculators/util/testdata/pose_goldens.txt

Two kinds of block, each ending with "end":
* "chain smoothing": PoseLandmarkFiltering's nodes without the switches
  (AlignmentPointsRects on the auxiliary landmarks, visibility and one-euro
  smoothing of image, world and auxiliary landmarks) plus a velocity filter,
  over a sequence of frames with a gap (landmarks missing: filters reset).
  Lines: "size W H", then per frame "frame T" followed by the inputs present
  (lms, aux, world as one-line text protos) and the outputs produced at T
  (roi, filtered, world_filtered, aux_filtered, velocity).
* "chain warp": ImageToTensor's MATRIX for an ROI, InverseMatrix, WarpAffine of
  a float mask back onto the image (the pose segmentation path). Lines: size,
  roi, border, mask W H values..., warped W H values...
"""
import random

import numpy as np
import mediapipe as mp
from google.protobuf import text_format
from mediapipe.framework import calculator_pb2
from mediapipe.framework.formats import landmark_pb2, rect_pb2
from mediapipe.python import packet_creator as pc
from mediapipe.python import packet_getter as pg
from mediapipe.python._framework_bindings import calculator_graph
from mediapipe.python._framework_bindings import image_frame
from mediapipe.python._framework_bindings import timestamp

FRAME_US = 33333

SMOOTHING_GRAPH = """
input_stream: "image" input_stream: "lms" input_stream: "aux" input_stream: "world"
output_stream: "roi" output_stream: "filtered" output_stream: "world_filtered"
output_stream: "aux_filtered" output_stream: "velocity"
node { calculator: "ImagePropertiesCalculator" input_stream: "IMAGE:image" output_stream: "SIZE:size" }
node { calculator: "LandmarksToDetectionCalculator" input_stream: "NORM_LANDMARKS:aux"
  output_stream: "DETECTION:aux_detection" }
node { calculator: "AlignmentPointsRectsCalculator" input_stream: "DETECTION:aux_detection"
  input_stream: "IMAGE_SIZE:size" output_stream: "NORM_RECT:roi"
  options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
    rotation_vector_start_keypoint_index: 0 rotation_vector_end_keypoint_index: 1
    rotation_vector_target_angle_degrees: 90 } } }
node { calculator: "VisibilitySmoothingCalculator" input_stream: "NORM_LANDMARKS:lms"
  output_stream: "NORM_FILTERED_LANDMARKS:vis"
  options { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { low_pass_filter { alpha: 0.1 } } } }
node { calculator: "LandmarksSmoothingCalculator" input_stream: "NORM_LANDMARKS:vis"
  input_stream: "IMAGE_SIZE:size" input_stream: "OBJECT_SCALE_ROI:roi"
  output_stream: "NORM_FILTERED_LANDMARKS:filtered"
  options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
    one_euro_filter { min_cutoff: 0.05 beta: 80.0 derivate_cutoff: 1.0 } } } }
node { calculator: "VisibilitySmoothingCalculator" input_stream: "LANDMARKS:world"
  output_stream: "FILTERED_LANDMARKS:world_vis"
  options { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { low_pass_filter { alpha: 0.1 } } } }
node { calculator: "LandmarksSmoothingCalculator" input_stream: "LANDMARKS:world_vis"
  output_stream: "FILTERED_LANDMARKS:world_filtered"
  options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
    one_euro_filter { min_cutoff: 0.1 beta: 40.0 derivate_cutoff: 1.0 disable_value_scaling: true } } } }
node { calculator: "VisibilitySmoothingCalculator" input_stream: "NORM_LANDMARKS:aux"
  output_stream: "NORM_FILTERED_LANDMARKS:aux_vis"
  options { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { low_pass_filter { alpha: 0.1 } } } }
node { calculator: "LandmarksSmoothingCalculator" input_stream: "NORM_LANDMARKS:aux_vis"
  input_stream: "IMAGE_SIZE:size" input_stream: "OBJECT_SCALE_ROI:roi"
  output_stream: "NORM_FILTERED_LANDMARKS:aux_filtered"
  options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
    one_euro_filter { min_cutoff: 0.01 beta: 10.0 derivate_cutoff: 1.0 } } } }
node { calculator: "LandmarksSmoothingCalculator" input_stream: "NORM_LANDMARKS:lms"
  input_stream: "IMAGE_SIZE:size" output_stream: "NORM_FILTERED_LANDMARKS:velocity"
  options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
    velocity_filter { window_size: 5 velocity_scale: 10.0 } } } }
"""

WARP_GRAPH = """
input_stream: "image" input_stream: "roi" input_stream: "mask"
output_stream: "warped"
node { calculator: "ImagePropertiesCalculator" input_stream: "IMAGE:image" output_stream: "SIZE:size" }
node { calculator: "ImageToTensorCalculator" input_stream: "IMAGE:image" input_stream: "NORM_RECT:roi"
  output_stream: "TENSORS:tensors" output_stream: "MATRIX:matrix"
  options { [mediapipe.ImageToTensorCalculatorOptions.ext] {
    output_tensor_width: 16 output_tensor_height: 16 keep_aspect_ratio: true
    output_tensor_float_range { min: 0.0 max: 1.0 } } } }
node { calculator: "InverseMatrixCalculator" input_stream: "MATRIX:matrix"
  output_stream: "MATRIX:inverse" }
node { calculator: "WarpAffineCalculator" input_stream: "IMAGE:mask" input_stream: "MATRIX:inverse"
  input_stream: "OUTPUT_SIZE:size" output_stream: "IMAGE:warped"
  options { [mediapipe.WarpAffineCalculatorOptions.ext] { border_mode: %s gpu_origin: TOP_LEFT } } }
"""


def one_line(msg):
  return text_format.MessageToString(msg, as_one_line=True, float_format='.9g')


def start(graph_text, outputs):
  config = text_format.Parse(graph_text, calculator_pb2.CalculatorGraphConfig())
  graph = calculator_graph.CalculatorGraph(graph_config=config)
  got = []
  for name in outputs:
    graph.observe_output_stream(name, lambda s, p: got.append((s, p)))
  graph.start_run()
  return graph, got


def image_packet(w, h):
  return pc.create_image_frame(
      image_format=image_frame.ImageFormat.SRGB, data=np.zeros((h, w, 3), np.uint8))


def walk(rng, points, step):
  return [(x + rng.uniform(-step, step), y + rng.uniform(-step, step), z + rng.uniform(-step, step))
          for x, y, z in points]


def smoothing_block(rng, w, h, frames, gap):
  print('chain smoothing')
  print('size %d %d' % (w, h))
  outputs = ['roi', 'filtered', 'world_filtered', 'aux_filtered', 'velocity']
  graph, got = start(SMOOTHING_GRAPH, outputs)
  lms = [(rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7), rng.uniform(-0.2, 0.2)) for _ in range(5)]
  aux = [(rng.uniform(0.4, 0.6), rng.uniform(0.4, 0.6), 0.0), (0.0, 0.0, 0.0)]
  world = [(rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5)) for _ in range(5)]
  lines = []
  for k in range(1, frames + 1):
    t = timestamp.Timestamp(FRAME_US * k)
    lines.append('frame %d' % (FRAME_US * k))
    graph.add_packet_to_input_stream('image', image_packet(w, h).at(t))
    # Larger jumps now and then exercise the speed-dependent cutoff.
    step = 0.08 if k % 4 == 0 else 0.01
    lms, world = walk(rng, lms, step), walk(rng, world, step)
    aux = walk(rng, aux[:1], step) + [(aux[0][0] + rng.uniform(-0.02, 0.02),
                                       aux[0][1] - rng.uniform(0.05, 0.15), 0.0)]
    if k in gap:
      graph.wait_until_idle()
      continue
    nl = landmark_pb2.NormalizedLandmarkList()
    for x, y, z in lms:
      nl.landmark.add(x=x, y=y, z=z, visibility=rng.uniform(0, 1), presence=rng.uniform(0, 1))
    al = landmark_pb2.NormalizedLandmarkList()
    for x, y, z in aux:
      al.landmark.add(x=x, y=y, z=z, visibility=rng.uniform(0, 1), presence=rng.uniform(0, 1))
    wl = landmark_pb2.LandmarkList()
    for x, y, z in world:
      wl.landmark.add(x=x, y=y, z=z, visibility=rng.uniform(0, 1))
    graph.add_packet_to_input_stream('lms', pc.create_proto(nl).at(t))
    graph.add_packet_to_input_stream('aux', pc.create_proto(al).at(t))
    graph.add_packet_to_input_stream('world', pc.create_proto(wl).at(t))
    lines += ['lms ' + one_line(nl), 'aux ' + one_line(al), 'world ' + one_line(wl)]
    graph.wait_until_idle()
  graph.close_all_packet_sources()
  graph.wait_until_done()
  # Outputs after their frame's inputs.
  by_time = {}
  for name, packet in got:
    by_time.setdefault(packet.timestamp.value, []).append(
        '%s %s' % (name, one_line(pg.get_proto(packet))))
  for line in lines:
    print(line)
    if line.startswith('frame '):
      for out in sorted(by_time.get(int(line.split()[1]), [])):
        print(out)
  print('end')


def warp_block(rng, w, h, border):
  print('chain warp')
  print('size %d %d' % (w, h))
  roi = rect_pb2.NormalizedRect(
      x_center=rng.uniform(0.3, 0.7), y_center=rng.uniform(0.3, 0.7),
      width=rng.uniform(0.3, 0.8), height=rng.uniform(0.3, 0.8),
      rotation=rng.uniform(-1.0, 1.0))
  print('roi ' + one_line(roi))
  print('border ' + border)
  mask = np.array([[rng.uniform(0, 1) for _ in range(16)] for _ in range(16)], np.float32)
  print('mask 16 16 ' + ' '.join('%.9g' % v for v in mask.flatten()))
  graph, got = start(WARP_GRAPH % border, ['warped'])
  t = timestamp.Timestamp(1)
  graph.add_packet_to_input_stream('image', image_packet(w, h).at(t))
  graph.add_packet_to_input_stream('roi', pc.create_proto(roi).at(t))
  graph.add_packet_to_input_stream(
      'mask', pc.create_image(mp.Image(image_format=mp.ImageFormat.VEC32F1, data=mask)).at(t))
  graph.close_all_packet_sources()
  graph.wait_until_done()
  warped = np.asarray(got[0][1] and pg.get_image(got[0][1]).numpy_view()).reshape(h, w)
  print('warped %d %d %s' % (w, h, ' '.join('%.9g' % v for v in warped.flatten())))
  print('end')


def main():
  rng = random.Random(9)
  smoothing_block(rng, 640, 480, frames=14, gap={7, 8})
  smoothing_block(rng, 480, 640, frames=10, gap={4})
  warp_block(rng, 48, 36, 'BORDER_ZERO')
  warp_block(rng, 40, 64, 'BORDER_ZERO')
  warp_block(rng, 30, 20, 'BORDER_REPLICATE')


if __name__ == '__main__':
  main()
