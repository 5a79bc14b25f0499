// `option_value: "NODE_PATH:GRAPH_PATH"` processing (ApplyOptionValues), with
// MediaPipe's copy semantics: message values are merged into the node's
// existing values (graph wins); scalar and repeated targets are replaced by the
// graph's values, so a graph field that is not set clears the node field.
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "framework/tool/graph_config_io.h"
#include "framework/tool/options_util.h"
#include "framework/tool/subgraph_expansion.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/dynamic_message.h"
#include "util/status_macros.h"

namespace sluice {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::MessageFactory;
using google::protobuf::Reflection;
using mediapipe::CalculatorGraphConfig;
using MessagePtr = std::shared_ptr<Message>;

MessagePtr NewMessage(const Descriptor* type) {
  const Message* prototype = MessageFactory::generated_factory()->GetPrototype(type);
  return prototype != nullptr ? MessagePtr(prototype->New()) : nullptr;
}

MessagePtr CopyMessage(const Message& m) {
  MessagePtr copy(m.New());
  copy->CopyFrom(m);
  return copy;
}

// One value of a field; `message` is set for message-typed fields.
struct FieldValue {
  const FieldDescriptor* field = nullptr;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  bool b = false;
  std::string s;
  MessagePtr message;
};

struct PathEntry {
  const FieldDescriptor* field = nullptr;
  int index = -1;          // -1: all values of the field
  std::string ext_type;    // "Ext::" component, resolved against the message
};
using Path = std::vector<PathEntry>;

// Options messages found on a node or graph, with where they came from.
struct Options {
  MessagePtr message;         // null if none usable
  std::string unlinked_type;  // set if options exist but their type is unknown
};

const Descriptor* LinkedType(absl::string_view name) {
  return DescriptorPool::generated_pool()->FindMessageTypeByName(std::string(name));
}

// The options of `container` (CalculatorOptions / MediaPipeOptions) and `anys`
// of type `type` ("*" = the first present), extension first.
absl::StatusOr<Options> FindOptions(
    const Message* container,
    const google::protobuf::RepeatedPtrField<google::protobuf::Any>& anys,
    const std::string& type) {
  Options result;
  if (container != nullptr) {
    std::vector<const FieldDescriptor*> fields;
    container->GetReflection()->ListFields(*container, &fields);
    for (const FieldDescriptor* f : fields) {
      if (!f->is_extension() || f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
      if (type == "*" || f->message_type()->full_name() == type) {
        result.message = CopyMessage(container->GetReflection()->GetMessage(*container, f));
        return result;
      }
    }
    if (type == "*" &&
        container->GetReflection()->GetUnknownFields(*container).field_count() > 0) {
      result.unlinked_type = "an unlinked options extension";
    }
  }
  for (const auto& any : anys) {
    std::string name = TypeNameFromUrl(any.type_url());
    if (type != "*" && name != type) continue;
    const Descriptor* d = LinkedType(name);
    if (d == nullptr) {
      result.unlinked_type = name;
      if (type == "*") return result;
      continue;
    }
    result.message = NewMessage(d);
    if (!result.message->ParseFromString(any.value())) {
      return absl::InvalidArgumentError(absl::StrCat("corrupt ", name, " payload"));
    }
    if (type == "*") return result;
  }
  return result;
}

// Splits at single ':' characters; "::" stays inside a component.
std::vector<std::string> SplitSingleColons(absl::string_view s) {
  std::vector<std::string> parts(1);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ':' && i + 1 < s.size() && s[i + 1] == ':') {
      parts.back() += "::";
      ++i;
    } else if (s[i] == ':') {
      parts.emplace_back();
    } else {
      parts.back() += s[i];
    }
  }
  return parts;
}

// Path components without the optional leading "OPTIONS" / "options".
std::vector<std::string> PathComponents(absl::string_view path) {
  std::vector<std::string> names = absl::StrSplit(path, '/');
  if (!names.empty() && names[0] == "OPTIONS") names.erase(names.begin());
  if (!names.empty() && names[0] == "options") names.erase(names.begin());
  std::vector<std::string> result;
  for (std::string& n : names) {
    if (!n.empty()) result.push_back(std::move(n));
  }
  return result;
}

