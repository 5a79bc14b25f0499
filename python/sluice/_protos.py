"""Python messages for the proto packets the C++ side hands over as bytes."""
from sluice.formats import classification_pb2
from sluice.formats import detection_pb2
from sluice.formats import landmark_pb2
from sluice.formats import location_data_pb2
from sluice.formats import rect_pb2

_MODULES = (classification_pb2, detection_pb2, landmark_pb2, location_data_pb2, rect_pb2)
_CLASSES = {}
for _module in _MODULES:
  for _name in _module.DESCRIPTOR.message_types_by_name:
    _cls = getattr(_module, _name)
    _CLASSES[_cls.DESCRIPTOR.full_name] = _cls


def message_class(full_name):
  """The Python message class of `full_name` (e.g. "mediapipe.LandmarkList")."""
  try:
    return _CLASSES[full_name]
  except KeyError:
    raise ValueError("no Python message class for %s" % full_name) from None


def parse(full_name, data):
  msg = message_class(full_name)()
  msg.ParseFromString(data)
  return msg
