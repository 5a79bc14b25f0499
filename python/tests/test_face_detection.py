"""sluice.solutions.face_detection against the `sluice face` CLI and Google's
mediapipe 0.10.21, plus its API contract."""
import base64
import json
import os

import numpy as np
import pytest

from sluice.formats import detection_pb2
from sluice.solutions import drawing_utils
from sluice.solutions import face_detection as mp_face

from conftest import REFERENCE_INPUTS, error_without_models, moving_frames, read_jsonl, run_cli

# The threshold Google's package applies whatever min_detection_confidence
# says (the models' own; its argument does not reach the graph).
GOOGLE_THRESHOLD = {0: 0.5, 1: 0.6}


def detect_all(images, **kwargs):
  with mp_face.FaceDetection(**kwargs) as fd:
    return {name: fd.process(rgb).detections or [] for name, rgb in images.items()}


def box_iou(a, b):
  ax0, ay0, ax1, ay1 = a.xmin, a.ymin, a.xmin + a.width, a.ymin + a.height
  bx0, by0, bx1, by1 = b.xmin, b.ymin, b.xmin + b.width, b.ymin + b.height
  iw = max(0.0, min(ax1, bx1) - max(ax0, bx0))
  ih = max(0.0, min(ay1, by1) - max(ay0, by0))
  inter = iw * ih
  return inter / (a.width * a.height + b.width * b.height - inter)


def field_names(msg):
  return sorted(f.name for f, _ in msg.ListFields())


@pytest.mark.parametrize("model", [0, 1])
def test_detections_equal_the_cli(shared, sluice_cli, reference_images, tmp_path, model):
  out = tmp_path / "faces.jsonl"
  run_cli(sluice_cli, "face", "--input", os.path.join(shared, *REFERENCE_INPUTS),
          "--landmarks", out, "--model-selection", model, "--min-detection-confidence", 0.5,
          "--quiet")
  cli = read_jsonl(out)
  ours = detect_all(reference_images, model_selection=model, min_detection_confidence=0.5)
  assert len(cli) == len(ours), "the CLI read %d images, we have %d" % (len(cli), len(ours))
  found = 0
  for line, (name, detections) in zip(cli, sorted(ours.items())):
    assert (line["width"], line["height"]) == reference_images[name].shape[1::-1], name
    assert len(detections) == len(line["faces"]), name
    for d, face in zip(detections, line["faces"]):
      box = d.location_data.relative_bounding_box
      # Same C++ solution, same pixels: equal up to the CLI's 7 printed digits.
      np.testing.assert_allclose([box.xmin, box.ymin, box.width, box.height], face["box"],
                                 atol=2e-6, err_msg=name)
      assert d.score[0] == pytest.approx(face["score"], abs=2e-6), name
      np.testing.assert_allclose([[k.x, k.y] for k in d.location_data.relative_keypoints],
                                 face["keypoints"], atol=2e-6, err_msg=name)
      found += 1
  assert found >= 3  # the portraits and the hand photos show faces


@pytest.mark.parametrize("model", [0, 1])
def test_detections_match_google(reference_images, google_oracle, model):
  with open(os.path.join(google_oracle, "face_detection_m%d.json" % model)) as f:
    google = json.load(f)
  ours = detect_all(reference_images, model_selection=model,
                    min_detection_confidence=GOOGLE_THRESHOLD[model])
  assert sorted(google) == sorted(ours)
  compared = 0
  for name, encoded in google.items():
    theirs = [detection_pb2.Detection.FromString(base64.b64decode(e)) for e in encoded]
    mine = ours[name]
    assert len(mine) == len(theirs), "%s m%d: %d faces, Google %d" % (name, model, len(mine),
                                                                      len(theirs))
    h, w = reference_images[name].shape[:2]
    for a, b in zip(mine, theirs):  # MediaPipe's output order on both sides
      # The same message shape as Google's, field for field.
      assert field_names(a) == field_names(b), name
      assert field_names(a.location_data) == field_names(b.location_data), name
      assert list(a.label_id) == list(b.label_id) and len(a.score) == len(b.score) == 1
      assert a.location_data.format == b.location_data.format
      la, lb = a.location_data, b.location_data
      assert len(la.relative_keypoints) == len(lb.relative_keypoints) == 6
      # Same models, both on the CPU: measured within 0.01 % (keypoints) and
      # 0.0001 (score); bounds 10x to 100x that, tighter than the CLI
      # conformance's (IoU >= 0.9, keypoints within 0.5 %).
      assert box_iou(la.relative_bounding_box, lb.relative_bounding_box) >= 0.98, name
      size = max(w, h)
      kp = np.mean([np.hypot((p.x - q.x) * w, (p.y - q.y) * h) / size * 100
                    for p, q in zip(la.relative_keypoints, lb.relative_keypoints)])
      assert kp <= 0.1, "%s m%d: keypoints %.3f %% apart" % (name, model, kp)
      assert a.score[0] == pytest.approx(b.score[0], abs=0.01), name
      compared += 1
  assert compared >= 3  # not vacuous: Google finds the faces too