absl::string_view ExtType(absl::string_view component) {
  return absl::StartsWithIgnoreCase(component, "Ext::") ? component.substr(5)
                                                        : absl::string_view();
}

// The extension type named by a leading "Ext::" component, else "*".
std::string RootType(const std::vector<std::string>& components) {
  if (!components.empty() && !ExtType(components[0]).empty()) {
    return std::string(ExtType(components[0]));
  }
  return "*";
}

absl::StatusOr<Path> BuildPath(const std::vector<std::string>& components,
                               const Descriptor* root) {
  Path path;
  const Descriptor* current = root;
  for (size_t k = 0; k < components.size(); ++k) {
    const std::string& c = components[k];
    int index = 0;
    if (absl::SimpleAtoi(c, &index)) {
      if (path.empty() || index < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("index \"", c, "\" does not follow a repeated field"));
      }
      path.back().index = index;
      continue;
    }
    if (!ExtType(c).empty()) {
      if (k == 0) continue;  // selects the root options type
      const Descriptor* d = LinkedType(ExtType(c));
      if (d == nullptr) {
        return absl::NotFoundError(
            absl::StrCat("extension type ", ExtType(c), " is not linked in"));
      }
      PathEntry e;
      e.ext_type = std::string(ExtType(c));
      e.index = 0;
      path.push_back(e);
      current = d;
      continue;
    }
    if (current == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "\"", c, "\" follows field \"", path.back().field->name(),
          "\", which is not a message"));
    }
    const FieldDescriptor* f = current->FindFieldByName(c);
    if (f == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("no field \"", c, "\" in ", current->full_name()));
    }
    path.push_back(PathEntry{f, -1, ""});
    current = f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE ? f->message_type() : nullptr;
  }
  return path;
}

absl::Status ResolveExtension(const Message& m, PathEntry* e) {
  if (e->ext_type.empty()) return absl::OkStatus();
  std::vector<const FieldDescriptor*> exts;
  DescriptorPool::generated_pool()->FindAllExtensions(m.GetDescriptor(), &exts);
  for (const FieldDescriptor* f : exts) {
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
        f->message_type()->full_name() == e->ext_type) {
      e->field = f;
      return absl::OkStatus();
    }
  }
  return absl::NotFoundError(absl::StrCat("option extension not found: ", e->ext_type,
                                          " in ", m.GetDescriptor()->full_name()));
}

int FieldCount(const Message& m, const FieldDescriptor* f) {
  const Reflection* r = m.GetReflection();
  if (f->is_repeated()) return r->FieldSize(m, f);
  return r->HasField(m, f) ? 1 : 0;
}

FieldValue ReadValue(const Message& m, const FieldDescriptor* f, int i) {
  const Reflection* r = m.GetReflection();
  FieldValue v;
  v.field = f;
  const bool rep = f->is_repeated();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: v.i = rep ? r->GetRepeatedInt32(m, f, i) : r->GetInt32(m, f); break;
    case FieldDescriptor::CPPTYPE_INT64: v.i = rep ? r->GetRepeatedInt64(m, f, i) : r->GetInt64(m, f); break;
    case FieldDescriptor::CPPTYPE_UINT32: v.u = rep ? r->GetRepeatedUInt32(m, f, i) : r->GetUInt32(m, f); break;
    case FieldDescriptor::CPPTYPE_UINT64: v.u = rep ? r->GetRepeatedUInt64(m, f, i) : r->GetUInt64(m, f); break;
    case FieldDescriptor::CPPTYPE_DOUBLE: v.d = rep ? r->GetRepeatedDouble(m, f, i) : r->GetDouble(m, f); break;
    case FieldDescriptor::CPPTYPE_FLOAT: v.d = rep ? r->GetRepeatedFloat(m, f, i) : r->GetFloat(m, f); break;
    case FieldDescriptor::CPPTYPE_BOOL: v.b = rep ? r->GetRepeatedBool(m, f, i) : r->GetBool(m, f); break;
    case FieldDescriptor::CPPTYPE_ENUM: v.i = rep ? r->GetRepeatedEnumValue(m, f, i) : r->GetEnumValue(m, f); break;
    case FieldDescriptor::CPPTYPE_STRING: v.s = rep ? r->GetRepeatedString(m, f, i) : r->GetString(m, f); break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      v.message = CopyMessage(rep ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f));
      break;
  }
  return v;
}

