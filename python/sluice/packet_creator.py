"""Packets from Python values (MediaPipe's packet_creator)."""
from sluice._sluice import packet_creator as _c

create_bool = _c.create_bool
create_int = _c.create_int
create_int8 = _c.create_int8
create_int16 = _c.create_int16
create_int32 = _c.create_int32
create_int64 = _c.create_int64
create_uint8 = _c.create_uint8
create_uint16 = _c.create_uint16
create_uint32 = _c.create_uint32
create_uint64 = _c.create_uint64
create_float = _c.create_float
create_double = _c.create_double
create_string = _c.create_string
create_bytes = _c.create_bytes
create_int_vector = _c.create_int_vector
create_int64_vector = _c.create_int64_vector
create_float_vector = _c.create_float_vector
create_double_vector = _c.create_double_vector
create_bool_vector = _c.create_bool_vector
create_string_vector = _c.create_string_vector
create_image_frame = _c.create_image_frame
create_image = _c.create_image


def create_proto(proto_message):
  """A packet holding the C++ message of the same type (e.g. mediapipe.Detection)."""
  return _c._create_proto(proto_message.DESCRIPTOR.full_name,
                          proto_message.SerializeToString())


def create_proto_vector(proto_messages, message_type=None):
  """A packet holding std::vector<T> of the messages (all of one type T).

  message_type (a message class) is needed only when the list is empty.
  """
  messages = list(proto_messages)
  if message_type is None:
    if not messages:
      raise ValueError("create_proto_vector: an empty list needs message_type")
    message_type = type(messages[0])
  name = message_type.DESCRIPTOR.full_name
  for m in messages:
    if m.DESCRIPTOR.full_name != name:
      raise ValueError("create_proto_vector: %s in a list of %s" % (m.DESCRIPTOR.full_name, name))
  return _c._create_proto_vector(name, [m.SerializeToString() for m in messages])