def test_result_has_mediapipes_structure(reference_images):
  with mp_face.FaceDetection() as fd:
    r = fd.process(reference_images["sergey"])
  assert r._fields == ("detections",)
  assert len(r.detections) == 1
  d = r.detections[0]
  assert type(d).DESCRIPTOR.full_name == "mediapipe.Detection"
  assert list(d.label_id) == [0] and 0.5 <= d.score[0] <= 1
  loc = d.location_data
  assert loc.format == loc.RELATIVE_BOUNDING_BOX
  box = loc.relative_bounding_box
  assert 0 < box.xmin < 0.5 and 0 < box.ymin < 0.5 and 0.3 < box.width < 0.9
  assert len(loc.relative_keypoints) == 6
  right_eye = mp_face.get_key_point(d, mp_face.FaceKeyPoint.RIGHT_EYE)
  left_eye = mp_face.get_key_point(d, mp_face.FaceKeyPoint.LEFT_EYE)
  nose = mp_face.get_key_point(d, mp_face.FaceKeyPoint.NOSE_TIP)
  mouth = mp_face.get_key_point(d, mp_face.FaceKeyPoint.MOUTH_CENTER)
  # The person's right eye is on the image's left; the nose between the eyes
  # and above the mouth.
  assert right_eye.x < nose.x < left_eye.x
  assert max(right_eye.y, left_eye.y) < nose.y < mouth.y
  assert right_eye == loc.relative_keypoints[0]
  assert mp_face.get_key_point(None, mp_face.FaceKeyPoint.NOSE_TIP) is None
  assert mp_face.get_key_point(detection_pb2.Detection(), mp_face.FaceKeyPoint.NOSE_TIP) is None


def test_keypoint_enum():
  assert [k.name for k in mp_face.FaceKeyPoint] == [
      "RIGHT_EYE", "LEFT_EYE", "NOSE_TIP", "MOUTH_CENTER", "RIGHT_EAR_TRAGION", "LEFT_EAR_TRAGION"]
  assert [int(k) for k in mp_face.FaceKeyPoint] == list(range(6))


def test_no_face_gives_none():
  with mp_face.FaceDetection() as fd:
    assert fd.process(np.full((120, 160, 3), 127, np.uint8)).detections is None


def test_min_detection_confidence_is_applied(reference_images):
  # Unlike Google's 0.10.21 (which ignores it), the threshold reaches the graph.
  image = reference_images["sergey"]
  with mp_face.FaceDetection(min_detection_confidence=0.5) as fd:
    score = fd.process(image).detections[0].score[0]
  assert score < 0.99
  with mp_face.FaceDetection(min_detection_confidence=0.99) as fd:
    assert fd.process(image).detections is None


@pytest.mark.parametrize("model", [0, 1])
def test_default_threshold_is_the_models_as_in_google(reference_images, model):
  # No min_detection_confidence: the model's own threshold (0.5 / 0.6), the
  # one Google's 0.10.21 applies, so default calls give Google's output.
  with mp_face.FaceDetection(model_selection=model) as a, mp_face.FaceDetection(
      model_selection=model, min_detection_confidence=GOOGLE_THRESHOLD[model]) as b:
    for name, image in reference_images.items():
      assert a.process(image) == b.process(image), name


def test_positional_arguments_are_googles_order(reference_images):
  # FaceDetection(min_detection_confidence, model_selection), as in mediapipe.
  with mp_face.FaceDetection(0.6, 1) as a, mp_face.FaceDetection(
      min_detection_confidence=0.6, model_selection=1) as b:
    assert a.process(reference_images["sergey"]) == b.process(reference_images["sergey"])


def test_strided_and_readonly_input_gives_the_same_result(reference_images):
  image = reference_images["lenna"]
  view = image[:, ::-1]  # not contiguous
  copy = np.ascontiguousarray(view)
  copy.flags.writeable = False
  with mp_face.FaceDetection() as fd:
    a = fd.process(view)
    b = fd.process(copy)
  assert a.detections is not None and a == b


@pytest.mark.parametrize("bad", [
    np.zeros((64, 64, 3), np.float32),
    np.zeros((64, 64), np.uint8),
    np.zeros((64, 64, 4), np.uint8),
    np.zeros((0, 64, 3), np.uint8),
    [[0, 0, 0]],
])
def test_wrong_image_is_a_value_error_naming_the_format(bad):
  with mp_face.FaceDetection() as fd:
    with pytest.raises(ValueError, match=r"FaceDetection.process: .*uint8 array of shape "
                                         r"\(height, width, 3\)"):
      fd.process(bad)


