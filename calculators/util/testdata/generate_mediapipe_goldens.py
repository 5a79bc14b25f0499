"""Generates mediapipe_goldens.txt: random inputs and the outputs of
MediaPipe's own calculators (pip package `mediapipe`), for the
cross-implementation test mediapipe_golden_test.cc.

Run with a Python that has mediapipe installed:
  python3 calculators/util/testdata/generate_mediapipe_goldens.py > \
      calculators/util/testdata/mediapipe_goldens.txt

Format: blocks of lines "<key> <one-line text proto or numbers>", each block
ends with "end". Keys: chain (palm|hand|assoc), size W H, det, lms, rect_a,
rect_b, and the outputs nms_weighted, nms_default, nms_modified, roi_raw, roi,
hand_rect, hand_roi, projected, assoc.
"""
import random

import numpy as np
from google.protobuf import text_format
from mediapipe.framework.formats import detection_pb2, landmark_pb2, rect_pb2
from mediapipe.python import packet_creator as pc
from mediapipe.python import packet_getter as pg
from mediapipe.python._framework_bindings import calculator_graph
from mediapipe.python._framework_bindings import image_frame
from mediapipe.python._framework_bindings import timestamp
from mediapipe.framework import calculator_pb2

PALM_GRAPH = """
input_stream: "image"
output_stream: "nms_weighted" output_stream: "nms_default" output_stream: "nms_modified"
output_stream: "roi_raw" output_stream: "roi"
node { calculator: "ImagePropertiesCalculator" input_stream: "IMAGE:image" output_stream: "SIZE:size" }
node { calculator: "NonMaxSuppressionCalculator" input_stream: "dets" output_stream: "nms_weighted"
  options { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {
    min_suppression_threshold: 0.3 overlap_type: INTERSECTION_OVER_UNION algorithm: WEIGHTED } } }
node { calculator: "NonMaxSuppressionCalculator" input_stream: "dets" output_stream: "nms_default"
  options { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {
    min_suppression_threshold: 0.2 overlap_type: JACCARD max_num_detections: 4 } } }
node { calculator: "NonMaxSuppressionCalculator" input_stream: "dets" output_stream: "nms_modified"
  options { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {
    min_suppression_threshold: 0.5 overlap_type: MODIFIED_JACCARD algorithm: WEIGHTED } } }
node { calculator: "DetectionsToRectsCalculator" input_stream: "DETECTIONS:nms_weighted"
  input_stream: "IMAGE_SIZE:size" output_stream: "NORM_RECTS:roi_raw"
  options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
    rotation_vector_start_keypoint_index: 0 rotation_vector_end_keypoint_index: 2
    rotation_vector_target_angle_degrees: 90 } } }
node { calculator: "RectTransformationCalculator" input_stream: "NORM_RECTS:roi_raw"
  input_stream: "IMAGE_SIZE:size" output_stream: "roi"
  options { [mediapipe.RectTransformationCalculatorOptions.ext] {
    scale_x: 2.6 scale_y: 2.6 shift_y: -0.5 square_long: true } } }
"""

HAND_GRAPH = """
input_stream: "lms" input_stream: "image"
output_stream: "hand_rect" output_stream: "hand_roi" output_stream: "projected"
node { calculator: "ImagePropertiesCalculator" input_stream: "IMAGE:image" output_stream: "SIZE:size" }
node { calculator: "SplitNormalizedLandmarkListCalculator" input_stream: "lms" output_stream: "partial"
  options { [mediapipe.SplitVectorCalculatorOptions.ext] {
    ranges: { begin: 0 end: 4 } ranges: { begin: 5 end: 7 } ranges: { begin: 9 end: 11 }
    ranges: { begin: 13 end: 15 } ranges: { begin: 17 end: 19 } combine_outputs: true } } }
node { calculator: "HandLandmarksToRectCalculator" input_stream: "NORM_LANDMARKS:partial"
  input_stream: "IMAGE_SIZE:size" output_stream: "NORM_RECT:hand_rect" }
node { calculator: "RectTransformationCalculator" input_stream: "NORM_RECT:hand_rect"
  input_stream: "IMAGE_SIZE:size" output_stream: "hand_roi"
  options { [mediapipe.RectTransformationCalculatorOptions.ext] {
    scale_x: 2.0 scale_y: 2.0 shift_y: -0.1 square_long: true } } }
node { calculator: "LandmarkProjectionCalculator" input_stream: "NORM_LANDMARKS:lms"
  input_stream: "NORM_RECT:hand_roi" output_stream: "NORM_LANDMARKS:projected" }
"""

ASSOC_GRAPH = """
output_stream: "rect_a" output_stream: "rect_b" output_stream: "assoc"
node { calculator: "DetectionsToRectsCalculator" input_stream: "DETECTIONS:dets_a"
  output_stream: "NORM_RECTS:rect_a" }
node { calculator: "DetectionsToRectsCalculator" input_stream: "DETECTIONS:dets_b"
  output_stream: "NORM_RECTS:rect_b" }
node { calculator: "AssociationNormRectCalculator" input_stream: "rect_a" input_stream: "rect_b"
  output_stream: "assoc"
  options { [mediapipe.AssociationCalculatorOptions.ext] { min_similarity_threshold: 0.5 } } }
"""


