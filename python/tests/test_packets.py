"""packet_creator / packet_getter round trips, type errors, numpy zero-copy."""
import gc

import numpy as np
import pytest

import sluice
from sluice import packet_creator as pc
from sluice import packet_getter as pg
from sluice.formats import detection_pb2
from sluice.formats import landmark_pb2


@pytest.mark.parametrize("create, get, value", [
    (pc.create_bool, pg.get_bool, True),
    (pc.create_int, pg.get_int, -42),
    (pc.create_int8, pg.get_int, -128),
    (pc.create_int16, pg.get_int, 32767),
    (pc.create_int32, pg.get_int, -(2**31)),
    (pc.create_int64, pg.get_int, 2**62),
    (pc.create_uint8, pg.get_uint, 255),
    (pc.create_uint16, pg.get_uint, 65535),
    (pc.create_uint32, pg.get_uint, 2**32 - 1),
    (pc.create_uint64, pg.get_uint, 2**64 - 1),
    (pc.create_double, pg.get_float, 0.1),
    (pc.create_string, pg.get_str, "héllo"),
    (pc.create_bytes, pg.get_bytes, b"\x00\xffraw"),
    (pc.create_int_vector, pg.get_int_list, [1, -2, 3]),
    (pc.create_int64_vector, pg.get_int_list, [2**40, -1]),
    (pc.create_float_vector, pg.get_float_list, [0.5, -1.25]),
    (pc.create_double_vector, pg.get_float_list, [0.1, 0.2]),
    (pc.create_bool_vector, pg.get_bool_list, [True, False, True]),
    (pc.create_string_vector, pg.get_str_list, ["a", "", "c"]),
])
def test_round_trip(create, get, value):
  p = create(value)
  assert get(p) == value
  assert get(p.at(7)) == value


def test_float_is_single_precision():
  assert pg.get_float(pc.create_float(0.1)) == pytest.approx(0.1, rel=1e-7)
  assert pg.get_float(pc.create_float(0.1)) != 0.1


def test_string_packet_from_bytes():
  assert pg.get_bytes(pc.create_string(b"abc")) == b"abc"


@pytest.mark.parametrize("create, value", [
    (pc.create_int, 2**31), (pc.create_int8, 128), (pc.create_uint8, -1),
    (pc.create_uint64, 2**64), (pc.create_int64, -(2**63) - 1)])
def test_integer_overflow_raises(create, value):
  with pytest.raises(OverflowError, match="does not fit"):
    create(value)


def test_wrong_type_names_both_types():
  p = pc.create_string("x")
  with pytest.raises(ValueError, match=r"std::string.*not a signed integer|holds"):
    pg.get_int(p)
  with pytest.raises(ValueError, match="int"):
    pg.get_str(pc.create_int(1))
  with pytest.raises(ValueError, match="nothing"):
    pg.get_bool(sluice.Packet())


def test_timestamps():
  p = pc.create_int(1)
  assert p.timestamp == sluice.Timestamp.UNSET
  q = p.at(1000)
  assert q.timestamp == 1000 and q.timestamp.value == 1000
  assert p.timestamp == sluice.Timestamp.UNSET  # at() copies
  assert q.at(sluice.Timestamp.PRESTREAM).timestamp == sluice.Timestamp.PRESTREAM
  assert sluice.Timestamp(5) < sluice.Timestamp(6)
  assert sluice.Timestamp.from_seconds(1.5).microseconds() == 1500000


def test_proto_round_trip():
  lms = landmark_pb2.NormalizedLandmarkList()
  for i in range(21):
    lms.landmark.add(x=i / 21, y=0.5, z=-0.01 * i)
  p = pc.create_proto(lms)
  assert "NormalizedLandmarkList" in p.type_name
  assert pg.get_proto(p) == lms
  det = detection_pb2.Detection(label=["hand"], score=[0.9])
  lst = pg.get_proto_list(pc.create_proto_vector([det, det]))
  assert lst == [det, det]
  assert pg.get_proto_list(pc.create_proto_vector([], detection_pb2.Detection)) == []
  with pytest.raises(ValueError, match="not a list of"):
    pg.get_proto_list(p)
  with pytest.raises(ValueError, match="not a proto"):
    pg.get_proto(pc.create_int(3))