@pytest.mark.parametrize("kwargs, text", [
    (dict(model_selection=2), "model_selection"),
    (dict(model_selection=True), "model_selection"),
    (dict(min_detection_confidence=1.5), "min_detection_confidence"),
    (dict(min_detection_confidence=-0.1), "min_detection_confidence"),
    (dict(device="tpu"), "device"),
])
def test_bad_options(kwargs, text):
  with pytest.raises(ValueError, match=text):
    mp_face.FaceDetection(**kwargs)


def test_closed_object_raises_and_reset_works(reference_images):
  fd = mp_face.FaceDetection()
  first = fd.process(reference_images["sergey"])
  fd.reset()
  assert fd.process(reference_images["sergey"]) == first
  fd.close()
  fd.close()  # twice is fine
  with pytest.raises(RuntimeError, match="closed"):
    fd.process(np.zeros((32, 32, 3), np.uint8))


def test_cuda_device_is_a_clear_error_without_a_gpu():
  try:
    fd = mp_face.FaceDetection(device="cuda")
  except RuntimeError as e:
    assert "CUDA" in str(e) and ("no CUDA backend" in str(e) or "no usable CUDA GPU" in str(e))
  else:
    fd.close()
    pytest.skip("a CUDA GPU is here")


def test_draw_detection_draws_the_box_and_keypoints(reference_images):
  pytest.importorskip("cv2")
  image = reference_images["sergey"]
  with mp_face.FaceDetection() as fd:
    d = fd.process(image).detections[0]
  canvas = image.copy()
  drawing_utils.draw_detection(canvas, d)
  h, w = image.shape[:2]
  nose = mp_face.get_key_point(d, mp_face.FaceKeyPoint.NOSE_TIP)
  assert tuple(canvas[int(nose.y * h), int(nose.x * w)]) == drawing_utils.RED_COLOR
  box = d.location_data.relative_bounding_box
  # The box's left edge, half way down, in the default spec's colour.
  x0, ym = int(box.xmin * w), int((box.ymin + box.height / 2) * h)
  assert tuple(canvas[ym, x0]) == drawing_utils.WHITE_COLOR
  with pytest.raises(ValueError, match="three-channel"):
    drawing_utils.draw_detection(np.zeros((8, 8), np.uint8), d)
  # A face cut by the border: the box is clipped, keypoints outside skipped.
  edge = detection_pb2.Detection()
  edge.CopyFrom(d)
  edge.location_data.relative_bounding_box.xmin = -0.3
  edge.location_data.relative_keypoints[0].x = -0.1
  canvas = image.copy()
  drawing_utils.draw_detection(canvas, edge)
  assert tuple(canvas[ym, 0]) == drawing_utils.WHITE_COLOR
  absolute = detection_pb2.Detection()
  absolute.location_data.format = absolute.location_data.BOUNDING_BOX
  with pytest.raises(ValueError, match="RELATIVE_BOUNDING_BOX"):
    drawing_utils.draw_detection(canvas, absolute)


def test_missing_model_is_a_clear_error_naming_the_file(tmp_path):
  error = error_without_models(tmp_path, "face_detection", "FaceDetection()")
  assert error.startswith(("ValueError", "RuntimeError")), error
  assert "face_detection_short_range.tflite" in error and "not found" in error, error


@pytest.mark.parametrize("kwargs", [{}])
def test_process_stream_equals_process_frame_by_frame(reference_images, kwargs):
  frames = moving_frames(reference_images["sergey"], 8)
  with mp_face.FaceDetection(**kwargs) as solution:
    one_by_one = [solution.process(f) for f in frames]
  with mp_face.FaceDetection(**kwargs) as solution:
    streamed = list(solution.process_stream(iter(frames), depth=3))
    assert solution.process(frames[0]).detections is not None  # still usable
  assert len(streamed) == len(frames)
  assert streamed == one_by_one
  assert all(r.detections for r in streamed)


def test_process_stream_stopped_early_leaves_the_object_consistent(reference_images):
  frames = moving_frames(reference_images["sergey"], 5)
  with mp_face.FaceDetection() as solution:
    first = solution.process(frames[0])
    solution.reset()
    stream = solution.process_stream(frames, depth=3)
    next(stream)
    with pytest.raises(RuntimeError, match="process_stream"):
      solution.process(frames[0])
    stream.close()  # takes the frames still in the graph
    solution.reset()
    assert solution.process(frames[0]) == first
    with pytest.raises(ValueError, match="uint8"):
      list(solution.process_stream([frames[0], frames[1].astype(np.float32)]))
    with pytest.raises(ValueError, match="depth"):
      solution.process_stream(frames, depth=0)


def test_compat_names():
  import sluice.compat as mp
  assert mp.solutions.face_detection.FaceDetection is mp_face.FaceDetection
  assert mp.solutions.face_detection.FaceKeyPoint.NOSE_TIP == 2
  assert mp.solutions.face_detection.get_key_point is mp_face.get_key_point
  assert mp.solutions.drawing_utils.draw_detection is drawing_utils.draw_detection
