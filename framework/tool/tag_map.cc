#include "framework/tool/tag_map.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sluice {
namespace {

// MediaPipe's upper bound on an explicit index.
constexpr int kMaxIndex = 10000;

bool IsLowerOrUnderscore(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }
bool IsUpperOrUnderscore(char c) { return (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsValidIndex(absl::string_view s, int* index) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), IsDigit)) return false;
  if (s.size() > 1 && s[0] == '0') return false;  // no leading zeros
  if (s.size() > 5) return false;
  int value = 0;
  if (!absl::SimpleAtoi(s, &value) || value > kMaxIndex) return false;
  *index = value;
  return true;
}

absl::Status SpecError(absl::string_view spec) {
  return absl::InvalidArgumentError(absl::StrCat(
      "TAG:index:name is invalid, \"", spec,
      "\" does not match [A-Z_][A-Z0-9_]*:((0|[1-9][0-9]*):)?[a-z_][a-z0-9_]* "
      "(examples: \"TAG:name\", \"VIDEO:2:name_b\", \"longer_name\")"));
}

}  // namespace

bool IsValidStreamName(absl::string_view name) {
  if (name.empty() || !IsLowerOrUnderscore(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return IsLowerOrUnderscore(c) || IsDigit(c); });
}

bool IsValidTag(absl::string_view tag) {
  if (tag.empty() || !IsUpperOrUnderscore(tag[0])) return false;
  return std::all_of(tag.begin(), tag.end(),
                     [](char c) { return IsUpperOrUnderscore(c) || IsDigit(c); });
}

absl::StatusOr<TagIndexName> ParseTagIndexName(absl::string_view spec) {
  std::vector<absl::string_view> parts = absl::StrSplit(spec, ':');
  TagIndexName result;
  if (parts.size() == 1) {
    if (!IsValidStreamName(parts[0])) return SpecError(spec);
    result.index = -1;
    result.name = std::string(parts[0]);
    return result;
  }
  if (parts.size() > 3 || !IsValidTag(parts[0]) ||
      !IsValidStreamName(parts.back())) {
    return SpecError(spec);
  }
  if (parts.size() == 3 && !IsValidIndex(parts[1], &result.index)) {
    return SpecError(spec);
  }
  result.tag = std::string(parts[0]);
  result.name = std::string(parts.back());
  return result;
}

absl::StatusOr<TagIndex> ParseTagIndex(absl::string_view tag_index) {
  std::vector<absl::string_view> parts = absl::StrSplit(tag_index, ':');
  TagIndex result;
  bool ok = parts.size() <= 2 && (parts[0].empty() || IsValidTag(parts[0]));
  if (ok && parts.size() == 2) ok = IsValidIndex(parts[1], &result.index);
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TAG:index is invalid, \"", tag_index,
        "\" does not match ([A-Z_][A-Z0-9_]*)?(:(0|[1-9][0-9]*))? "
        "(examples: \"TAG\", \"VIDEO:2\", \":1\")"));
  }
  result.tag = std::string(parts[0]);
  return result;
}

absl::StatusOr<std::shared_ptr<const TagMap>> TagMap::Create(
    const google::protobuf::RepeatedPtrField<std::string>& specs) {
  return CreateFrom(std::vector<absl::string_view>(specs.begin(), specs.end()));
}

absl::StatusOr<std::shared_ptr<const TagMap>> TagMap::Create(
    const std::vector<std::string>& specs) {
  return CreateFrom(std::vector<absl::string_view>(specs.begin(), specs.end()));
}

absl::StatusOr<std::shared_ptr<const TagMap>> TagMap::CreateFrom(
    const std::vector<absl::string_view>& specs) {
  // tag -> index -> name (empty = unassigned slot).
  std::map<std::string, std::vector<std::string>> by_tag;
  int untagged = 0;
  for (absl::string_view spec : specs) {
    TagIndexName parsed;
    {
      auto p = ParseTagIndexName(spec);
      if (!p.ok()) return p.status();
      parsed = *std::move(p);
    }
    if (parsed.index < 0) parsed.index = untagged++;
    std::vector<std::string>& names = by_tag[parsed.tag];
    if (static_cast<int>(names.size()) <= parsed.index) {
      names.resize(parsed.index + 1);
    }
    std::string& slot = names[parsed.index];
    if (!slot.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tag \"", parsed.tag, "\" index ", parsed.index,
          " already had a name \"", slot, "\" but is being reassigned a name \"",
          parsed.name, "\" (\"TAG:name\" always means index 0; use "
          "\"TAG:0:a\", \"TAG:1:b\" for several streams of one tag)"));
    }
    slot = parsed.name;
  }
  auto map = std::shared_ptr<TagMap>(new TagMap());
  for (const auto& [tag, names] : by_tag) {
    TagRange range{map->NumEntries(), static_cast<int>(names.size())};
    for (int i = 0; i < range.count; ++i) {
      if (names[i].empty()) {
        std::string listing;
        for (int j = 0; j < range.count; ++j) {
          absl::StrAppend(&listing, " index ", j, ": ",
                          names[j].empty() ? "<missing>" : "\"" + names[j] + "\"",
                          ";");
        }
        return absl::InvalidArgumentError(absl::StrCat(
            "not all indexes of tag \"", tag, "\" were assigned names (indexes "
            "must be exactly 0..n-1):", listing));
      }
      map->entries_.push_back(TagIndexName{tag, i, names[i]});
    }
    map->tags_.emplace(tag, range);
  }
  return std::shared_ptr<const TagMap>(std::move(map));
}

int TagMap::NumEntries(absl::string_view tag) const {
  auto it = tags_.find(tag);
  return it == tags_.end() ? 0 : it->second.count;
}

bool TagMap::HasTag(absl::string_view tag) const {
  return tags_.find(tag) != tags_.end();
}

std::vector<std::string> TagMap::Tags() const {
  std::vector<std::string> tags;
  for (const auto& entry : tags_) tags.push_back(entry.first);
  return tags;
}

int TagMap::BeginId(absl::string_view tag) const {
  auto it = tags_.find(tag);
  return it == tags_.end() ? -1 : it->second.begin;
}

int TagMap::GetId(absl::string_view tag, int index) const {
  auto it = tags_.find(tag);
  if (it == tags_.end() || index < 0 || index >= it->second.count) return -1;
  return it->second.begin + index;
}

std::string TagMap::CanonicalSpec(int id) const {
  const TagIndexName& e = entries_[id];
  if (e.tag.empty()) return e.name;
  if (NumEntries(e.tag) == 1) return absl::StrCat(e.tag, ":", e.name);
  return absl::StrCat(e.tag, ":", e.index, ":", e.name);
}

std::vector<std::string> TagMap::CanonicalSpecs() const {
  std::vector<std::string> specs;
  for (int id = 0; id < NumEntries(); ++id) specs.push_back(CanonicalSpec(id));
  return specs;
}

}  // namespace sluice
