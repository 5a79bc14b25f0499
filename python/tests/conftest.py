"""Shared fixtures: the shared test data folder and image loading."""
import json
import os
import subprocess

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def shared_dir():
  return os.path.abspath(os.environ.get("SLUICE_SHARED_DIR", os.path.join(REPO, "..", "shared")))


def read_rgb(path):
  """An image file as an RGB uint8 array (OpenCV decodes it)."""
  cv2 = pytest.importorskip("cv2")
  bgr = cv2.imread(path, cv2.IMREAD_COLOR)
  assert bgr is not None, "cannot read %s" % path
  return np.ascontiguousarray(bgr[:, :, ::-1])


@pytest.fixture(scope="session")
def shared():
  d = shared_dir()
  if not os.path.isdir(d):
    pytest.skip("no shared folder at %s" % d)
  return d


def load_reference(shared, name, complexity):
  """../shared/reference/cpu_inference/hands_<name>_c<k>.json (Google's web build)."""
  with open(os.path.join(shared, "reference", "cpu_inference",
                         "hands_%s_c%d.json" % (name, complexity))) as f:
    return json.load(f)


# --- Face and selfie solutions: the CLI and Google's package as references ---

REFERENCE_INPUTS = ("reference", "inputs")  # the exact RGB pixels fed to Google (PNG)


@pytest.fixture(scope="session")
def reference_images(shared):
  """{name: RGB uint8 array} of ../shared/reference/inputs/*.png, by name."""
  folder = os.path.join(shared, *REFERENCE_INPUTS)
  names = sorted(n for n in os.listdir(folder) if n.endswith(".png"))
  if not names:
    pytest.skip("no images in %s" % folder)
  return {os.path.splitext(n)[0]: read_rgb(os.path.join(folder, n)) for n in names}


def models_env():
  """The environment the package resolved its models with (sluice/_models.py),
  so that a `sluice` subprocess uses the same model files."""
  import sluice  # noqa: F401  (sets SLUICE_MODELS_DIR / SLUICE_SHARED_DIR)
  return dict(os.environ)


@pytest.fixture(scope="session")
def sluice_cli():
  """The `sluice` binary of the build this package comes from
  (<build>/tools/sluice next to <build>/python/sluice), or $SLUICE_BIN."""
  import sluice
  path = os.environ.get("SLUICE_BIN") or os.path.join(
      os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(sluice.__file__)))),
      "tools", "sluice")
  if not os.access(path, os.X_OK):
    pytest.skip("no sluice binary at %s (build the `sluice` target)" % path)
  return path


def run_cli(cli, *args):
  """Runs `sluice ARGS...`; fails the test with its stderr when it fails."""
  proc = subprocess.run([cli] + [str(a) for a in args], env=models_env(), capture_output=True,
                        text=True, timeout=600)
  assert proc.returncode == 0, "sluice %s: %s" % (" ".join(map(str, args)), proc.stderr[-2000:])
  return proc


def read_jsonl(path):
  with open(path) as f:
    return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="session")
def google_python():
  """The python of the venv with Google's mediapipe==0.10.21
  (tests/hands/setup_mediapipe_venv.sh); skips when it cannot be set up (no PyPI)."""
  setup = os.path.join(REPO, "tests", "hands", "setup_mediapipe_venv.sh")
  proc = subprocess.run(["bash", setup], capture_output=True, text=True, timeout=900)
  lines = proc.stdout.strip().splitlines() or [""]
  skip = [line for line in lines if line.startswith("SKIP:")]
  if skip:
    pytest.skip("Google's mediapipe: " + skip[0])
  assert proc.returncode == 0 and os.access(lines[-1], os.X_OK), \
      "oracle venv setup failed: %s %s" % (proc.stdout[-1000:], proc.stderr[-1000:])
  return lines[-1]


@pytest.fixture(scope="session")
def google_oracle(shared, google_python, tmp_path_factory):
  """A folder of Google's mediapipe==0.10.21 outputs on the reference inputs
  (mediapipe_solutions_oracle.py, run once per session, with our models)."""
  out = tmp_path_factory.mktemp("google_oracle")
  models = models_env().get("SLUICE_MODELS_DIR") or os.path.join(shared, "models")
  run = subprocess.run([google_python, os.path.join(HERE, "mediapipe_solutions_oracle.py"),
                        "--input", os.path.join(shared, *REFERENCE_INPUTS), "--output", str(out),
                        "--models", models],
                       capture_output=True, text=True, timeout=900)
  assert run.returncode == 0, "oracle failed: %s" % run.stderr[-2000:]
  return str(out)


def error_without_models(tmp_path, module, constructor):
  """What `sluice.solutions.<module>.<constructor>` and then process() on a
  small image raise ("TypeName message"), in a subprocess whose model folders
  are empty: missing models must be a clear error, not a crash."""
  import sys
  empty = tmp_path / "no_models"
  empty.mkdir()
  code = ("import numpy as np\n"
          "from sluice.solutions import %s as m\n"
          "try:\n"
          "  m.%s.process(np.zeros((64, 64, 3), np.uint8))\n"
          "  print('no error')\n"
          "except Exception as e:\n"
          "  print(type(e).__name__, e)\n" % (module, constructor))
  env = dict(os.environ, SLUICE_MODELS_DIR=str(empty), SLUICE_SHARED_DIR=str(empty),
             PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
  proc = subprocess.run([sys.executable, "-c", code], cwd=str(empty), env=env,
                        capture_output=True, text=True, timeout=120)
  assert proc.returncode == 0, "crashed (%d): %s" % (proc.returncode, proc.stderr[-2000:])
  return proc.stdout.strip()


def moving_frames(image, n):
  """`image` sliding right a few pixels per frame: a small video clip."""
  return [np.ascontiguousarray(np.roll(image, 3 * i, axis=1)) for i in range(n)]