// All values of the field at `path` (MediaPipe's GetFieldValues).
absl::StatusOr<std::vector<FieldValue>> GetValues(const MessagePtr& m, const Path& path) {
  if (path.empty()) {
    FieldValue whole;
    whole.message = m;
    return std::vector<FieldValue>{whole};
  }
  PathEntry head = path.front();
  Path tail(path.begin() + 1, path.end());
  RETURN_IF_ERROR(ResolveExtension(*m, &head));
  std::vector<FieldValue> values;
  for (int i = 0; i < FieldCount(*m, head.field); ++i) {
    values.push_back(ReadValue(*m, head.field, i));
  }
  int index = tail.empty() ? head.index : std::max(0, head.index);
  if (index >= static_cast<int>(values.size())) {
    return absl::OutOfRangeError(absl::StrCat("missing value of field \"",
                                              head.field->name(), "\" at index ", index));
  }
  if (!tail.empty()) return GetValues(values[index].message, tail);
  if (index > -1) return std::vector<FieldValue>{values[index]};
  return values;
}

bool IsIntegral(FieldDescriptor::CppType t) {
  return t == FieldDescriptor::CPPTYPE_INT32 || t == FieldDescriptor::CPPTYPE_INT64 ||
         t == FieldDescriptor::CPPTYPE_UINT32 || t == FieldDescriptor::CPPTYPE_UINT64 ||
         t == FieldDescriptor::CPPTYPE_ENUM;
}
bool IsUnsigned(FieldDescriptor::CppType t) {
  return t == FieldDescriptor::CPPTYPE_UINT32 || t == FieldDescriptor::CPPTYPE_UINT64;
}
bool IsFloating(FieldDescriptor::CppType t) {
  return t == FieldDescriptor::CPPTYPE_FLOAT || t == FieldDescriptor::CPPTYPE_DOUBLE;
}

// Appends (repeated) or sets (singular) `v` converted to field `f` of `m`.
absl::Status AddValue(Message* m, const FieldDescriptor* f, const FieldValue& v) {
  const Reflection* r = m->GetReflection();
  const auto to = f->cpp_type();
  const auto from = v.message ? FieldDescriptor::CPPTYPE_MESSAGE : v.field->cpp_type();
  const bool rep = f->is_repeated();
  const bool numeric_ok = (IsIntegral(to) || IsFloating(to)) && (IsIntegral(from) || IsFloating(from));
  if (to != from && !numeric_ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot copy a ", v.field ? v.field->cpp_type_name() : "message", " value into field \"",
        f->name(), "\" of type ", f->cpp_type_name()));
  }
  const int64_t as_i = IsUnsigned(from) ? static_cast<int64_t>(v.u)
                       : IsFloating(from) ? static_cast<int64_t>(v.d) : v.i;
  const uint64_t as_u = IsUnsigned(from) ? v.u
                        : IsFloating(from) ? static_cast<uint64_t>(v.d) : static_cast<uint64_t>(v.i);
  const double as_d = IsUnsigned(from) ? static_cast<double>(v.u)
                      : IsFloating(from) ? v.d : static_cast<double>(v.i);
  switch (to) {
    case FieldDescriptor::CPPTYPE_INT32:
      rep ? r->AddInt32(m, f, static_cast<int32_t>(as_i)) : r->SetInt32(m, f, static_cast<int32_t>(as_i));
      break;
    case FieldDescriptor::CPPTYPE_INT64: rep ? r->AddInt64(m, f, as_i) : r->SetInt64(m, f, as_i); break;
    case FieldDescriptor::CPPTYPE_UINT32:
      rep ? r->AddUInt32(m, f, static_cast<uint32_t>(as_u)) : r->SetUInt32(m, f, static_cast<uint32_t>(as_u));
      break;
    case FieldDescriptor::CPPTYPE_UINT64: rep ? r->AddUInt64(m, f, as_u) : r->SetUInt64(m, f, as_u); break;
    case FieldDescriptor::CPPTYPE_DOUBLE: rep ? r->AddDouble(m, f, as_d) : r->SetDouble(m, f, as_d); break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      rep ? r->AddFloat(m, f, static_cast<float>(as_d)) : r->SetFloat(m, f, static_cast<float>(as_d));
      break;
    case FieldDescriptor::CPPTYPE_BOOL: rep ? r->AddBool(m, f, v.b) : r->SetBool(m, f, v.b); break;
    case FieldDescriptor::CPPTYPE_ENUM:
      rep ? r->AddEnumValue(m, f, static_cast<int>(as_i)) : r->SetEnumValue(m, f, static_cast<int>(as_i));
      break;
    case FieldDescriptor::CPPTYPE_STRING: rep ? r->AddString(m, f, v.s) : r->SetString(m, f, v.s); break;
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      Message* target = rep ? r->AddMessage(m, f) : r->MutableMessage(m, f);
      // Same wire bytes, as MediaPipe copies them (types may differ).
      if (!target->MergeFromString(v.message->SerializeAsString())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "cannot copy a ", v.message->GetDescriptor()->full_name(), " into field \"",
            f->name(), "\" of type ", f->message_type()->full_name()));
      }
      break;
    }
  }
  return absl::OkStatus();
}

