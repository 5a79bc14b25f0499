"""Hands(device="cuda") against Hands(device="cpu"): the same hands, the same
handedness, landmarks within the bounds the CPU path meets against Google's
mediapipe (tests/hands/compare_hands.py: per hand mean <= 0.5 %, max <= 2 % of
max(width, height), world mean <= 5 mm), on the reference photos (static mode,
both complexities) and on a moving clip (tracking mode, process() and
process_stream()).

Skipped without the cuda backend (a build without CUDA) or without a usable
CUDA GPU (Hands(device="cuda") then raises "... no usable CUDA GPU found ...";
any other error fails). tools/gpu_check.sh runs it on a GPU machine.
"""
import math
import os

import pytest

from sluice import _models
from sluice.solutions import hands as mp_hands

from conftest import moving_frames, read_rgb

PHOTOS = ["call_0413d5c5", "call_044768ad", "four_06aa70cc", "four_077fa4bf", "rock_026fd791",
          "rock_055f8be9", "none_00af1db1", "none_00b85ea4", "dino", "lenna", "sergey"]
MEAN_PERCENT, MAX_PERCENT, WORLD_MM = 0.5, 2.0, 5.0


def cuda_hands(**options):
  """Hands(device="cuda", **options), or a skip when there is no CUDA GPU to use."""
  info = _models.build_info()
  if info is not None and not info.CUDA:
    pytest.skip("this sluice build has no CUDA backend")
  try:
    return mp_hands.Hands(device="cuda", **options)
  except RuntimeError as e:
    if "no usable CUDA GPU" in str(e) or "no CUDA inference backend" in str(e):
      pytest.skip(str(e))
    raise


@pytest.fixture(scope="module")
def cuda_available():
  cuda_hands(static_image_mode=True).close()


def assert_same_hands(cpu, gpu, width, height, what):
  ours = gpu.multi_hand_landmarks or []
  ref = cpu.multi_hand_landmarks or []
  assert len(ours) == len(ref), "%s: %d hands on cuda, %d on cpu" % (what, len(ours), len(ref))
  size = max(width, height)
  for i in range(len(ref)):  # same order: the same graph, the same detections
    d = [math.hypot((a.x - b.x) * width, (a.y - b.y) * height) / size * 100
         for a, b in zip(ours[i].landmark, ref[i].landmark)]
    mean, worst = sum(d) / len(d), max(d)
    assert mean <= MEAN_PERCENT and worst <= MAX_PERCENT, (
        "%s hand %d: mean %.3f%%, max %.3f%% of the image" % (what, i, mean, worst))
    w = [math.dist((a.x, a.y, a.z), (b.x, b.y, b.z)) * 1000
         for a, b in zip(gpu.multi_hand_world_landmarks[i].landmark,
                         cpu.multi_hand_world_landmarks[i].landmark)]
    assert sum(w) / len(w) <= WORLD_MM, "%s hand %d: world mean %.2f mm" % (what, i, sum(w) / len(w))
    a = gpu.multi_handedness[i].classification[0]
    b = cpu.multi_handedness[i].classification[0]
    assert a.label == b.label, "%s hand %d: %s on cuda, %s on cpu" % (what, i, a.label, b.label)
    assert abs(a.score - b.score) <= 0.05, "%s hand %d: handedness score %.3f vs %.3f" % (
        what, i, a.score, b.score)


@pytest.mark.parametrize("complexity", [0, 1])
def test_static_photos_cuda_matches_cpu(shared, cuda_available, complexity):
  options = dict(static_image_mode=True, max_num_hands=2, model_complexity=complexity)
  found = 0
  with mp_hands.Hands(device="cpu", **options) as cpu, cuda_hands(**options) as gpu:
    for name in PHOTOS:
      png = os.path.join(shared, "reference", "inputs", name + ".png")
      if not os.path.exists(png):
        continue
      image = read_rgb(png)
      h, w = image.shape[:2]
      ref = cpu.process(image)
      assert_same_hands(ref, gpu.process(image), w, h, "%s c%d" % (name, complexity))
      found += len(ref.multi_hand_landmarks or [])
  assert found >= 4, "too few hands found to compare (%d)" % found


@pytest.mark.parametrize("complexity", [0, 1])
def test_tracking_clip_cuda_matches_cpu(shared, cuda_available, complexity):
  image = read_rgb(os.path.join(shared, "reference", "inputs", "call_044768ad.png"))
  h, w = image.shape[:2]
  frames = moving_frames(image, 12)
  options = dict(static_image_mode=False, max_num_hands=2, model_complexity=complexity)
  with mp_hands.Hands(device="cpu", **options) as cpu:
    ref = [cpu.process(f) for f in frames]
  assert any(r.multi_hand_landmarks for r in ref)
  with cuda_hands(**options) as gpu:
    one_by_one = [gpu.process(f) for f in frames]
  with cuda_hands(**options) as gpu:
    streamed = list(gpu.process_stream(frames))
  for i, r in enumerate(ref):
    assert_same_hands(r, one_by_one[i], w, h, "frame %d c%d (process)" % (i, complexity))
    assert_same_hands(r, streamed[i], w, h, "frame %d c%d (process_stream)" % (i, complexity))


def test_cuda_without_gpu_is_a_clear_error_or_works():
  """Hands(device="cuda") either works or says why not; never a crash."""
  info = _models.build_info()
  try:
    mp_hands.Hands(device="cuda", static_image_mode=True).close()
  except RuntimeError as e:
    if info is not None and not info.CUDA:
      assert "no CUDA backend" in str(e)
    else:
      assert "no usable CUDA GPU" in str(e) or "no CUDA inference backend" in str(e), str(e)
