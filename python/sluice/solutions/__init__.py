"""MediaPipe's legacy solutions API (mp.solutions), over Sluice's C++ solutions."""
from sluice.solutions import drawing_styles
from sluice.solutions import drawing_utils
from sluice.solutions import face_detection
from sluice.solutions import face_mesh
from sluice.solutions import face_mesh_connections
from sluice.solutions import hands
from sluice.solutions import hands_connections
from sluice.solutions import pose
from sluice.solutions import pose_connections
from sluice.solutions import selfie_segmentation

__all__ = ["drawing_styles", "drawing_utils", "face_detection", "face_mesh",
           "face_mesh_connections", "hands", "hands_connections", "pose", "pose_connections",
           "selfie_segmentation"]
