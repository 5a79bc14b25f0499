// Timestamp, Packet and the packet_creator / packet_getter functions for the
// plain types, lists of them, and the result protos (as serialized bytes: the
// Python side turns them into Python messages, python/sluice/_protos.py).
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "formats/classification.pb.h"
#include "formats/detection.pb.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "framework/packet.h"
#include "framework/timestamp.h"
#include "status_util.h"

namespace py = pybind11;

namespace sluice::python {
namespace {

// The proto types packets may carry, alone or as std::vector<T> (what
// MediaPipe's graphs output). One list: creators and getters come from it.
#define SLUICE_PY_PROTO_TYPES(X)                                                      \
  X(::mediapipe::Detection)                                                           \
  X(::mediapipe::DetectionList) X(::mediapipe::Landmark) X(::mediapipe::LandmarkList) \
  X(::mediapipe::NormalizedLandmark) X(::mediapipe::NormalizedLandmarkList)          \
  X(::mediapipe::Classification) X(::mediapipe::ClassificationList)                   \
  X(::mediapipe::Rect) X(::mediapipe::NormalizedRect) X(::mediapipe::LocationData)

struct ProtoType {
  std::function<Packet(const std::string&)> create;
  std::function<Packet(const std::vector<std::string>&)> create_vector;
};

template <typename T>
T ParseOrRaise(const std::string& bytes) {
  T msg;
  if (!msg.ParseFromString(bytes)) {
    throw py::value_error("cannot parse the bytes as " + T::descriptor()->full_name());
  }
  return msg;
}

const std::map<std::string, ProtoType>& ProtoTypes() {
  static const auto* types = [] {
    auto* t = new std::map<std::string, ProtoType>;
#define SLUICE_PY_ADD(T)                                                        \
  (*t)[T::descriptor()->full_name()] = ProtoType{                               \
      [](const std::string& b) { return MakePacket<T>(ParseOrRaise<T>(b)); },   \
      [](const std::vector<std::string>& bs) {                                  \
        std::vector<T> v;                                                       \
        v.reserve(bs.size());                                                   \
        for (const std::string& b : bs) v.push_back(ParseOrRaise<T>(b));        \
        return MakePacket<std::vector<T>>(std::move(v));                        \
      }};
    SLUICE_PY_PROTO_TYPES(SLUICE_PY_ADD)
#undef SLUICE_PY_ADD
    return t;
  }();
  return *types;
}

const ProtoType& FindProtoType(const std::string& name) {
  auto it = ProtoTypes().find(name);
  if (it == ProtoTypes().end()) {
    std::string known;
    for (const auto& [n, _] : ProtoTypes()) absl::StrAppend(&known, known.empty() ? "" : ", ", n);
    throw py::value_error(absl::StrCat("no packet type for proto message ", name,
                                       " (supported: ", known, ")"));
  }
  return it->second;
}

// (full_name, bytes) of a proto packet; (full_name, [bytes]) for a vector.
py::object ProtoOf(const Packet& p, bool want_list) {
#define SLUICE_PY_GET(T)                                                           \
  if (!want_list && p.ValidateAsType<T>().ok()) {                                  \
    return py::make_tuple(T::descriptor()->full_name(),                            \
                          py::bytes(p.Get<T>().SerializeAsString()));              \
  }                                                                                \
  if (want_list && p.ValidateAsType<std::vector<T>>().ok()) {                      \
    py::list items;                                                                \
    for (const T& m : p.Get<std::vector<T>>()) items.append(py::bytes(m.SerializeAsString())); \
    return py::make_tuple(T::descriptor()->full_name(), items);                    \
  }
  SLUICE_PY_PROTO_TYPES(SLUICE_PY_GET)
#undef SLUICE_PY_GET
  throw py::value_error(absl::StrCat("the packet holds ",
                                     p.IsEmpty() ? "nothing" : "\"" + p.DebugTypeName() + "\"",
                                     ", not ", want_list ? "a list of " : "a ",
                                     "proto message packet type"));
}

template <typename Int>
Packet CreateInteger(const py::int_& value, const char* type_name) {
  // Range-check in Python's arbitrary precision rather than wrap silently.
  py::object lo = py::int_(std::numeric_limits<Int>::min());
  py::object hi = py::int_(std::numeric_limits<Int>::max());
  if (value < lo || value > hi) {
    PyErr_SetString(PyExc_OverflowError,
                    absl::StrCat(py::repr(value).cast<std::string>(), " does not fit in ", type_name).c_str());
    throw py::error_already_set();
  }
  return MakePacket<Int>(value.cast<Int>());
}

// The first of T, Rest... that the packet holds, as a Python object.
template <typename T, typename... Rest>
bool CastFirstOf(const Packet& p, py::object* out) {
  if (p.ValidateAsType<T>().ok()) {
    *out = py::cast(p.Get<T>());
    return true;
  }
  if constexpr (sizeof...(Rest) > 0) {
    return CastFirstOf<Rest...>(p, out);
  } else {
    return false;
  }
}

template <typename... Ts>
py::object GetFirstOf(const Packet& p, const char* what) {
  py::object out;
  if (!CastFirstOf<Ts...>(p, &out)) {
    throw py::value_error(absl::StrCat("the packet holds ",
                                       p.IsEmpty() ? "nothing" : "\"" + p.DebugTypeName() + "\"",
                                       ", not ", what));
  }
  return out;
}

Timestamp ToTimestamp(const py::object& t) {
  if (py::isinstance<Timestamp>(t)) return t.cast<Timestamp>();
  return Timestamp(t.cast<int64_t>());
}

}  // namespace

void InitPacket(py::module_& m) {
  py::class_<Timestamp>(m, "Timestamp", "Microseconds, plus MediaPipe's special values.")
      .def(py::init<int64_t>(), py::arg("value"))
      .def_property_readonly("value", &Timestamp::Value)
      .def("microseconds", &Timestamp::Microseconds)
      .def("seconds", &Timestamp::Seconds)
      .def("is_special_value", &Timestamp::IsSpecialValue)
      .def("is_range_value", &Timestamp::IsRangeValue)
      .def_static("from_seconds", &Timestamp::FromSeconds)
      .def_property_readonly_static("UNSET", [](py::object) { return Timestamp::Unset(); })
      .def_property_readonly_static("UNSTARTED", [](py::object) { return Timestamp::Unstarted(); })
      .def_property_readonly_static("PRESTREAM", [](py::object) { return Timestamp::PreStream(); })
      .def_property_readonly_static("MIN", [](py::object) { return Timestamp::Min(); })
      .def_property_readonly_static("MAX", [](py::object) { return Timestamp::Max(); })
      .def_property_readonly_static("POSTSTREAM", [](py::object) { return Timestamp::PostStream(); })
      .def_property_readonly_static("DONE", [](py::object) { return Timestamp::Done(); })
      .def(py::self == py::self)
      .def(py::self != py::self)
      .def(py::self < py::self)
      .def(py::self <= py::self)
      .def(py::self > py::self)
      .def(py::self >= py::self)
      .def("__eq__", [](const Timestamp& a, int64_t b) { return a.Value() == b; })
      .def("__hash__", [](const Timestamp& t) { return std::hash<int64_t>()(t.Value()); })
      .def("__int__", &Timestamp::Value)
      .def("__repr__", [](const Timestamp& t) { return absl::StrCat("<sluice.Timestamp ", t.Value(), ">"); });
  py::implicitly_convertible<int, Timestamp>();

  py::class_<Packet>(m, "Packet", "An immutable, shared value with a timestamp.")
      .def(py::init<>())
      .def_property_readonly("timestamp", &Packet::Timestamp)
      .def("at", [](const Packet& p, const py::object& ts) { return p.At(ToTimestamp(ts)); },
           py::arg("timestamp"), "A copy sharing the payload, at `timestamp`.")
      .def("is_empty", &Packet::IsEmpty)
      .def_property_readonly("type_name", &Packet::DebugTypeName)
      .def("__repr__", [](const Packet& p) {
        return absl::StrCat("<sluice.Packet ", p.IsEmpty() ? "empty" : p.DebugTypeName(), " @",
                            p.Timestamp().Value(), ">");
      });

  py::module_ c = m.def_submodule("packet_creator", "Packets from Python values.");
  py::module_ g = m.def_submodule("packet_getter", "Python values from packets.");

  c.def("create_bool", [](bool v) { return MakePacket<bool>(v); }, py::arg("data"));
  c.def("create_int", [](const py::int_& v) { return CreateInteger<int>(v, "int"); }, py::arg("data"));
  c.def("create_int8", [](const py::int_& v) { return CreateInteger<int8_t>(v, "int8"); }, py::arg("data"));
  c.def("create_int16", [](const py::int_& v) { return CreateInteger<int16_t>(v, "int16"); }, py::arg("data"));
  c.def("create_int32", [](const py::int_& v) { return CreateInteger<int32_t>(v, "int32"); }, py::arg("data"));
  c.def("create_int64", [](const py::int_& v) { return CreateInteger<int64_t>(v, "int64"); }, py::arg("data"));
  c.def("create_uint8", [](const py::int_& v) { return CreateInteger<uint8_t>(v, "uint8"); }, py::arg("data"));
  c.def("create_uint16", [](const py::int_& v) { return CreateInteger<uint16_t>(v, "uint16"); }, py::arg("data"));
  c.def("create_uint32", [](const py::int_& v) { return CreateInteger<uint32_t>(v, "uint32"); }, py::arg("data"));
  c.def("create_uint64", [](const py::int_& v) { return CreateInteger<uint64_t>(v, "uint64"); }, py::arg("data"));
  c.def("create_float", [](float v) { return MakePacket<float>(v); }, py::arg("data"));
  c.def("create_double", [](double v) { return MakePacket<double>(v); }, py::arg("data"));
  c.def("create_string", [](const std::string& v) { return MakePacket<std::string>(v); }, py::arg("data"));
  c.def("create_string", [](const py::bytes& v) { return MakePacket<std::string>(std::string(v)); }, py::arg("data"));
  c.def("create_bytes", [](const py::bytes& v) { return MakePacket<std::string>(std::string(v)); }, py::arg("data"));
  c.def("create_int_vector", [](const std::vector<int>& v) { return MakePacket<std::vector<int>>(v); }, py::arg("data"));
  c.def("create_int64_vector", [](const std::vector<int64_t>& v) { return MakePacket<std::vector<int64_t>>(v); }, py::arg("data"));
  c.def("create_float_vector", [](const std::vector<float>& v) { return MakePacket<std::vector<float>>(v); }, py::arg("data"));
  c.def("create_double_vector", [](const std::vector<double>& v) { return MakePacket<std::vector<double>>(v); }, py::arg("data"));
  c.def("create_bool_vector", [](const std::vector<bool>& v) { return MakePacket<std::vector<bool>>(v); }, py::arg("data"));
  c.def("create_string_vector", [](const std::vector<std::string>& v) { return MakePacket<std::vector<std::string>>(v); }, py::arg("data"));
  c.def("_create_proto", [](const std::string& type, const py::bytes& b) {
    return FindProtoType(type).create(std::string(b));
  });
  c.def("_create_proto_vector", [](const std::string& type, const std::vector<py::bytes>& bs) {
    std::vector<std::string> v(bs.begin(), bs.end());
    return FindProtoType(type).create_vector(v);
  });
  c.def("_proto_types", [] {
    std::vector<std::string> names;
    for (const auto& [n, _] : ProtoTypes()) names.push_back(n);
    return names;
  });

  g.def("get_bool", [](const Packet& p) { return GetFirstOf<bool>(p, "a bool"); }, py::arg("packet"));
  g.def("get_int", [](const Packet& p) {
    return GetFirstOf<int, int64_t, int32_t, int16_t, int8_t, long long>(p, "a signed integer");
  }, py::arg("packet"));
  g.def("get_uint", [](const Packet& p) {
    return GetFirstOf<unsigned, uint64_t, uint16_t, uint8_t, unsigned long long>(p, "an unsigned integer");
  }, py::arg("packet"));
  g.def("get_float", [](const Packet& p) { return GetFirstOf<float, double>(p, "a float or double"); }, py::arg("packet"));
  g.def("get_str", [](const Packet& p) {
    const std::string& s = *ValueOrRaise(p.TryGet<std::string>());
    return py::str(s);
  }, py::arg("packet"));
  g.def("get_bytes", [](const Packet& p) { return py::bytes(*ValueOrRaise(p.TryGet<std::string>())); }, py::arg("packet"));
  g.def("get_int_list", [](const Packet& p) {
    return GetFirstOf<std::vector<int>, std::vector<int64_t>>(p, "a list of int");
  }, py::arg("packet"));
  g.def("get_float_list", [](const Packet& p) {
    return GetFirstOf<std::vector<float>, std::vector<double>>(p, "a list of float");
  }, py::arg("packet"));
  g.def("get_bool_list", [](const Packet& p) { return GetFirstOf<std::vector<bool>>(p, "a list of bool"); }, py::arg("packet"));
  g.def("get_str_list", [](const Packet& p) { return GetFirstOf<std::vector<std::string>>(p, "a list of str"); }, py::arg("packet"));
  g.def("_get_proto", [](const Packet& p) { return ProtoOf(p, false); });
  g.def("_get_proto_list", [](const Packet& p) { return ProtoOf(p, true); });

  InitImagePackets(c, g);
}

}  // namespace sluice::python
