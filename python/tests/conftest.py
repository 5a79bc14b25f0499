"""Shared fixtures: the shared test data folder and image loading."""
import json
import os

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
