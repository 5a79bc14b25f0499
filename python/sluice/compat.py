"""Drop-in for code written against `import mediapipe as mp`:

  import sluice.compat as mp
  with mp.solutions.hands.Hands(...) as hands: ...
  mp.solutions.drawing_utils.draw_landmarks(image, hand, mp.solutions.hands.HAND_CONNECTIONS)

mp.solutions has MediaPipe's hands, face_detection, face_mesh (with
face_mesh_connections), pose (with pose_connections), selfie_segmentation, drawing_utils and drawing_styles.

Framework names (mp.CalculatorGraph, mp.packet_creator, mp.Image, ...) are the
same objects as in `sluice`.
"""
from sluice import CalculatorGraph  # noqa: F401
from sluice import Image  # noqa: F401
from sluice import ImageFormat  # noqa: F401
from sluice import ImageFrame  # noqa: F401
from sluice import Packet  # noqa: F401
from sluice import Timestamp  # noqa: F401
from sluice import packet_creator  # noqa: F401
from sluice import packet_getter  # noqa: F401
from sluice import solutions  # noqa: F401
from sluice import __version__  # noqa: F401
