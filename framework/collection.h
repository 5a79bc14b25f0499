// PortCollection<T>: the per-node list of ports (streams or side packets) addressed by Tag/Index.
#ifndef SLUICE_FRAMEWORK_COLLECTION_H_
#define SLUICE_FRAMEWORK_COLLECTION_H_

#include <memory>
#include <string>
#include <vector>

#include "framework/port_map.h"

namespace sluice {

// Items are laid out by the node's PortMap. Asking for a tag/index the node
// config does not have returns a shared "missing" item and records the miss,
// so the framework reports it as an error instead of crashing.
template <typename T>
class PortCollection {
 public:
  PortCollection() : map_(PortMap::FromEntries({})) {}
  explicit PortCollection(std::shared_ptr<const PortMap> map)
      : map_(std::move(map)), items_(map_->NumEntries()) {}

  T& Tag(const std::string& tag) { return Get(tag, 0); }
  const T& Tag(const std::string& tag) const { return Get(tag, 0); }
  T& Index(int index) { return Get("", index); }
  const T& Index(int index) const { return Get("", index); }
  T& Get(const std::string& tag, int index) {
    int id = map_->GetId(tag, index);
    if (id < 0) return Missing(tag, index);
    return items_[id];
  }
  const T& Get(const std::string& tag, int index) const {
    return const_cast<PortCollection*>(this)->Get(tag, index);
  }
  // By dense id, 0 <= id < NumEntries().
  T& Get(int id) { return items_[id]; }
  const T& Get(int id) const { return items_[id]; }

  bool HasTag(const std::string& tag) const { return map_->HasTag(tag); }
  int NumEntries() const { return map_->NumEntries(); }
  int NumEntries(const std::string& tag) const { return map_->NumEntries(tag); }
  const PortMap& TagMap() const { return *map_; }
  const std::shared_ptr<const PortMap>& TagMapPtr() const { return map_; }

  typename std::vector<T>::iterator begin() { return items_.begin(); }
  typename std::vector<T>::iterator end() { return items_.end(); }
  typename std::vector<T>::const_iterator begin() const { return items_.begin(); }
  typename std::vector<T>::const_iterator end() const { return items_.end(); }

  // Tag:index pairs asked for but absent from the config, as "TAG:index".
  const std::vector<std::string>& Misses() const { return misses_; }
  void ClearMisses() { misses_.clear(); }

 private:
  T& Missing(const std::string& tag, int index) {
    misses_.push_back(tag + ":" + std::to_string(index));
    missing_ = T();
    return missing_;
  }

  std::shared_ptr<const PortMap> map_;
  std::vector<T> items_;
  std::vector<std::string> misses_;
  T missing_;
};

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_COLLECTION_H_
