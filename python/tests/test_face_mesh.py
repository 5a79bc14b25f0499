"""sluice.solutions.face_mesh against the `sluice face-mesh` CLI and Google's
mediapipe 0.10.21, plus its API contract and connection sets."""
import base64
import json
import math
import os
import subprocess

import numpy as np
import pytest

from sluice.formats import landmark_pb2
from sluice.solutions import drawing_styles
from sluice.solutions import drawing_utils
from sluice.solutions import face_mesh as mp_face_mesh

from conftest import REFERENCE_INPUTS, error_without_models, moving_frames, read_jsonl, run_cli

CONNECTION_SETS = ["FACEMESH_LIPS", "FACEMESH_LEFT_EYE", "FACEMESH_LEFT_IRIS",
                   "FACEMESH_LEFT_EYEBROW", "FACEMESH_RIGHT_EYE", "FACEMESH_RIGHT_EYEBROW",
                   "FACEMESH_RIGHT_IRIS", "FACEMESH_FACE_OVAL", "FACEMESH_NOSE",
                   "FACEMESH_CONTOURS", "FACEMESH_IRISES", "FACEMESH_TESSELATION"]


def mesh_all(images, **kwargs):
  with mp_face_mesh.FaceMesh(static_image_mode=True, max_num_faces=2, **kwargs) as mesh:
    return {name: mesh.process(rgb).multi_face_landmarks or [] for name, rgb in images.items()}


def mean_distance_pct(a, b, w, h):
  """Mean x, y distance of two landmark lists in % of max(width, height)."""
  d = [math.hypot((p.x - q.x) * w, (p.y - q.y) * h) for p, q in zip(a.landmark, b.landmark)]
  return sum(d) / len(d) / max(w, h) * 100


@pytest.mark.parametrize("refine", [False, True])
def test_landmarks_equal_the_cli(shared, sluice_cli, reference_images, tmp_path, refine):
  out = tmp_path / "mesh.jsonl"
  run_cli(sluice_cli, "face-mesh", "--input", os.path.join(shared, *REFERENCE_INPUTS),
          "--landmarks", out, "--static", "--max-faces", 2, "--quiet",
          *(["--refine-landmarks"] if refine else []))
  cli = read_jsonl(out)
  ours = mesh_all(reference_images, refine_landmarks=refine)
  assert len(cli) == len(ours)
  found = 0
  for line, (name, faces) in zip(cli, sorted(ours.items())):
    assert (line["width"], line["height"]) == reference_images[name].shape[1::-1], name
    assert len(faces) == len(line["faces"]), name
    for face, theirs in zip(faces, line["faces"]):
      assert len(face.landmark) == (478 if refine else 468)
      # Same C++ solution, same pixels: equal up to the CLI's 7 printed digits.
      np.testing.assert_allclose([[l.x, l.y, l.z] for l in face.landmark], theirs["landmarks"],
                                 atol=2e-6, err_msg=name)
      found += 1
  assert found >= 3


@pytest.mark.parametrize("refine", [False, True])
def test_landmarks_match_google(reference_images, google_oracle, refine):
  with open(os.path.join(google_oracle, "face_mesh_%s.json" % str(refine).lower())) as f:
    google = json.load(f)
  ours = mesh_all(reference_images, refine_landmarks=refine)
  assert sorted(google) == sorted(ours)
  compared = 0
  for name, encoded in google.items():
    theirs = [landmark_pb2.NormalizedLandmarkList.FromString(base64.b64decode(e))
              for e in encoded]
    mine = ours[name]
    assert len(mine) == len(theirs), "%s: %d faces, Google %d" % (name, len(mine), len(theirs))
    h, w = reference_images[name].shape[:2]
    free = list(range(len(theirs)))
    for face in mine:  # paired by nearest (the order may differ)
      j = min(free, key=lambda k: mean_distance_pct(face, theirs[k], w, h))
      free.remove(j)
      assert len(face.landmark) == len(theirs[j].landmark) == (478 if refine else 468)
      # The same fields set per landmark as Google's (x, y, z; no visibility).
      assert ([f.name for f, _ in face.landmark[0].ListFields()] ==
              [f.name for f, _ in theirs[j].landmark[0].ListFields()])
      # Mean landmark distance, measured <= 0.006 % of the image; bound 0.1 %
      # (the CLI conformance allows 0.5 %).
      d = mean_distance_pct(face, theirs[j], w, h)
      assert d <= 0.1, "%s refine=%s: landmarks %.3f %% apart" % (name, refine, d)
      compared += 1
  assert compared >= 3  # not vacuous: Google finds the faces too


