#include "framework/tool/options_util.h"

#include "absl/strings/str_cat.h"
#include "framework/tool/graph_config_io.h"
#include "google/protobuf/descriptor.h"

namespace sluice {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using mediapipe::CalculatorGraphConfig;

// The extension of `container` (CalculatorOptions / MediaPipeOptions) whose
// message type is `type` and which is set; nullptr if none.
const FieldDescriptor* FindSetExtension(const Message& container,
                                        const Descriptor* type) {
  std::vector<const FieldDescriptor*> fields;
  container.GetReflection()->ListFields(container, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->is_extension() && f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
        f->message_type() == type) {
      return f;
    }
  }
  return nullptr;
}

// Shared by node and graph options: extension first, else last matching Any.
absl::Status ReadOptions(const Message* container,
                         const google::protobuf::RepeatedPtrField<google::protobuf::Any>& anys,
                         Message* out) {
  const Descriptor* type = out->GetDescriptor();
  if (container != nullptr) {
    if (const FieldDescriptor* ext = FindSetExtension(*container, type)) {
      out->CopyFrom(container->GetReflection()->GetMessage(*container, ext));
      return absl::OkStatus();
    }
  }
  out->Clear();
  for (const auto& any : anys) {
    if (TypeNameFromUrl(any.type_url()) != type->full_name()) continue;
    if (!out->ParseFromString(any.value())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "corrupt ", type->full_name(), " payload in a google.protobuf.Any"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string TypeUrlFor(const Descriptor* type) {
  return absl::StrCat("type.googleapis.com/", type->full_name());
}

absl::Status GetNodeOptions(const CalculatorGraphConfig::Node& node, Message* out) {
  absl::Status status =
      ReadOptions(node.has_options() ? &node.options() : nullptr, node.node_options(), out);
  if (!status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "node \"", node.name(), "\" (", node.calculator(), "): ", status.message()));
  }
  return absl::OkStatus();
}

bool HasNodeOptions(const CalculatorGraphConfig::Node& node, const Descriptor* type) {
  if (node.has_options() && FindSetExtension(node.options(), type) != nullptr) {
    return true;
  }
  for (const auto& any : node.node_options()) {
    if (TypeNameFromUrl(any.type_url()) == type->full_name()) return true;
  }
  return false;
}

absl::Status GetGraphOptions(const CalculatorGraphConfig& config, Message* out) {
  absl::Status status = ReadOptions(config.has_options() ? &config.options() : nullptr,
                                    config.graph_options(), out);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("graph \"", config.type(), "\" graph_options: ", status.message()));
  }
  return absl::OkStatus();
}

void SetNodeOptions(const Message& options, CalculatorGraphConfig::Node* node) {
  const std::string url = TypeUrlFor(options.GetDescriptor());
  google::protobuf::Any* target = nullptr;
  for (auto& any : *node->mutable_node_options()) {
    if (any.type_url() == url) target = &any;
  }
  if (target == nullptr) {
    target = node->add_node_options();
    target->set_type_url(url);
  }
  target->set_value(options.SerializeAsString());
}

}  // namespace sluice
