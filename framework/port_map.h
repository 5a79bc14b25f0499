// PortMap: the TAG:index -> dense id layout of one node's stream or side-packet list.
#ifndef SLUICE_FRAMEWORK_PORT_MAP_H_
#define SLUICE_FRAMEWORK_PORT_MAP_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace sluice {

// Ids are dense: tags sorted ("" first), then index, as MediaPipe orders them.
class PortMap {
 public:
  struct Entry {
    std::string tag;
    int index = 0;
    std::string name;
  };

  // Parses "name", "TAG:name", "TAG:i:name" specs (MediaPipe's grammar).
  static absl::StatusOr<std::shared_ptr<const PortMap>> Create(
      const std::vector<std::string>& specs);
  // Tag:index layout without names (for contracts built by hand).
  static std::shared_ptr<const PortMap> FromEntries(std::vector<Entry> entries);

  int NumEntries() const { return static_cast<int>(entries_.size()); }
  int NumEntries(const std::string& tag) const;
  bool HasTag(const std::string& tag) const { return tags_.count(tag) > 0; }
  // -1 when absent.
  int GetId(const std::string& tag, int index) const;
  const Entry& EntryAt(int id) const { return entries_[id]; }
  const std::vector<Entry>& Entries() const { return entries_; }
  std::vector<std::string> Tags() const;
  // "TAG:index" or "index" for untagged (for messages).
  std::string TagIndexString(int id) const;

 private:
  struct TagRange {
    int first_id = 0;
    int count = 0;
  };
  std::vector<Entry> entries_;
  std::map<std::string, TagRange> tags_;
};

// Splits "TAG:i:name" forms into parts; fills tag ("" if none), index (-1 when
// the spec has no index and no tag, i.e. auto-increment) and name.
absl::Status ParsePortSpec(const std::string& spec, std::string* tag, int* index,
                           std::string* name);
// "TAG", "TAG:i", ":i" or "" (InputStreamInfo / SyncSet tag_index).
absl::Status ParsePortTagIndex(const std::string& spec, std::string* tag, int* index);

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_PORT_MAP_H_
