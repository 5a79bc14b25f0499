#include "framework/tool/graph_config_io.h"

#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/unknown_field_set.h"

namespace sluice {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::TextFormat;
using mediapipe::CalculatorGraphConfig;

constexpr absl::string_view kPlaceholderType = "sluice.internal.UnlinkedOptions";

// A message type with no fields, standing in for Any payloads whose type is
// not linked: the parser skips their fields (reported as warnings).
const Descriptor* PlaceholderDescriptor() {
  static const Descriptor* descriptor = [] {
    auto* pool = new DescriptorPool();
    google::protobuf::FileDescriptorProto file;
    file.set_name("sluice_internal_unlinked_options.proto");
    file.set_package("sluice.internal");
    file.add_message_type()->set_name("UnlinkedOptions");
    pool->BuildFile(file);
    return pool->FindMessageTypeByName(std::string(kPlaceholderType));
  }();
  return descriptor;
}

class UnlinkedAnyFinder : public TextFormat::Finder {
 public:
  const Descriptor* FindAnyType(const Message& /*message*/,
                                const std::string& prefix,
                                const std::string& name) const override {
    if (prefix != "type.googleapis.com/" && prefix != "type.googleprod.com/") {
      return nullptr;
    }
    const Descriptor* d =
        DescriptorPool::generated_pool()->FindMessageTypeByName(name);
    return d != nullptr ? d : PlaceholderDescriptor();
  }
};

struct Diagnostic {
  int line;
  int column;
  std::string message;
};

class CollectingErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    errors.push_back({line, column, message});
  }
  void AddWarning(int line, int column, const std::string& message) override {
    warnings.push_back({line, column, message});
  }
  std::vector<Diagnostic> errors;
  std::vector<Diagnostic> warnings;
};

std::string Where(absl::string_view source, const Diagnostic& d) {
  return absl::StrCat(source, ":", d.line + 1, ":", d.column + 1, ": ", d.message);
}

std::string NodeLabel(int index, const CalculatorGraphConfig::Node& node) {
  return absl::StrCat("node[", index, "] (", node.calculator(),
                      node.name().empty() ? "" : absl::StrCat(" \"", node.name(), "\""),
                      ")");
}

// Visits every google.protobuf.Any held in a repeated field anywhere in `msg`;
// `fn(any, where)` returns true to delete that element.
using AnyVisitor = std::function<bool(const google::protobuf::Any& any,
                                      const std::string& where)>;

void VisitAnys(Message* msg, const std::string& where, const AnyVisitor& fn) {
  const Reflection* refl = msg->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  refl->ListFields(*msg, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    const bool is_any = f->message_type()->full_name() == "google.protobuf.Any";
    const std::string prefix = where.empty() ? "" : where + "/";
    if (!f->is_repeated()) {
      if (is_any) continue;  // graph configs hold Any only in repeated fields
      VisitAnys(refl->MutableMessage(msg, f), prefix + f->name(), fn);
      continue;
    }
    for (int i = refl->FieldSize(*msg, f) - 1; i >= 0; --i) {
      Message* child = refl->MutableRepeatedMessage(msg, f, i);
      if (!is_any) {
        std::string child_where = absl::StrCat(prefix, f->name(), "[", i, "]");
        if (f->message_type() == CalculatorGraphConfig::Node::descriptor()) {
          child_where = prefix + NodeLabel(
              i, *static_cast<CalculatorGraphConfig::Node*>(child));
        }
        VisitAnys(child, child_where, fn);
        continue;
      }
      google::protobuf::Any any;
      any.CopyFrom(*child);
      if (fn(any, absl::StrCat(where, where.empty() ? "" : ": ", f->name()))) {
        // Delete element i keeping the order of the others.
        for (int j = i; j + 1 < refl->FieldSize(*msg, f); ++j) {
          refl->SwapElements(msg, f, j, j + 1);
        }
        refl->RemoveLast(msg, f);
      }
    }
  }
}

// Reports unknown (unlinked) extension fields kept as bytes.
void VisitUnknownFields(const Message& msg, const std::string& where,
                        std::vector<std::string>* out) {
  const Reflection* refl = msg.GetReflection();
  const auto& unknown = refl->GetUnknownFields(msg);
  for (int i = 0; i < unknown.field_count(); ++i) {
    int number = unknown.field(i).number();
    absl::string_view name = KnownOptionsExtensionName(number);
    out->push_back(absl::StrCat(
        where, ": ", msg.GetDescriptor()->name(), " field ", number,
        name.empty() ? "" : absl::StrCat(" ([", name, ".ext])"),
        " kept as opaque bytes (options type not linked)"));
  }
  std::vector<const FieldDescriptor*> fields;
  refl->ListFields(msg, &fields);
  const std::string prefix = where.empty() ? "" : where + "/";
  for (const FieldDescriptor* f : fields) {
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (!f->is_repeated()) {
      VisitUnknownFields(refl->GetMessage(msg, f), prefix + f->name(), out);
      continue;
    }
    for (int i = 0; i < refl->FieldSize(msg, f); ++i) {
      const Message& child = refl->GetRepeatedMessage(msg, f, i);
      std::string child_where = absl::StrCat(prefix, f->name(), "[", i, "]");
      if (f->message_type() == CalculatorGraphConfig::Node::descriptor()) {
        child_where = prefix + NodeLabel(
            i, static_cast<const CalculatorGraphConfig::Node&>(child));
      }
      VisitUnknownFields(child, child_where, out);
    }
  }
}

bool IsBinaryPath(const std::string& path) {
  return absl::EndsWith(path, ".binarypb") || absl::EndsWith(path, ".pb");
}

}  // namespace

