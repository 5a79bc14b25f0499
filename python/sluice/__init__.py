"""Sluice: MediaPipe-compatible graphs and solutions over a C++17 core.

  import sluice
  with sluice.solutions.hands.Hands(static_image_mode=True) as hands:
    result = hands.process(rgb)           # numpy uint8, H x W x 3
    for hand in result.multi_hand_landmarks or []:
      print(hand.landmark[8].x)

The framework API has the shape of the C++ one: `CalculatorGraph`, `Packet`,
`packet_creator`, `packet_getter`, `Image`, `ImageFrame`.
Code written for `import mediapipe as mp` can use `import sluice.compat as mp`.
"""
from sluice import _models

_models.configure()

# The extension goes first: its C++ protos then back the Python messages.
from sluice._sluice import CalculatorGraph  # noqa: E402
from sluice._sluice import Image  # noqa: E402
from sluice._sluice import ImageFormat  # noqa: E402
from sluice._sluice import ImageFrame  # noqa: E402
from sluice._sluice import OutputStreamPoller  # noqa: E402
from sluice._sluice import Packet  # noqa: E402
from sluice._sluice import Timestamp  # noqa: E402
from sluice import packet_creator  # noqa: E402
from sluice import packet_getter  # noqa: E402
from sluice import solutions  # noqa: E402

__version__ = "0.1.0"

__all__ = ["CalculatorGraph", "Image", "ImageFormat", "ImageFrame", "OutputStreamPoller",
           "Packet", "Timestamp", "packet_creator", "packet_getter", "solutions"]
