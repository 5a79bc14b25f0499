// The few JSON pieces the `sluice <solution>` commands write into their JSON
// Lines files (--landmarks): numbers, strings and landmark lists.
#ifndef SLUICE_TOOLS_JSON_TEXT_H_
#define SLUICE_TOOLS_JSON_TEXT_H_

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::cli {

// A JSON number: 7 significant digits (what a float carries), "null" for
// NaN and infinities, which JSON cannot hold.
inline std::string Num(double v) { return std::isfinite(v) ? absl::StrFormat("%.7g", v) : "null"; }

// A JSON string literal: quotes and backslashes escaped, control characters as \u00XX.
inline std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += absl::StrFormat("\\u%04x", c);
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// A (Normalized)LandmarkList as [[x, y, z], ...].
template <typename List>
std::string LandmarkPoints(const List& list) {
  std::string out = "[";
  for (int i = 0; i < list.landmark_size(); ++i) {
    const auto& p = list.landmark(i);
    absl::StrAppend(&out, i ? ", " : "", "[", Num(p.x()), ", ", Num(p.y()), ", ", Num(p.z()), "]");
  }
  return out + "]";
}

}  // namespace sluice::cli

#endif  // SLUICE_TOOLS_JSON_TEXT_H_
