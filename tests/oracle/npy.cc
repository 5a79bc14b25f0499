#include "tests/oracle/npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace sluice::oracle {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

// Returns the text after `'key':` in the header dict, or "" if absent.
std::string DictValue(const std::string& header, const std::string& key) {
  size_t p = header.find("'" + key + "'");
  if (p == std::string::npos) return "";
  p = header.find(':', p);
  if (p == std::string::npos) return "";
  return header.substr(p + 1);
}

}  // namespace

absl::StatusOr<NpyArray> ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a float32 .npy file: ", why));
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) return bad("bad magic");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, offset;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return bad("truncated header");
    uint32_t len;
    std::memcpy(&len, bytes.data() + 8, 4);
    header_len = len;
    offset = 12;
  } else {
    return bad(absl::StrCat("unsupported version ", major));
  }
  if (offset + header_len > bytes.size()) return bad("truncated header");
  const std::string header = bytes.substr(offset, header_len);
  offset += header_len;

  const std::string descr = DictValue(header, "descr");
  if (descr.find("'<f4'") == std::string::npos) return bad("dtype is not '<f4'");
  if (DictValue(header, "fortran_order").find("False") == std::string::npos) {
    return bad("fortran_order arrays are not supported");
  }
  std::string shape_text = DictValue(header, "shape");
  const size_t open = shape_text.find('('), close = shape_text.find(')');
  if (open == std::string::npos || close == std::string::npos || close < open) {
    return bad("no shape tuple");
  }
  NpyArray a;
  int64_t count = 1;
  for (absl::string_view part :
       absl::StrSplit(shape_text.substr(open + 1, close - open - 1), ',', absl::SkipWhitespace())) {
    int64_t d;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &d) || d < 0 || d > (1 << 30)) {
      return bad(absl::StrCat("bad dimension '", part, "'"));
    }
    a.shape.push_back(d);
    count *= d;
    if (count > (int64_t{1} << 31)) return bad("array too large");
  }
  if (bytes.size() - offset != static_cast<size_t>(count) * sizeof(float)) {
    return bad(absl::StrCat("expected ", count * 4, " data bytes, found ", bytes.size() - offset));
  }
  a.data.resize(count);
  if (count > 0) std::memcpy(a.data.data(), bytes.data() + offset, count * sizeof(float));
  return a;
}

absl::Status WriteNpy(const std::string& path, const std::vector<int64_t>& shape,
                      const float* data) {
  std::string dims;
  int64_t count = 1;
  for (int64_t d : shape) {
    absl::StrAppend(&dims, d, ",");
    count *= d;
  }
  if (shape.size() > 1) dims.pop_back();  // (3,) keeps its comma, (1,2) does not
  std::string header =
      absl::StrCat("{'descr': '<f4', 'fortran_order': False, 'shape': (", dims, "), }");
  // Pad so that the data starts on a 64-byte boundary, ending with '\n'.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary);
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  const uint16_t len = static_cast<uint16_t>(header.size());
  out.write(kMagic, 6);
  out.put(1);
  out.put(0);
  out.put(static_cast<char>(len & 0xff));
  out.put(static_cast<char>(len >> 8));
  out << header;
  out.write(reinterpret_cast<const char*>(data), count * sizeof(float));
  if (!out) return absl::DataLossError(absl::StrCat("short write to ", path));
  return absl::OkStatus();
}

}  // namespace sluice::oracle
