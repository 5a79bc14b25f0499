#include "framework/port_map.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace sluice {
namespace {

bool IsTag(const std::string& s) {
  if (s.empty() || !(std::isupper(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool IsName(const std::string& s) {
  if (s.empty() || !(std::islower(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool ParseIndex(const std::string& s, int* out) {
  if (s.empty() || (s.size() > 1 && s[0] == '0') || s.size() > 6) return false;
  if (!std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  return absl::SimpleAtoi(s, out);
}

}  // namespace

absl::Status ParsePortSpec(const std::string& spec, std::string* tag, int* index,
                           std::string* name) {
  std::vector<std::string> parts = absl::StrSplit(spec, ':');
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError("Invalid stream/side packet spec \"" + spec + "\": " + why +
                                      " (expected name, TAG:name or TAG:index:name)");
  };
  if (parts.size() == 1) {
    tag->clear();
    *index = -1;
    *name = parts[0];
  } else if (parts.size() == 2) {
    *tag = parts[0];
    *index = 0;
    *name = parts[1];
  } else if (parts.size() == 3) {
    *tag = parts[0];
    *name = parts[2];
    if (!ParseIndex(parts[1], index)) return bad("bad index \"" + parts[1] + "\"");
  } else {
    return bad("too many ':'");
  }
  if (parts.size() > 1 && !IsTag(*tag)) return bad("bad tag \"" + *tag + "\"");
  if (!IsName(*name)) return bad("bad name \"" + *name + "\"");
  return absl::OkStatus();
}

absl::Status ParsePortTagIndex(const std::string& spec, std::string* tag, int* index) {
  std::vector<std::string> parts = absl::StrSplit(spec, ':');
  *index = 0;
  tag->clear();
  if (spec.empty()) return absl::OkStatus();
  if (parts.size() > 2 || (!parts[0].empty() && !IsTag(parts[0])) ||
      (parts.size() == 2 && !ParseIndex(parts[1], index)) ||
      (parts.size() == 1 && parts[0].empty())) {
    return absl::InvalidArgumentError("Invalid tag_index \"" + spec +
                                      "\" (expected TAG, TAG:index or :index)");
  }
  *tag = parts[0];
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const PortMap>> PortMap::Create(
    const std::vector<std::string>& specs) {
  std::vector<Entry> entries;
  int untagged = 0;
  for (const std::string& s : specs) {
    Entry e;
    auto st = ParsePortSpec(s, &e.tag, &e.index, &e.name);
    if (!st.ok()) return st;
    if (e.index < 0) e.index = untagged++;
    entries.push_back(std::move(e));
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.tag != b.tag ? a.tag < b.tag : a.index < b.index;
  });
  for (size_t i = 0; i < entries.size(); ++i) {
    bool first = i == 0 || entries[i].tag != entries[i - 1].tag;
    int expected = first ? 0 : entries[i - 1].index + 1;
    if (entries[i].index != expected) {
      std::string t = entries[i].tag.empty() ? "(untagged)" : entries[i].tag;
      if (!first && entries[i].index == entries[i - 1].index) {
        return absl::InvalidArgumentError("Tag \"" + t + "\" index " +
                                          std::to_string(entries[i].index) +
                                          " already had a name (\"" + entries[i - 1].name +
                                          "\"), cannot also be \"" + entries[i].name + "\"");
      }
      return absl::InvalidArgumentError("Tag \"" + t + "\" indices must be 0..n-1 without gaps; " +
                                        "index " + std::to_string(expected) + " is missing");
    }
  }
  return FromEntries(std::move(entries));
}

std::shared_ptr<const PortMap> PortMap::FromEntries(std::vector<Entry> entries) {
  auto m = std::make_shared<PortMap>();
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.tag != b.tag ? a.tag < b.tag : a.index < b.index;
  });
  m->entries_ = std::move(entries);
  for (int i = 0; i < m->NumEntries(); ++i) {
    auto& r = m->tags_[m->entries_[i].tag];
    if (r.count == 0) r.first_id = i;
    ++r.count;
  }
  return m;
}

int PortMap::NumEntries(const std::string& tag) const {
  auto it = tags_.find(tag);
  return it == tags_.end() ? 0 : it->second.count;
}

int PortMap::GetId(const std::string& tag, int index) const {
  auto it = tags_.find(tag);
  if (it == tags_.end() || index < 0 || index >= it->second.count) return -1;
  return it->second.first_id + index;
}

std::vector<std::string> PortMap::Tags() const {
  std::vector<std::string> out;
  for (const auto& kv : tags_) out.push_back(kv.first);
  return out;
}

std::string PortMap::TagIndexString(int id) const {
  const Entry& e = entries_[id];
  return e.tag + ":" + std::to_string(e.index);
}

}  // namespace sluice