// Replaces values [start, start+length) of field `f` with `values`.
absl::Status ReplaceRange(Message* m, const FieldDescriptor* f, int start, int length,
                          const std::vector<FieldValue>& values) {
  std::vector<FieldValue> all;
  const int count = FieldCount(*m, f);
  for (int i = 0; i < count; ++i) all.push_back(ReadValue(*m, f, i));
  if (start > count) {
    return absl::OutOfRangeError(absl::StrCat("index ", start, " of field \"", f->name(),
                                              "\" is out of range (", count, " values)"));
  }
  length = std::min(length, count - start);
  std::vector<FieldValue> updated(all.begin(), all.begin() + start);
  updated.insert(updated.end(), values.begin(), values.end());
  updated.insert(updated.end(), all.begin() + start + length, all.end());
  m->GetReflection()->ClearField(m, f);
  for (const FieldValue& v : updated) RETURN_IF_ERROR(AddValue(m, f, v));
  return absl::OkStatus();
}

// MediaPipe's SetFieldValues: the values replace the entry's index, or all.
absl::Status SetValues(const MessagePtr& m, const Path& path, const std::vector<FieldValue>& values) {
  PathEntry head = path.front();
  Path tail(path.begin() + 1, path.end());
  RETURN_IF_ERROR(ResolveExtension(*m, &head));
  if (tail.empty()) {
    if (head.index > -1) return ReplaceRange(m.get(), head.field, head.index, 1, values);
    return ReplaceRange(m.get(), head.field, 0, FieldCount(*m, head.field), values);
  }
  const int index = std::max(0, head.index);
  if (index >= FieldCount(*m, head.field)) {
    return absl::OutOfRangeError(absl::StrCat("missing value of field \"",
                                              head.field->name(), "\" at index ", index));
  }
  FieldValue child = ReadValue(*m, head.field, index);
  RETURN_IF_ERROR(SetValues(child.message, tail, values));
  return ReplaceRange(m.get(), head.field, index, 1, {child});
}

// MediaPipe's MergeFieldValues: message values merge into the existing ones.
absl::Status MergeValues(MessagePtr& m, const Path& path, std::vector<FieldValue> values) {
  ASSIGN_OR_RETURN(std::vector<FieldValue> prevs, GetValues(m, path));
  const bool is_message = path.empty() ||
                          path.back().field == nullptr ||
                          path.back().field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
  if (is_message) {
    for (size_t i = 0; i < std::min(values.size(), prevs.size()); ++i) {
      if (values[i].message->GetDescriptor() != prevs[i].message->GetDescriptor()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "cannot merge ", values[i].message->GetDescriptor()->full_name(), " into ",
            prevs[i].message->GetDescriptor()->full_name()));
      }
      MessagePtr merged = CopyMessage(*prevs[i].message);
      merged->MergeFrom(*values[i].message);
      values[i].message = merged;
    }
  }
  if (path.empty()) {
    if (values.empty()) return absl::InvalidArgumentError("missing field value");
    m = values[0].message;
    return absl::OkStatus();
  }
  return SetValues(m, path, values);
}

