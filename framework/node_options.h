// NodeOptions: lazily parsed, cached calculator options of one node (cc->Options<T>()).
#ifndef SLUICE_FRAMEWORK_NODE_OPTIONS_H_
#define SLUICE_FRAMEWORK_NODE_OPTIONS_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "google/protobuf/message.h"
#include "proto/calculator.pb.h"

namespace sluice {

// Reads the options message of `out`'s type from a node config: either the
// proto2 extension in `options` or a matching `node_options` Any.
absl::Status ReadNodeOptions(const mediapipe::CalculatorGraphConfig::Node& node,
                             google::protobuf::Message* out);

class NodeOptions {
 public:
  explicit NodeOptions(const mediapipe::CalculatorGraphConfig::Node* node) : node_(node) {}

  // Defaults when the node sets none. A parse error is kept (see status()).
  template <typename T>
  const T& Get() {
    return static_cast<const T&>(GetMessage(T::default_instance()));
  }
  const google::protobuf::Message& GetMessage(const google::protobuf::Message& prototype);
  absl::Status status() const {
    std::lock_guard<std::mutex> l(mu_);
    return status_;
  }

 private:
  const mediapipe::CalculatorGraphConfig::Node* node_;
  mutable std::mutex mu_;
  std::map<const google::protobuf::Descriptor*, std::unique_ptr<google::protobuf::Message>> cache_;
  absl::Status status_;
};

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_NODE_OPTIONS_H_