def test_result_has_mediapipes_structure(reference_images):
  with mp_face_mesh.FaceMesh(static_image_mode=True) as mesh:
    r = mesh.process(reference_images["sergey"])
  assert r._fields == ("multi_face_landmarks",)
  assert len(r.multi_face_landmarks) == 1
  face = r.multi_face_landmarks[0]
  assert type(face).DESCRIPTOR.full_name == "mediapipe.NormalizedLandmarkList"
  assert len(face.landmark) == mp_face_mesh.FACEMESH_NUM_LANDMARKS == 468
  assert all(0 <= p.x <= 1 and 0 <= p.y <= 1 for p in face.landmark)
  # Landmark 1 is the nose tip: between the outer eye corners 33 and 263.
  assert face.landmark[33].x < face.landmark[1].x < face.landmark[263].x
  with mp_face_mesh.FaceMesh(static_image_mode=True, refine_landmarks=True) as mesh:
    refined = mesh.process(reference_images["sergey"]).multi_face_landmarks[0]
  assert len(refined.landmark) == mp_face_mesh.FACEMESH_NUM_LANDMARKS_WITH_IRISES == 478
  # The iris centres lie between their eye's corners: 468 in the eye of
  # corners 33 / 133 (image left), 473 in that of 362 / 263.
  lm = refined.landmark
  assert min(lm[33].x, lm[133].x) < lm[468].x < max(lm[33].x, lm[133].x)
  assert min(lm[362].x, lm[263].x) < lm[473].x < max(lm[362].x, lm[263].x)
  # The 10 iris points: centre then 4 around it, for each eye.
  for centre in (468, 473):
    ring = [lm[centre + k] for k in range(1, 5)]
    assert min(p.x for p in ring) < lm[centre].x < max(p.x for p in ring)


def test_max_num_faces_limits_the_faces(reference_images):
  cv2 = pytest.importorskip("cv2")
  # Two portraits side by side, 400 x 400 each.
  two = np.ascontiguousarray(np.concatenate(
      [cv2.resize(reference_images[n], (400, 400), interpolation=cv2.INTER_AREA)
       for n in ("sergey", "lenna")], axis=1))
  with mp_face_mesh.FaceMesh(static_image_mode=True, max_num_faces=2) as mesh:
    assert len(mesh.process(two).multi_face_landmarks) == 2
  with mp_face_mesh.FaceMesh(static_image_mode=True, max_num_faces=1) as mesh:
    assert len(mesh.process(two).multi_face_landmarks) == 1


def test_static_vs_tracking_and_reset(reference_images):
  image = reference_images["sergey"]
  h, w = image.shape[:2]
  with mp_face_mesh.FaceMesh(static_image_mode=True) as static:
    ref = [static.process(image).multi_face_landmarks for _ in range(2)]
  assert ref[0] == ref[1]  # every frame on its own
  with mp_face_mesh.FaceMesh() as tracking:
    frames = [tracking.process(image).multi_face_landmarks for _ in range(4)]
    # The first video frame runs face detection, as static mode does.
    assert frames[0] == ref[0]
    # Later frames crop from the previous landmarks: close, not identical.
    for f in frames[1:]:
      assert mean_distance_pct(f[0], ref[0][0], w, h) < 1.0
    tracking.reset()
    assert tracking.process(image).multi_face_landmarks == ref[0]


def test_no_face_gives_none():
  with mp_face_mesh.FaceMesh(static_image_mode=True) as mesh:
    assert mesh.process(np.full((120, 160, 3), 127, np.uint8)).multi_face_landmarks is None


def test_connection_sets_are_mediapipes():
  for name in CONNECTION_SETS:
    s = getattr(mp_face_mesh, name)
    assert isinstance(s, frozenset) and s, name
    assert all(isinstance(c, tuple) and len(c) == 2 for c in s), name
  assert len(mp_face_mesh.FACEMESH_TESSELATION) == 2556
  assert len(mp_face_mesh.FACEMESH_LEFT_IRIS) == len(mp_face_mesh.FACEMESH_RIGHT_IRIS) == 4
  # The rings around the iris centres 468 and 473.
  assert {i for c in mp_face_mesh.FACEMESH_IRISES for i in c} == set(range(468, 478)) - {468, 473}
  assert max(i for c in mp_face_mesh.FACEMESH_TESSELATION for i in c) == 467
  assert mp_face_mesh.FACEMESH_NOSE.isdisjoint(mp_face_mesh.FACEMESH_CONTOURS - (
      mp_face_mesh.FACEMESH_LIPS | mp_face_mesh.FACEMESH_FACE_OVAL))


def test_connection_sets_equal_googles(google_python):
  # Set for set against the installed mediapipe (cheap: no graph runs).
  code = ("import json, mediapipe as mp; fm = mp.solutions.face_mesh; print(json.dumps("
          "{n: sorted(getattr(fm, n)) for n in %r}))" % (CONNECTION_SETS,))
  out = subprocess.run([google_python, "-c", code], capture_output=True, text=True, timeout=120)
  assert out.returncode == 0, out.stderr[-1000:]
  google = json.loads(out.stdout)
  for name in CONNECTION_SETS:
    assert getattr(mp_face_mesh, name) == frozenset(tuple(c) for c in google[name]), name


