"""sluice.solutions.selfie_segmentation against the `sluice selfie` CLI and
Google's mediapipe 0.10.21, plus its API contract."""
import os

import numpy as np
import pytest

from sluice.solutions import selfie_segmentation as mp_selfie

from conftest import REFERENCE_INPUTS, error_without_models, moving_frames, run_cli


def segment_all(images, model):
  with mp_selfie.SelfieSegmentation(model_selection=model) as seg:
    return {name: seg.process(rgb).segmentation_mask for name, rgb in images.items()}


@pytest.mark.parametrize("model", [0, 1])
def test_masks_equal_the_cli(shared, sluice_cli, reference_images, tmp_path, model):
  cv2 = pytest.importorskip("cv2")
  run_cli(sluice_cli, "selfie", "--input", os.path.join(shared, *REFERENCE_INPUTS),
          "--mask-dir", tmp_path, "--model-selection", model, "--quiet")
  ours = segment_all(reference_images, model)
  pngs = sorted(n for n in os.listdir(tmp_path) if n.endswith(".png"))
  assert len(pngs) == len(ours)
  for png, (name, mask) in zip(pngs, sorted(ours.items())):
    cli = cv2.imread(str(tmp_path / png), cv2.IMREAD_UNCHANGED)
    assert cli.shape == mask.shape, name
    # The CLI writes the same mask as 8-bit (x 255, rounded).
    diff = np.abs(np.rint(mask.astype(np.float64) * 255) - cli)
    assert diff.max() <= 1, "%s m%d: %d levels apart" % (name, model, diff.max())


@pytest.mark.parametrize("model", [0, 1])
def test_masks_match_google(reference_images, google_oracle, model):
  ours = segment_all(reference_images, model)
  for name, mask in ours.items():
    theirs = np.load(os.path.join(google_oracle, "selfie_m%d_%s.npy" % (model, name)))
    assert theirs.shape == mask.shape and theirs.dtype == mask.dtype == np.float32, name
    # Measured: IoU at 0.5 >= 0.997, mean |difference| <= 0.0003; bounds a
    # few times looser (the selfie conformance allows 0.95 and 0.02).
    a, b = mask > 0.5, theirs > 0.5
    union = np.logical_or(a, b).sum()
    iou = np.logical_and(a, b).sum() / union if union else 1.0
    mad = float(np.abs(mask - theirs).mean())
    assert iou >= 0.99 and mad <= 0.002, "%s m%d: IoU %.4f, MAD %.4f" % (name, model, iou, mad)


