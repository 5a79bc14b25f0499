#!/usr/bin/env python3
"""Checks compare_faces.py on synthetic outputs (python3 only)."""
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_faces  # noqa: E402


def face(x, y, w, h, dx=0.0, score=0.9):
  kps = [[x + w * (0.3 + 0.08 * k) + dx, y + h * 0.4] for k in range(6)]
  return {"box": [x, y, w, h], "score": score, "keypoints": kps}


def frame(n, faces, width=400, height=200):
  return {"frame": n, "timestamp_us": n * 33333, "width": width, "height": height, "faces": faces}


class CompareFacesTest(unittest.TestCase):

  def run_compare(self, a, b, *extra):
    with tempfile.TemporaryDirectory() as d:
      paths = []
      for name, frames in (("a", a), ("b", b)):
        p = os.path.join(d, name + ".jsonl")
        with open(p, "w") as f:
          f.write("".join(json.dumps(x) + "\n" for x in frames))
        paths.append(p)
      out = io.StringIO()
      with redirect_stdout(out):
        rc = compare_faces.main(paths + list(extra))
      return rc, out.getvalue()

  def test_iou(self):
    self.assertAlmostEqual(compare_faces.iou([0, 0, 0.5, 0.5], [0, 0, 0.5, 0.5], 100, 100), 1.0)
    self.assertAlmostEqual(compare_faces.iou([0, 0, 0.5, 0.5], [0.25, 0, 0.5, 0.5], 100, 100), 1 / 3)
    self.assertEqual(compare_faces.iou([0, 0, 0.1, 0.1], [0.5, 0.5, 0.1, 0.1], 100, 100), 0.0)

  def test_keypoint_distance_is_relative_to_the_longer_side(self):
    a = [[0.5, 0.5]] * 6
    b = [[0.51, 0.5]] * 6  # 4 px on a 400-wide image = 1 %
    self.assertAlmostEqual(compare_faces.keypoint_mean(a, b, 400, 200), 1.0)

  def test_identical_passes_and_order_does_not_matter(self):
    a = [frame(0, [face(0.1, 0.1, 0.2, 0.3), face(0.6, 0.2, 0.2, 0.3)]), frame(1, [])]
    b = [frame(0, [face(0.6, 0.2, 0.2, 0.3), face(0.1, 0.1, 0.2, 0.3)]), frame(1, [])]
    rc, out = self.run_compare(a, b)
    self.assertEqual(rc, 0, out)
    self.assertIn("faces 2, min iou 1.000000", out)

  def test_count_mismatch_fails(self):
    rc, out = self.run_compare([frame(0, [face(0.1, 0.1, 0.2, 0.3)])], [frame(0, [])])
    self.assertEqual(rc, 1)
    self.assertIn("1 faces vs 0", out)

  def test_keypoints_off_by_more_than_the_bound_fail(self):
    a = [frame(0, [face(0.1, 0.1, 0.2, 0.3)])]
    near = [frame(0, [face(0.1, 0.1, 0.2, 0.3, dx=0.004)])]  # 0.4 %
    far = [frame(0, [face(0.1, 0.1, 0.2, 0.3, dx=0.008)])]   # 0.8 %
    self.assertEqual(self.run_compare(a, near)[0], 0)
    rc, out = self.run_compare(a, far)
    self.assertEqual(rc, 1)
    self.assertIn("keypoints 0.800", out)

  def test_box_off_fails(self):
    a = [frame(0, [face(0.1, 0.1, 0.2, 0.3)])]
    b = [frame(0, [face(0.13, 0.1, 0.2, 0.3)])]  # iou 0.739
    rc, out = self.run_compare(a, b, "--tolerances", "0.9,100")
    self.assertEqual(rc, 1)
    self.assertIn("iou 0.7391", out)


if __name__ == "__main__":
  unittest.main()