def test_drawing_with_the_default_styles(reference_images):
  pytest.importorskip("cv2")
  image = reference_images["sergey"]
  with mp_face_mesh.FaceMesh(static_image_mode=True, refine_landmarks=True) as mesh:
    face = mesh.process(image).multi_face_landmarks[0]
  canvas = image.copy()
  for connections, style in (
      (mp_face_mesh.FACEMESH_TESSELATION,
       drawing_styles.get_default_face_mesh_tesselation_style()),
      (mp_face_mesh.FACEMESH_CONTOURS, drawing_styles.get_default_face_mesh_contours_style()),
      (mp_face_mesh.FACEMESH_IRISES, drawing_styles.get_default_face_mesh_iris_connections_style())):
    drawing_utils.draw_landmarks(canvas, face, connections, landmark_drawing_spec=None,
                                 connection_drawing_spec=style)
  colors = {tuple(c) for c in canvas.reshape(-1, 3)[(canvas != image).any(axis=2).reshape(-1)]}
  # Gray mesh, light gray lips/oval, green (person's left) and red (right) eyes.
  for color in ((128, 128, 128), (224, 224, 224), (48, 255, 48), (48, 48, 255)):
    assert color in colors, color
  styles = drawing_styles.get_default_face_mesh_contours_style()
  assert set(styles) == set(mp_face_mesh.FACEMESH_CONTOURS)
  assert set(drawing_styles.get_default_face_mesh_contours_style(1)) == (
      mp_face_mesh.FACEMESH_CONTOURS | mp_face_mesh.FACEMESH_NOSE)
  assert set(drawing_styles.get_default_face_mesh_iris_connections_style()) == set(
      mp_face_mesh.FACEMESH_IRISES)


@pytest.mark.parametrize("bad", [
    np.zeros((64, 64, 3), np.uint16),
    np.zeros((64, 64), np.uint8),
    np.zeros((64, 64, 4), np.uint8),
    np.zeros((64, 0, 3), np.uint8),
    "image.png",
])
def test_wrong_image_is_a_value_error_naming_the_format(bad):
  with mp_face_mesh.FaceMesh() as mesh:
    with pytest.raises(ValueError, match=r"FaceMesh.process: .*uint8 array of shape "
                                         r"\(height, width, 3\)"):
      mesh.process(bad)


@pytest.mark.parametrize("kwargs, text", [
    (dict(max_num_faces=0), "max_num_faces"),
    (dict(max_num_faces=1.5), "max_num_faces"),
    (dict(min_detection_confidence=1.5), "min_detection_confidence"),
    (dict(min_tracking_confidence=-0.1), "min_tracking_confidence"),
    (dict(device="gpu"), "device"),
])
def test_bad_options(kwargs, text):
  with pytest.raises(ValueError, match=text):
    mp_face_mesh.FaceMesh(**kwargs)


def test_closed_object_raises():
  mesh = mp_face_mesh.FaceMesh()
  mesh.close()
  mesh.close()
  with pytest.raises(RuntimeError, match="closed"):
    mesh.process(np.zeros((32, 32, 3), np.uint8))


def test_cuda_device_is_a_clear_error_without_a_gpu():
  try:
    mesh = mp_face_mesh.FaceMesh(device="cuda")
  except RuntimeError as e:
    assert "CUDA" in str(e) and ("no CUDA backend" in str(e) or "no usable CUDA GPU" in str(e))
  else:
    mesh.close()
    pytest.skip("a CUDA GPU is here")


def test_missing_model_is_a_clear_error_naming_the_file(tmp_path):
  error = error_without_models(tmp_path, "face_mesh", "FaceMesh()")
  assert error.startswith(("ValueError", "RuntimeError")), error
  assert "not found" in error, error
  assert "face_landmark.tflite" in error or "face_detection_short_range.tflite" in error, error


@pytest.mark.parametrize("kwargs", [dict(static_image_mode=False), dict(static_image_mode=True, refine_landmarks=True)])
def test_process_stream_equals_process_frame_by_frame(reference_images, kwargs):
  frames = moving_frames(reference_images["sergey"], 8)
  with mp_face_mesh.FaceMesh(**kwargs) as solution:
    one_by_one = [solution.process(f) for f in frames]
  with mp_face_mesh.FaceMesh(**kwargs) as solution:
    streamed = list(solution.process_stream(iter(frames), depth=3))
    assert solution.process(frames[0]).multi_face_landmarks is not None  # still usable
  assert len(streamed) == len(frames)
  assert streamed == one_by_one
  assert all(r.multi_face_landmarks for r in streamed)


def test_process_stream_stopped_early_leaves_the_object_consistent(reference_images):
  frames = moving_frames(reference_images["sergey"], 5)
  with mp_face_mesh.FaceMesh() as solution:
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
  assert mp.solutions.face_mesh.FaceMesh is mp_face_mesh.FaceMesh
  assert mp.solutions.face_mesh.FACEMESH_TESSELATION is mp_face_mesh.FACEMESH_TESSELATION
  assert mp.solutions.face_mesh_connections.FACEMESH_CONTOURS is mp_face_mesh.FACEMESH_CONTOURS
  assert callable(mp.solutions.drawing_styles.get_default_face_mesh_contours_style)