def test_mask_is_a_float32_probability_map_of_the_image_size(reference_images):
  image = reference_images["sergey"]
  with mp_selfie.SelfieSegmentation() as seg:
    r = seg.process(image)
  assert r._fields == ("segmentation_mask",)
  mask = r.segmentation_mask
  assert isinstance(mask, np.ndarray) and mask.dtype == np.float32
  assert mask.shape == image.shape[:2]
  assert 0.0 <= mask.min() and mask.max() <= 1.0
  h, w = mask.shape
  # A portrait: the centre is the person, the top corners background.
  assert mask[h // 2, w // 2] > 0.9
  assert mask[2, 2] < 0.1 and mask[2, w - 3] < 0.1
  # A read-only view, as MediaPipe's numpy_view(); MediaPipe's usage works on it.
  assert not mask.flags.writeable
  condition = np.stack((mask,) * 3, axis=-1) > 0.1
  out = np.where(condition, image, np.zeros_like(image))
  assert out.shape == image.shape
  # The mask is the result's own: later frames and close() leave it as it was.
  with mp_selfie.SelfieSegmentation() as seg:
    first = seg.process(image).segmentation_mask
    keep = first.copy()
    other = seg.process(reference_images["dino"]).segmentation_mask
    seg.process(reference_images["lenna"])
  np.testing.assert_array_equal(first, keep)
  assert not np.array_equal(other[:100, :100], first[:100, :100])


def test_odd_sizes_and_strided_input(reference_images):
  image = reference_images["lenna"]
  with mp_selfie.SelfieSegmentation(model_selection=1) as seg:
    odd = seg.process(np.ascontiguousarray(image[:101, :67])).segmentation_mask
    assert odd.shape == (101, 67)
    a = seg.process(image[:, ::-1]).segmentation_mask
    b = seg.process(np.ascontiguousarray(image[:, ::-1])).segmentation_mask
  np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("bad", [
    np.zeros((64, 64, 3), np.float64),
    np.zeros((64, 64), np.uint8),
    np.zeros((64, 64, 1), np.uint8),
    np.zeros((0, 0, 3), np.uint8),
    None,
])
def test_wrong_image_is_a_value_error_naming_the_format(bad):
  with mp_selfie.SelfieSegmentation() as seg:
    with pytest.raises(ValueError, match=r"SelfieSegmentation.process: .*uint8 array of shape "
                                         r"\(height, width, 3\)"):
      seg.process(bad)


@pytest.mark.parametrize("kwargs, text", [
    (dict(model_selection=2), "model_selection"),
    (dict(model_selection="0"), "model_selection"),
    (dict(device="npu"), "device"),
])
def test_bad_options(kwargs, text):
  with pytest.raises(ValueError, match=text):
    mp_selfie.SelfieSegmentation(**kwargs)


def test_closed_object_raises_and_reset_works(reference_images):
  seg = mp_selfie.SelfieSegmentation()
  first = seg.process(reference_images["sergey"]).segmentation_mask
  seg.reset()
  np.testing.assert_array_equal(seg.process(reference_images["sergey"]).segmentation_mask, first)
  seg.close()
  seg.close()
  with pytest.raises(RuntimeError, match="closed"):
    seg.process(np.zeros((32, 32, 3), np.uint8))


def test_cuda_device_is_a_clear_error_without_a_gpu():
  try:
    seg = mp_selfie.SelfieSegmentation(device="cuda")
  except RuntimeError as e:
    assert "CUDA" in str(e) and ("no CUDA backend" in str(e) or "no usable CUDA GPU" in str(e))
  else:
    seg.close()
    pytest.skip("a CUDA GPU is here")


def test_missing_model_is_a_clear_error_naming_the_file(tmp_path):
  error = error_without_models(tmp_path, "selfie_segmentation", "SelfieSegmentation()")
  assert error.startswith(("ValueError", "RuntimeError")), error
  assert "selfie_segmentation.tflite" in error and "not found" in error, error


@pytest.mark.parametrize("kwargs", [dict(model_selection=0), dict(model_selection=1)])
def test_process_stream_equals_process_frame_by_frame(reference_images, kwargs):
  frames = moving_frames(reference_images["lenna"], 8)
  with mp_selfie.SelfieSegmentation(**kwargs) as solution:
    one_by_one = [solution.process(f) for f in frames]
  with mp_selfie.SelfieSegmentation(**kwargs) as solution:
    streamed = list(solution.process_stream(iter(frames), depth=3))
    assert solution.process(frames[0]).segmentation_mask is not None  # still usable
  assert len(streamed) == len(frames)
  for a, b in zip(streamed, one_by_one):
    np.testing.assert_array_equal(a.segmentation_mask, b.segmentation_mask)


def test_process_stream_stopped_early_leaves_the_object_consistent(reference_images):
  frames = moving_frames(reference_images["lenna"], 5)
  with mp_selfie.SelfieSegmentation() as solution:
    first = solution.process(frames[0])
    solution.reset()
    stream = solution.process_stream(frames, depth=3)
    next(stream)
    with pytest.raises(RuntimeError, match="process_stream"):
      solution.process(frames[0])
    stream.close()  # takes the frames still in the graph
    solution.reset()
    np.testing.assert_array_equal(solution.process(frames[0]).segmentation_mask, first.segmentation_mask)
    with pytest.raises(ValueError, match="uint8"):
      list(solution.process_stream([frames[0], frames[1].astype(np.float32)]))
    with pytest.raises(ValueError, match="depth"):
      solution.process_stream(frames, depth=0)


def test_compat_names():
  import sluice.compat as mp
  assert mp.solutions.selfie_segmentation.SelfieSegmentation is mp_selfie.SelfieSegmentation
