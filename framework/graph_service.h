// Graph services: typed keys for objects shared by a whole graph (e.g. a GPU device), set via
// CalculatorGraph::SetServiceObject and requested by calculators with cc->UseService().
#ifndef SLUICE_FRAMEWORK_GRAPH_SERVICE_H_
#define SLUICE_FRAMEWORK_GRAPH_SERVICE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/statusor.h"

namespace sluice {

enum class GraphServiceDefaultInitialization {
  kAllowDefaultInitialization,
  kDisallowDefaultInitialization,
};

// Untyped part of a service key.
class GraphServiceBase {
 public:
  GraphServiceBase(std::string key, GraphServiceDefaultInitialization policy)
      : key_(std::move(key)), policy_(policy) {}
  virtual ~GraphServiceBase() = default;
  const std::string& key() const { return key_; }
  bool AllowsDefaultInitialization() const {
    return policy_ == GraphServiceDefaultInitialization::kAllowDefaultInitialization;
  }
  // Creates the object used when the service is requested but was not set.
  virtual absl::StatusOr<std::shared_ptr<void>> CreateDefaultObject() const = 0;

 private:
  std::string key_;
  GraphServiceDefaultInitialization policy_;
};

// A service key for objects of type T. Define one as a global constant:
//   inline const GraphService<Device> kDeviceService("sluice::Device",
//       GraphServiceDefaultInitialization::kAllowDefaultInitialization);
template <typename T>
class GraphService : public GraphServiceBase {
 public:
  using Factory = std::function<absl::StatusOr<std::shared_ptr<T>>()>;
  explicit GraphService(std::string key,
                        GraphServiceDefaultInitialization policy =
                            GraphServiceDefaultInitialization::kDisallowDefaultInitialization,
                        Factory factory = nullptr)
      : GraphServiceBase(std::move(key), policy), factory_(std::move(factory)) {}

  absl::StatusOr<std::shared_ptr<void>> CreateDefaultObject() const override {
    if (factory_) {
      auto r = factory_();
      if (!r.ok()) return r.status();
      return std::static_pointer_cast<void>(*r);
    }
    if constexpr (std::is_default_constructible<T>::value) {
      return std::static_pointer_cast<void>(std::make_shared<T>());
    } else {
      return absl::FailedPreconditionError("Service \"" + key() +
                                           "\" has no default constructor or factory");
    }
  }

 private:
  Factory factory_;
};

// The objects set for a graph, by service key.
class ServiceObjects {
 public:
  void Set(const std::string& key, std::shared_ptr<void> obj) { objs_[key] = std::move(obj); }
  std::shared_ptr<void> Find(const std::string& key) const {
    auto it = objs_.find(key);
    return it == objs_.end() ? nullptr : it->second;
  }

 private:
  std::map<std::string, std::shared_ptr<void>> objs_;
};

// What a calculator sees through cc->Service(kService).
template <typename T>
class ServiceBinding {
 public:
  explicit ServiceBinding(std::shared_ptr<T> obj) : obj_(std::move(obj)) {}
  bool IsAvailable() const { return obj_ != nullptr; }
  // Precondition: IsAvailable() (a required service always is).
  T& GetObject() const { return *obj_; }
  std::shared_ptr<T> GetShared() const { return obj_; }

 private:
  std::shared_ptr<T> obj_;
};

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_GRAPH_SERVICE_H_