def test_unsupported_proto_type_is_named():
  from google.protobuf import descriptor_pb2
  with pytest.raises(ValueError, match="google.protobuf.FileDescriptorProto"):
    pc.create_proto(descriptor_pb2.FileDescriptorProto())


@pytest.mark.parametrize("fmt, shape, dtype", [
    (sluice.ImageFormat.SRGB, (5, 7, 3), np.uint8),
    (sluice.ImageFormat.SRGBA, (5, 7, 4), np.uint8),
    (sluice.ImageFormat.GRAY8, (5, 7), np.uint8),
    (sluice.ImageFormat.GRAY16, (5, 7), np.uint16),
    (sluice.ImageFormat.VEC32F1, (5, 7), np.float32),
    (sluice.ImageFormat.VEC32F2, (5, 7, 2), np.float32),
])
def test_image_frame_round_trip(fmt, shape, dtype):
  data = (np.arange(np.prod(shape)) % 251).astype(dtype).reshape(shape)
  p = pc.create_image_frame(data, image_format=fmt)
  frame = pg.get_image_frame(p)
  assert (frame.width, frame.height, frame.image_format) == (7, 5, fmt)
  np.testing.assert_array_equal(frame.numpy_view(), data)
  image = pg.get_image(pc.create_image(data, image_format=fmt))
  np.testing.assert_array_equal(image.numpy_view(), data)


def test_creator_copies_and_getter_view_is_zero_copy():
  data = np.full((4, 6, 3), 9, np.uint8)
  p = pc.create_image_frame(data, image_format=sluice.ImageFormat.SRGB)
  data[:] = 0  # the packet holds its own copy
  a = pg.get_numpy(p)
  b = pg.get_image_frame(p).numpy_view()
  assert (a == 9).all()
  assert np.shares_memory(a, b)  # both view the packet's pixels
  assert not a.flags.writeable
  with pytest.raises(ValueError):
    a[0, 0, 0] = 1
  del p, b
  gc.collect()
  assert (a == 9).all()  # the view keeps the payload alive


def test_image_packet_shares_the_image():
  image = sluice.Image(image_format=sluice.ImageFormat.SRGB, data=np.ones((3, 3, 3), np.uint8))
  p = pc.create_image(image)
  assert np.shares_memory(pg.get_image(p).numpy_view(), image.numpy_view())
  assert np.shares_memory(pg.get_numpy(p), image.numpy_view())


def test_strided_input_is_copied_correctly():
  big = np.arange(10 * 12 * 3, dtype=np.uint8).reshape(10, 12, 3)
  view = big[::2, ::3]
  p = pc.create_image_frame(view, image_format=sluice.ImageFormat.SRGB)
  np.testing.assert_array_equal(pg.get_numpy(p), view)


@pytest.mark.parametrize("data, fmt", [
    (np.zeros((4, 4, 3), np.float32), sluice.ImageFormat.SRGB),
    (np.zeros((4, 4, 4), np.uint8), sluice.ImageFormat.SRGB),
    (np.zeros((4, 4), np.uint8), sluice.ImageFormat.SRGBA),
    (np.zeros((0, 4, 3), np.uint8), sluice.ImageFormat.SRGB),
])
def test_bad_image_data_names_the_expected_layout(data, fmt):
  with pytest.raises(ValueError, match=r"expected a numpy .* array of shape \(height, width"):
    pc.create_image_frame(data, image_format=fmt)


def test_get_image_frame_of_wrong_type():
  with pytest.raises(ValueError, match="ImageFrame"):
    pg.get_image_frame(pc.create_int(1))
