"""sluice.solutions.hands against Google's reference outputs, plus its API contract."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import sluice
from sluice.solutions import drawing_styles
from sluice.solutions import drawing_utils
from sluice.solutions import hands as mp_hands

from conftest import HERE, load_reference, read_rgb

# Reference photos (Google's web build, ../shared/reference/inputs).
REFERENCE_IMAGES = ["call_0413d5c5", "call_044768ad", "four_06aa70cc", "four_077fa4bf",
                    "rock_026fd791", "rock_055f8be9", "none_00af1db1", "none_00b85ea4",
                    "dino", "lenna", "sergey"]


def hand_distance(ours, theirs, width, height):
  """(mean, max) distance of the 21 landmarks in % of max(width, height)."""
  size = max(width, height)
  d = [math.hypot((a.x - b["x"]) * width, (a.y - b["y"]) * height) / size * 100
       for a, b in zip(ours.landmark, theirs)]
  return sum(d) / len(d), max(d)


def pair_hands(result, ref, width, height):
  """[(our hand index, reference hand index)] paired by nearest wrist."""
  ours = result.multi_hand_landmarks or []
  pairs, free = [], list(range(len(ref["multiHandLandmarks"])))
  for i, hand in enumerate(ours):
    w = hand.landmark[0]
    j = min(free, key=lambda k: math.hypot((w.x - ref["multiHandLandmarks"][k][0]["x"]) * width,
                                           (w.y - ref["multiHandLandmarks"][k][0]["y"]) * height))
    free.remove(j)
    pairs.append((i, j))
  return pairs


@pytest.mark.parametrize("complexity", [0, 1])
def test_reference_photos_match_google_within_one_percent(shared, complexity):
  with mp_hands.Hands(static_image_mode=True, max_num_hands=2,
                      model_complexity=complexity) as hands:
    for name in REFERENCE_IMAGES:
      png = os.path.join(shared, "reference", "inputs", name + ".png")
      if not os.path.exists(png):
        continue
      image = read_rgb(png)
      h, w = image.shape[:2]
      ref = load_reference(shared, name, complexity)
      result = hands.process(image)
      n_ref = len(ref["multiHandLandmarks"] or [])
      n_ours = len(result.multi_hand_landmarks or [])
      assert n_ours == n_ref, "%s c%d: %d hands, reference %d" % (name, complexity, n_ours, n_ref)
      if n_ref == 0:
        assert result.multi_hand_landmarks is None
        assert result.multi_hand_world_landmarks is None
        assert result.multi_handedness is None
        continue
      for i, j in pair_hands(result, ref, w, h):
        mean, worst = hand_distance(result.multi_hand_landmarks[i],
                                    ref["multiHandLandmarks"][j], w, h)
        assert mean <= 1.0 and worst <= 2.0, (
            "%s c%d hand %d: mean %.2f%%, max %.2f%% of the image" % (name, complexity, i, mean,
                                                                      worst))
        ours_label = result.multi_handedness[i].classification[0].label
        assert ours_label == ref["multiHandedness"][j]["label"], name


def test_result_has_mediapipes_structure(shared):
  image = read_rgb(os.path.join(shared, "reference", "inputs", "call_0413d5c5.png"))
  with mp_hands.Hands(static_image_mode=True) as hands:
    r = hands.process(image)
  assert len(r.multi_hand_landmarks) == len(r.multi_hand_world_landmarks) == len(r.multi_handedness)
  hand = r.multi_hand_landmarks[0]
  assert len(hand.landmark) == 21
  tip = hand.landmark[mp_hands.HandLandmark.INDEX_FINGER_TIP]
  assert 0 <= tip.x <= 1 and 0 <= tip.y <= 1
  world = r.multi_hand_world_landmarks[0].landmark
  assert len(world) == 21
  # World landmarks are metres around the hand's centre: a hand is < 30 cm.
  assert all(abs(p.x) < 0.3 and abs(p.y) < 0.3 and abs(p.z) < 0.3 for p in world)
  cls = r.multi_handedness[0].classification[0]
  assert cls.label in ("Left", "Right")
  assert cls.index == (1 if cls.label == "Right" else 0)
  assert 0.5 < cls.score <= 1.0
  # Python protobuf messages, like MediaPipe's.
  assert type(hand).DESCRIPTOR.full_name == "mediapipe.NormalizedLandmarkList"


def test_enum_and_connections():
  assert mp_hands.HandLandmark.WRIST == 0
  assert mp_hands.HandLandmark.INDEX_FINGER_TIP == 8
  assert mp_hands.HandLandmark.PINKY_TIP == 20
  assert len(mp_hands.HandLandmark) == 21
  assert len(mp_hands.HAND_CONNECTIONS) == 21
  assert (0, 1) in mp_hands.HAND_CONNECTIONS
  touched = {i for c in mp_hands.HAND_CONNECTIONS for i in c}
  assert touched == set(range(21))


def test_static_vs_tracking(shared):
  image = read_rgb(os.path.join(shared, "reference", "inputs", "call_044768ad.png"))
  h, w = image.shape[:2]
  with mp_hands.Hands(static_image_mode=True) as static:
    ref = [static.process(image) for _ in range(3)]
  # Static mode: every frame on its own, so the same image gives the same result.
  for r in ref[1:]:
    assert r.multi_hand_landmarks == ref[0].multi_hand_landmarks
  with mp_hands.Hands(static_image_mode=False) as tracking:
    frames = [tracking.process(image) for _ in range(5)]
  # The first video frame runs palm detection like static mode does.
  assert frames[0].multi_hand_landmarks == ref[0].multi_hand_landmarks
  # Later frames track the hand from the previous landmarks: close, not identical.
  for r in frames[1:]:
    assert len(r.multi_hand_landmarks) == len(ref[0].multi_hand_landmarks)
    a, b = r.multi_hand_landmarks[0].landmark, ref[0].multi_hand_landmarks[0].landmark
    worst = max(math.hypot((p.x - q.x) * w, (p.y - q.y) * h) for p, q in zip(a, b))
    assert worst / max(w, h) < 0.02


def test_reset_starts_over(shared):
  image = read_rgb(os.path.join(shared, "reference", "inputs", "call_044768ad.png"))
  with mp_hands.Hands() as hands:
    first = hands.process(image)
    hands.process(image)
    hands.reset()
    again = hands.process(image)
  assert again.multi_hand_landmarks == first.multi_hand_landmarks


def test_no_hand_gives_none(shared):
  image = read_rgb(os.path.join(shared, "reference", "inputs", "lenna.png"))
  with mp_hands.Hands(static_image_mode=True) as hands:
    r = hands.process(image)
  assert r.multi_hand_landmarks is None and r.multi_handedness is None
  assert r.multi_hand_world_landmarks is None


def test_strided_and_readonly_input_gives_the_same_result(shared):
  image = read_rgb(os.path.join(shared, "reference", "inputs", "call_0413d5c5.png"))
  mirrored_view = image[:, ::-1]  # not contiguous
  mirrored = np.ascontiguousarray(mirrored_view)
  mirrored.flags.writeable = False
  with mp_hands.Hands(static_image_mode=True) as hands:
    a = hands.process(mirrored_view)
    b = hands.process(mirrored)
  assert a.multi_hand_landmarks == b.multi_hand_landmarks
  assert a.multi_hand_landmarks is not None


@pytest.mark.parametrize("bad", [
    np.zeros((64, 64, 3), np.float32),
    np.zeros((64, 64), np.uint8),
    np.zeros((64, 64, 4), np.uint8),
    np.zeros((0, 64, 3), np.uint8),
    [[0, 0, 0]],
])
def test_wrong_image_is_a_value_error_naming_the_format(bad):
  with mp_hands.Hands(static_image_mode=True) as hands:
    with pytest.raises(ValueError, match=r"uint8 array of shape \(height, width, 3\)"):
      hands.process(bad)


def test_closed_object_raises():
  hands = mp_hands.Hands()
  hands.close()
  hands.close()  # twice is fine
  with pytest.raises(RuntimeError, match="closed"):
    hands.process(np.zeros((32, 32, 3), np.uint8))


@pytest.mark.parametrize("kwargs, error, text", [
    (dict(max_num_hands=0), ValueError, "max_num_hands"),
    (dict(model_complexity=2), ValueError, "model_complexity"),
    (dict(min_detection_confidence=1.5), ValueError, "min_detection_confidence"),
    (dict(min_tracking_confidence=-0.1), ValueError, "min_tracking_confidence"),
    (dict(device="tpu"), ValueError, "device"),
])
def test_bad_options(kwargs, error, text):
  with pytest.raises(error, match=text):
    mp_hands.Hands(**kwargs)


def test_cuda_device_is_a_clear_error_without_cuda():
  from sluice import _build_info
  if _build_info.CUDA:
    pytest.skip("this build has CUDA")
  with pytest.raises(RuntimeError, match="no CUDA backend"):
    mp_hands.Hands(device="cuda")


def test_draw_landmarks_draws_on_the_image(shared):
  pytest.importorskip("cv2")
  image = read_rgb(os.path.join(shared, "reference", "inputs", "call_0413d5c5.png"))
  with mp_hands.Hands(static_image_mode=True) as hands:
    r = hands.process(image)
  canvas = image.copy()
  drawing_utils.draw_landmarks(canvas, r.multi_hand_landmarks[0], mp_hands.HAND_CONNECTIONS,
                               drawing_styles.get_default_hand_landmarks_style(),
                               drawing_styles.get_default_hand_connections_style())
  h, w = image.shape[:2]
  # "call": thumb and pinky stretched out. The thumb tip's dot is peach, the
  # pinky tip's blue (the style's BGR tuples, written as given).
  for landmark, color in ((mp_hands.HandLandmark.THUMB_TIP, (180, 229, 255)),
                          (mp_hands.HandLandmark.PINKY_TIP, (192, 101, 21))):
    tip = r.multi_hand_landmarks[0].landmark[landmark]
    x, y = min(int(tip.x * w), w - 1), min(int(tip.y * h), h - 1)
    assert tuple(canvas[y, x]) == color, landmark.name
  assert (canvas != image).any(axis=2).sum() > 500
  # Connections only.
  lines = image.copy()
  drawing_utils.draw_landmarks(lines, r.multi_hand_landmarks[0], mp_hands.HAND_CONNECTIONS,
                               landmark_drawing_spec=None)
  assert (lines != image).any() and tuple(lines[y, x]) != (192, 101, 21)
  with pytest.raises(ValueError, match="three-channel"):
    drawing_utils.draw_landmarks(np.zeros((8, 8), np.uint8), r.multi_hand_landmarks[0])


def test_compat_module_is_a_drop_in():
  import sluice.compat as mp
  assert mp.solutions.hands.Hands is mp_hands.Hands
  assert mp.solutions.drawing_utils.DrawingSpec is drawing_utils.DrawingSpec
  assert callable(mp.solutions.drawing_styles.get_default_hand_landmarks_style)
  assert mp.solutions.hands.HAND_CONNECTIONS is mp_hands.HAND_CONNECTIONS


def test_mediapipes_documented_example_runs(shared, tmp_path):
  pytest.importorskip("cv2")
  pytest.importorskip("matplotlib")
  folder = os.path.join(shared, "testdata", "hands")
  files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
  env = dict(os.environ, ANNOTATED_PREFIX=str(tmp_path / "annotated_image"), MPLBACKEND="Agg",
             PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
  proc = subprocess.run([sys.executable, os.path.join(HERE, "mediapipe_hands_example.py")] + files,
                        env=env, capture_output=True, text=True, timeout=300)
  assert proc.returncode == 0, proc.stderr[-2000:]
  assert proc.stdout.count("Handedness:") == len(files)
  assert "Index finger tip coordinates" in proc.stdout
  found = [not line.startswith("Handedness: None")
           for line in proc.stdout.splitlines() if line.startswith("Handedness:")]
  assert sum(found) >= len(files) - 1  # every test photo but at most one shows a hand
  for i, has_hand in enumerate(found):
    assert (tmp_path / ("annotated_image%d.png" % i)).exists() == has_hand, files[i]


def moving_frames(image, n):
  """`image` sliding right a few pixels per frame: a small tracking clip."""
  return [np.ascontiguousarray(np.roll(image, 3 * i, axis=1)) for i in range(n)]


@pytest.mark.parametrize("static", [False, True])
def test_process_stream_equals_process_frame_by_frame(shared, static):
  image = read_rgb(os.path.join(shared, "reference", "inputs", "call_044768ad.png"))
  frames = moving_frames(image, 12)
  with mp_hands.Hands(static_image_mode=static) as hands:
    one_by_one = [hands.process(f) for f in frames]
  with mp_hands.Hands(static_image_mode=static) as hands:
    streamed = list(hands.process_stream(iter(frames)))
    # The object stays usable afterwards, its tracking state carried on.
    assert hands.process(frames[-1]).multi_hand_landmarks is not None
  assert len(streamed) == len(frames)
  for a, b in zip(streamed, one_by_one):
    assert a.multi_hand_landmarks == b.multi_hand_landmarks
    assert a.multi_handedness == b.multi_handedness
    assert a.multi_hand_world_landmarks == b.multi_hand_world_landmarks


def test_process_stream_stopped_early_leaves_the_object_consistent(shared):
  image = read_rgb(os.path.join(shared, "reference", "inputs", "call_044768ad.png"))
  frames = moving_frames(image, 6)
  with mp_hands.Hands(static_image_mode=True) as hands:
    stream = hands.process_stream(frames, depth=3)
    first = next(stream)
    with pytest.raises(RuntimeError, match="process_stream"):
      hands.process(frames[0])
    stream.close()  # drains the frames still in the graph
    assert hands.process(frames[0]).multi_hand_landmarks == first.multi_hand_landmarks
    with pytest.raises(ValueError, match="uint8"):
      list(hands.process_stream([frames[0], frames[1].astype(np.float32)]))
    assert hands.process(frames[0]).multi_hand_landmarks == first.multi_hand_landmarks
