// MediaPipe's "TAG:index:name" port grammar and the TagMap that numbers a
// node's (or graph's) stream / side-packet list.
//
//   name            tag "", index = number of earlier untagged entries
//   TAG:name        tag TAG, index 0 (not auto-incremented)
//   TAG:2:name      tag TAG, index 2
//
// Within one list each tag's indices must be exactly 0..n-1.
#ifndef SLUICE_FRAMEWORK_TOOL_TAG_MAP_H_
#define SLUICE_FRAMEWORK_TOOL_TAG_MAP_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/repeated_field.h"

namespace sluice {

struct TagIndex {
  std::string tag;
  int index = 0;
};

struct TagIndexName {
  std::string tag;
  // -1 for an untagged "name" (its index depends on its position in a list,
  // see TagMap); >= 0 otherwise.
  int index = 0;
  std::string name;
};

// Syntax checks (no list context).
bool IsValidStreamName(absl::string_view name);  // [a-z_][a-z0-9_]*
bool IsValidTag(absl::string_view tag);          // [A-Z_][A-Z0-9_]*

// Parses "name", "TAG:name" or "TAG:index:name".
absl::StatusOr<TagIndexName> ParseTagIndexName(absl::string_view spec);

// Parses "TAG", "TAG:2", ":3" or "" (tag "", index 0).
absl::StatusOr<TagIndex> ParseTagIndex(absl::string_view tag_index);

// Numbers a list of port specs. Entries get dense ids 0..N-1 in canonical
// order: tags sorted lexicographically ("" first), then by index.
class TagMap {
 public:
  static absl::StatusOr<std::shared_ptr<const TagMap>> Create(
      const google::protobuf::RepeatedPtrField<std::string>& specs);
  static absl::StatusOr<std::shared_ptr<const TagMap>> Create(
      const std::vector<std::string>& specs);

  int NumEntries() const { return static_cast<int>(entries_.size()); }
  int NumEntries(absl::string_view tag) const;
  bool HasTag(absl::string_view tag) const;
  std::vector<std::string> Tags() const;
  // First id of `tag` (ids of one tag are consecutive); -1 if absent.
  int BeginId(absl::string_view tag) const;
  // -1 if absent.
  int GetId(absl::string_view tag, int index) const;
  const TagIndexName& Entry(int id) const { return entries_[id]; }
  const std::vector<TagIndexName>& Entries() const { return entries_; }
  // "name", "TAG:name" (tag used once) or "TAG:i:name" as MediaPipe prints.
  std::string CanonicalSpec(int id) const;
  // All canonical specs, in id order.
  std::vector<std::string> CanonicalSpecs() const;

 private:
  struct TagRange {
    int begin = 0;
    int count = 0;
  };
  static absl::StatusOr<std::shared_ptr<const TagMap>> CreateFrom(
      const std::vector<absl::string_view>& specs);

  std::vector<TagIndexName> entries_;
  std::map<std::string, TagRange, std::less<>> tags_;
};

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_TOOL_TAG_MAP_H_