std::string NodeLabel(const CalculatorGraphConfig& config, int i) {
  return absl::StrCat("node \"", CanonicalNodeName(config, i), "\" (calculator ",
                      config.node(i).calculator(), ")");
}

// Applies one option_value entry to `node`; returns a warning text when it
// must be skipped because an options type is not linked in.
absl::StatusOr<std::string> ApplyOne(const std::string& spec,
                                     const CalculatorGraphConfig& graph,
                                     const CalculatorGraphConfig::Node& parent,
                                     CalculatorGraphConfig::Node* node) {
  std::vector<std::string> sides = SplitSingleColons(spec);
  if (sides.size() != 2) {
    return absl::InvalidArgumentError("expected \"NODE_PATH:GRAPH_PATH\"");
  }
  std::vector<std::string> node_components = PathComponents(sides[0]);
  std::vector<std::string> graph_components = PathComponents(sides[1]);
  const std::string graph_type = RootType(graph_components);
  const std::string node_type = RootType(node_components);

  ASSIGN_OR_RETURN(Options graph_options,
                   FindOptions(graph.has_options() ? &graph.options() : nullptr,
                               graph.graph_options(), graph_type));
  ASSIGN_OR_RETURN(Options parent_options,
                   FindOptions(parent.has_options() ? &parent.options() : nullptr,
                               parent.node_options(), graph_type));
  if (!graph_options.message && !graph_options.unlinked_type.empty()) {
    return absl::StrCat("graph options type ", graph_options.unlinked_type, " is not linked in");
  }
  if (!parent_options.message && !parent_options.unlinked_type.empty() && graph_type != "*") {
    return absl::StrCat("parent options type ", parent_options.unlinked_type, " is not linked in");
  }
  MessagePtr merged = graph_options.message;
  if (parent_options.message) {
    if (!merged) {
      merged = parent_options.message;
    } else if (merged->GetDescriptor() != parent_options.message->GetDescriptor()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot merge the parent node's ", parent_options.message->GetDescriptor()->full_name(),
          " into graph options of type ", merged->GetDescriptor()->full_name()));
    } else {
      merged = CopyMessage(*merged);
      merged->MergeFrom(*parent_options.message);
    }
  }
  ASSIGN_OR_RETURN(Options node_options,
                   FindOptions(node->has_options() ? &node->options() : nullptr,
                               node->node_options(), node_type));
  if (!node_options.message) {
    if (!node_options.unlinked_type.empty()) {
      return absl::StrCat("node options type ", node_options.unlinked_type, " is not linked in");
    }
    return std::string("the node has no options of a linked type");
  }
  if (!merged) return std::string();  // MediaPipe skips silently: no graph options
  ASSIGN_OR_RETURN(Path graph_path, BuildPath(graph_components, merged->GetDescriptor()));
  ASSIGN_OR_RETURN(Path node_path, BuildPath(node_components, node_options.message->GetDescriptor()));
  ASSIGN_OR_RETURN(std::vector<FieldValue> values, GetValues(merged, graph_path));
  MessagePtr result = node_options.message;
  RETURN_IF_ERROR(MergeValues(result, node_path, std::move(values)));
  SetNodeOptions(*result, node);
  node->clear_options();
  return std::string();
}

}  // namespace

absl::Status ApplyOptionValues(const CalculatorGraphConfig::Node& parent_node,
                               CalculatorGraphConfig* config,
                               std::vector<std::string>* warnings) {
  for (int i = 0; i < config->node_size(); ++i) {
    CalculatorGraphConfig::Node* node = config->mutable_node(i);
    for (const std::string& spec : node->option_value()) {
      absl::StatusOr<std::string> skipped = ApplyOne(spec, *config, parent_node, node);
      if (!skipped.ok()) {
        return absl::Status(skipped.status().code(),
                            absl::StrCat(NodeLabel(*config, i), ": option_value \"", spec,
                                         "\": ", skipped.status().message()));
      }
      if (!skipped->empty() && warnings != nullptr) {
        warnings->push_back(absl::StrCat(NodeLabel(*config, i), ": option_value \"", spec,
                                         "\" not applied: ", *skipped));
      }
    }
    node->clear_option_value();
  }
  return absl::OkStatus();
}

}  // namespace sluice