def vector_of(name, items):
  """Graph text turning len(items) Detection input streams into vector `name`."""
  text = ''.join('input_stream: "%s_%d"\n' % (name, i) for i in range(len(items)))
  text += 'node { calculator: "MergeDetectionsToVectorCalculator" '
  text += ''.join('input_stream: "%s_%d" ' % (name, i) for i in range(len(items)))
  text += 'output_stream: "%s" }\n' % name
  inputs = [('%s_%d' % (name, i), pc.create_proto(d)) for i, d in enumerate(items)]
  return text, inputs


def one_line(msg):
  return text_format.MessageToString(msg, as_one_line=True, float_format='.9g')


def run(graph_text, inputs, outputs):
  config = text_format.Parse(graph_text, calculator_pb2.CalculatorGraphConfig())
  graph = calculator_graph.CalculatorGraph(graph_config=config)
  got = {name: [] for name in outputs}
  for name in outputs:
    graph.observe_output_stream(name, lambda s, p: got[s].append(p))
  graph.start_run()
  for name, packet in inputs:
    graph.add_packet_to_input_stream(name, packet.at(timestamp.Timestamp(1)))
  graph.close_all_packet_sources()
  graph.wait_until_done()
  return got


def image_packet(w, h):
  return pc.create_image_frame(
      image_format=image_frame.ImageFormat.SRGB, data=np.zeros((h, w, 3), np.uint8))


def random_detections(rng):
  dets = []
  for _ in range(rng.randint(1, 4)):
    cx, cy = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)
    w, h = rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.3)
    for _ in range(rng.randint(1, 5)):
      d = detection_pb2.Detection()
      d.score.append(rng.uniform(0.5, 1.0))
      d.label_id.append(0)
      loc = d.location_data
      loc.format = loc.RELATIVE_BOUNDING_BOX
      bw, bh = w * rng.uniform(0.8, 1.2), h * rng.uniform(0.8, 1.2)
      loc.relative_bounding_box.xmin = cx + rng.uniform(-0.05, 0.05) - bw / 2
      loc.relative_bounding_box.ymin = cy + rng.uniform(-0.05, 0.05) - bh / 2
      loc.relative_bounding_box.width = bw
      loc.relative_bounding_box.height = bh
      for _ in range(7):
        kp = loc.relative_keypoints.add()
        kp.x = cx + rng.uniform(-w, w)
        kp.y = cy + rng.uniform(-h, h)
      dets.append(d)
  rng.shuffle(dets)
  return dets


def random_boxes(rng, n):
  out = []
  for _ in range(n):
    d = detection_pb2.Detection()
    d.score.append(1.0)
    loc = d.location_data
    loc.format = loc.RELATIVE_BOUNDING_BOX
    loc.relative_bounding_box.xmin = rng.uniform(0.1, 0.6)
    loc.relative_bounding_box.ymin = rng.uniform(0.1, 0.6)
    loc.relative_bounding_box.width = rng.uniform(0.1, 0.4)
    loc.relative_bounding_box.height = rng.uniform(0.1, 0.4)
    out.append(d)
  return out


def main():
  rng = random.Random(20240517)
  sizes = [(192, 192), (640, 480), (480, 640), (1280, 720), (300, 500)]
  for case in range(25):
    w, h = sizes[case % len(sizes)]
    dets = random_detections(rng)
    text, inputs = vector_of('dets', dets)
    got = run(text + PALM_GRAPH, inputs + [('image', image_packet(w, h))],
              ['nms_weighted', 'nms_default', 'nms_modified', 'roi_raw', 'roi'])
    print('chain palm')
    print('size %d %d' % (w, h))
    for d in dets:
      print('det', one_line(d))
    for key in ['nms_weighted', 'nms_default', 'nms_modified', 'roi_raw', 'roi']:
      for packet in got[key]:
        for m in pg.get_proto_list(packet):
          print(key, one_line(m))
    print('end')
  for case in range(25):
    w, h = sizes[case % len(sizes)]
    lms = landmark_pb2.NormalizedLandmarkList()
    cx, cy, s = rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7), rng.uniform(0.05, 0.25)
    for _ in range(21):
      lm = lms.landmark.add()
      lm.x, lm.y, lm.z = cx + rng.uniform(-s, s), cy + rng.uniform(-s, s), rng.uniform(-0.1, 0.1)
    got = run(HAND_GRAPH, [('lms', pc.create_proto(lms)), ('image', image_packet(w, h))],
              ['hand_rect', 'hand_roi', 'projected'])
    print('chain hand')
    print('size %d %d' % (w, h))
    print('lms', one_line(lms))
    for key in ['hand_rect', 'hand_roi', 'projected']:
      for packet in got[key]:
        print(key, one_line(pg.get_proto(packet)))
    print('end')
  for case in range(15):
    a, b = random_boxes(rng, rng.randint(1, 3)), random_boxes(rng, rng.randint(1, 3))
    for d in b:  # make some overlap
      if rng.random() < 0.6:
        src = rng.choice(a).location_data.relative_bounding_box
        box = d.location_data.relative_bounding_box
        box.CopyFrom(src)
        box.xmin += rng.uniform(-0.03, 0.03)
    text_a, in_a = vector_of('dets_a', a)
    text_b, in_b = vector_of('dets_b', b)
    got = run(text_a + text_b + ASSOC_GRAPH, in_a + in_b, ['rect_a', 'rect_b', 'assoc'])
    print('chain assoc')
    for key in ['rect_a', 'rect_b']:
      for packet in got[key]:
        for m in pg.get_proto_list(packet):
          print(key, one_line(m))
    for packet in got['assoc']:
      for m in pg.get_proto_list(packet):
        print('assoc', one_line(m))
    print('end')


if __name__ == '__main__':
  main()
