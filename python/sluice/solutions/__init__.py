"""MediaPipe's legacy solutions API (mp.solutions), over Sluice's C++ solutions."""
from sluice.solutions import drawing_styles
from sluice.solutions import drawing_utils
from sluice.solutions import hands
from sluice.solutions import hands_connections

__all__ = ["drawing_styles", "drawing_utils", "hands", "hands_connections"]