bool IsLinkedMessageType(absl::string_view full_name) {
  return DescriptorPool::generated_pool()->FindMessageTypeByName(
             std::string(full_name)) != nullptr;
}

std::string TypeNameFromUrl(absl::string_view type_url) {
  size_t slash = type_url.rfind('/');
  return std::string(slash == absl::string_view::npos ? type_url
                                                      : type_url.substr(slash + 1));
}

absl::StatusOr<CalculatorGraphConfig> ParseGraphConfigText(
    absl::string_view text, absl::string_view source_name,
    std::vector<std::string>* warnings) {
  CalculatorGraphConfig config;
  CollectingErrors collector;
  UnlinkedAnyFinder finder;
  TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  parser.SetFinder(&finder);
  parser.AllowUnknownExtension(true);
  // Needed to skip the fields of unlinked Any payloads; unknown fields of
  // linked messages are turned back into errors below.
  parser.AllowUnknownField(true);
  const bool ok = parser.ParseFromString(std::string(text), &config);
  if (!ok || !collector.errors.empty()) {
    if (collector.errors.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_name, ": could not parse the graph config"));
    }
    return absl::InvalidArgumentError(Where(source_name, collector.errors[0]));
  }
  const std::string placeholder_quoted = absl::StrCat("\"", kPlaceholderType, "\"");
  std::vector<std::string> notes;
  for (const Diagnostic& w : collector.warnings) {
    if (absl::StrContains(w.message, placeholder_quoted)) continue;
    if (!absl::StrContains(w.message, "xtension")) {
      // A typo in a field of a known message is an error, as usual.
      return absl::InvalidArgumentError(Where(source_name, w));
    }
    notes.push_back(absl::StrCat(Where(source_name, w),
                                 " (options type not linked; skipped)"));
  }
  VisitAnys(&config, "", [&](const google::protobuf::Any& any,
                             const std::string& where) {
    if (IsLinkedMessageType(TypeNameFromUrl(any.type_url()))) return false;
    notes.push_back(absl::StrCat(source_name, ": ", where, " [", any.type_url(),
                                 "] skipped (options type not linked)"));
    return true;
  });
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), notes.begin(), notes.end());
  }
  return config;
}

absl::StatusOr<CalculatorGraphConfig> ParseGraphConfigBinary(
    absl::string_view bytes, absl::string_view source_name,
    std::vector<std::string>* warnings) {
  CalculatorGraphConfig config;
  if (!config.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": not a valid binary CalculatorGraphConfig (",
        bytes.size(), " bytes; wire-format parse failed)"));
  }
  if (warnings != nullptr) {
    for (std::string& line : DescribeOpaqueOptions(config)) {
      warnings->push_back(absl::StrCat(source_name, ": ", line));
    }
  }
  return config;
}

std::vector<std::string> DescribeOpaqueOptions(
    const CalculatorGraphConfig& config) {
  std::vector<std::string> out;
  CalculatorGraphConfig copy = config;
  VisitAnys(&copy, "", [&](const google::protobuf::Any& any,
                           const std::string& where) {
    if (!IsLinkedMessageType(TypeNameFromUrl(any.type_url()))) {
      out.push_back(absl::StrCat(where, " [", any.type_url(), "] kept as ",
                                 any.value().size(),
                                 " opaque bytes (options type not linked)"));
    }
    return false;
  });
  VisitUnknownFields(config, "", &out);
  return out;
}

absl::StatusOr<CalculatorGraphConfig> LoadGraphConfigFile(
    const std::string& path, std::vector<std::string>* warnings) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read graph config file \"", path, "\""));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return absl::NotFoundError(
        absl::StrCat("error while reading graph config file \"", path, "\""));
  }
  if (IsBinaryPath(path)) {
    return ParseGraphConfigBinary(buffer.str(), path, warnings);
  }
  return ParseGraphConfigText(buffer.str(), path, warnings);
}

std::string GraphConfigToText(const CalculatorGraphConfig& config) {
  // The finder lets unlinked Any payloads print as "[type_url] { 1: 2 }"
  // (numbered fields) instead of an escaped byte string.
  UnlinkedAnyFinder finder;
  TextFormat::Printer printer;
  printer.SetExpandAny(true);
  printer.SetFinder(&finder);
  std::string text;
  printer.PrintToString(config, &text);
  // Name opaque options extensions: "  261754847 {" gets a comment.
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  for (std::string& line : lines) {
    absl::string_view s = line;
    size_t first = s.find_first_not_of(' ');
    if (first == absl::string_view::npos || !absl::EndsWith(s, " {")) continue;
    absl::string_view token = s.substr(first, s.size() - first - 2);
    int number = 0;
    if (!absl::SimpleAtoi(token, &number)) continue;
    absl::string_view name = KnownOptionsExtensionName(number);
    if (!name.empty()) absl::StrAppend(&line, "  # [", name, ".ext]");
  }
  return absl::StrJoin(lines, "\n");
}

absl::Status WriteGraphConfigFile(const std::string& path,
                                  const CalculatorGraphConfig& config) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write graph config file \"", path, "\""));
  }
  if (IsBinaryPath(path)) {
    std::string bytes;
    if (!config.SerializeToString(&bytes)) {
      return absl::InternalError(absl::StrCat("cannot serialize config for ", path));
    }
    out << bytes;
  } else {
    out << GraphConfigToText(config);
  }
  out.close();
  if (!out) {
    return absl::DataLossError(absl::StrCat("error while writing \"", path, "\""));
  }
  return absl::OkStatus();
}

}  // namespace sluice
