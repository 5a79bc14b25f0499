"""What the face oracles (tests/face_detection/mediapipe_face_oracle.py,
tests/face_mesh/mediapipe_face_mesh_oracle.py) share: their common flags, and
running one of Google's mp.solutions over the frames of --input, writing the
JSON Lines `sluice <solution> --landmarks` writes.

Frames, timestamps and the --models swap are tests/hands/mediapipe_hands_oracle.py's
helpers. Imported by path (sys.path), not installed.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hands"))
import mediapipe_hands_oracle as common  # noqa: E402  (frames, use_models)


def add_common_args(p, models_help):
  """--input, --output (alias --landmarks), --models and --stats."""
  p.add_argument("--input", required=True)
  p.add_argument("--output", "--landmarks", dest="output", default="-",
                 help="JSONL file ('-' = stdout)")
  p.add_argument("--models", default=None, help=models_help)
  p.add_argument("--stats", action="store_true")


def run(a, model_subdirs, open_solution, fields_of):
  """Runs the solution open_solution(mp) (a context manager with process())
  over a.input; one line per frame: frame, timestamp_us, width, height, then
  fields_of(result). With a.models, the wheel's model files named in
  model_subdirs ({subdir of mediapipe/modules: file names}) are replaced by
  those of a.models for the run. With a.stats, one line to stderr: frames,
  wall seconds of the loop (decode + inference + JSON, without import and
  model load) and fps. Returns the exit code."""
  os.environ.setdefault("GLOG_minloglevel", "2")
  os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
  import cv2
  import mediapipe as mp
  tmp = None
  if a.models:
    import tempfile
    tmp = tempfile.TemporaryDirectory(prefix="mp_models_")
    common.MODEL_SUBDIRS = model_subdirs
    common.use_models(a.models, tmp.name)
  out = sys.stdout if a.output == "-" else open(a.output, "w")
  n = 0
  with open_solution(mp) as solution:
    start = time.perf_counter()
    for ts, rgb in common.frames(cv2, a.input):
      rgb.flags.writeable = False
      result = solution.process(rgb)
      h, w = rgb.shape[:2]
      line = {"frame": n, "timestamp_us": ts, "width": w, "height": h}
      line.update(fields_of(result))
      out.write(json.dumps(line) + "\n")
      n += 1
    wall = time.perf_counter() - start
  if out is not sys.stdout:
    out.close()
  if a.stats:
    print("oracle frames=%d wall_s=%.3f fps=%.2f" % (n, wall, n / wall if wall else 0),
          file=sys.stderr)
  return 0
