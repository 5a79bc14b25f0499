#!/usr/bin/env python3
"""Checks of compare_face_mesh.py (python3 only)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_face_mesh as cmp  # noqa: E402


def frame(faces, w=100, h=50):
  return {"frame": 0, "timestamp_us": 0, "width": w, "height": h,
          "faces": [{"landmarks": f} for f in faces]}


MESH = [[0.5, 0.5, 0.0]] * 468


class CompareTest(unittest.TestCase):
  def test_identical_pass(self):
    _, problems, s = cmp.compare([frame([MESH])], [frame([MESH])], 0.5)
    self.assertEqual(problems, [])
    self.assertEqual(s["max"], 0.0)

  def test_distance_in_percent_of_the_longer_side(self):
    moved = [[0.504, 0.5, 0.0]] * 468  # 0.4 px at width 100: 0.4 %
    _, problems, s = cmp.compare([frame([moved])], [frame([MESH])], 0.5)
    self.assertEqual(problems, [])
    self.assertAlmostEqual(s["max"], 0.4, places=4)
    _, problems, _ = cmp.compare([frame([moved])], [frame([MESH])], 0.3)
    self.assertEqual(len(problems), 1)

  def test_face_count_and_landmark_count_mismatch_fail(self):
    _, problems, _ = cmp.compare([frame([])], [frame([MESH])], 0.5)
    self.assertIn("faces", problems[0])
    _, problems, _ = cmp.compare([frame([MESH])],
                                 [frame([MESH + [[0.5, 0.5, 0]] * 10])], 0.5)
    self.assertIn("landmarks", problems[0])

  def test_faces_paired_whatever_their_order(self):
    other = [[0.1, 0.1, 0.0]] * 468
    _, problems, s = cmp.compare([frame([MESH, other])], [frame([other, MESH])], 0.5)
    self.assertEqual(problems, [])
    self.assertEqual(s["faces"], 2)


if __name__ == "__main__":
  unittest.main()
