"""Python values from packets (MediaPipe's packet_getter)."""
from sluice import _protos
from sluice._sluice import packet_getter as _g

get_bool = _g.get_bool
get_int = _g.get_int
get_uint = _g.get_uint
get_float = _g.get_float
get_str = _g.get_str
get_bytes = _g.get_bytes
get_int_list = _g.get_int_list
get_float_list = _g.get_float_list
get_bool_list = _g.get_bool_list
get_str_list = _g.get_str_list
get_image_frame = _g.get_image_frame
get_image = _g.get_image
get_numpy = _g.get_numpy


def get_proto(packet):
  """The packet's proto message (a copy, as a Python message)."""
  name, data = _g._get_proto(packet)
  return _protos.parse(name, data)


def get_proto_list(packet):
  """The packet's std::vector of proto messages, as a list of Python messages."""
  name, items = _g._get_proto_list(packet)
  return [_protos.parse(name, data) for data in items]
