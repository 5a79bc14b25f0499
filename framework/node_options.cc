#include "framework/node_options.h"

#include "framework/tool/options_util.h"

namespace sluice {

absl::Status ReadNodeOptions(const mediapipe::CalculatorGraphConfig::Node& node,
                             google::protobuf::Message* out) {
  absl::Status s = GetNodeOptions(node, out);
  if (s.ok()) return s;
  return absl::Status(s.code(), "Options of node \"" + node.name() + "\" (" + node.calculator() +
                                    "): " + std::string(s.message()));
}

const google::protobuf::Message& NodeOptions::GetMessage(
    const google::protobuf::Message& prototype) {
  std::lock_guard<std::mutex> l(mu_);
  auto& slot = cache_[prototype.GetDescriptor()];
  if (!slot) {
    slot.reset(prototype.New());
    if (node_ != nullptr) {
      absl::Status s = ReadNodeOptions(*node_, slot.get());
      if (!s.ok() && status_.ok()) status_ = s;
    }
  }
  return *slot;
}

}  // namespace sluice
