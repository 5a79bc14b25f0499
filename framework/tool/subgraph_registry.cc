#include "framework/tool/subgraph_registry.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "framework/tool/graph_config_io.h"
#include "util/status_macros.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;
using mediapipe::CalculatorGraphConfig;

bool IsGraphFile(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".pbtxt" || ext == ".binarypb";
}

// "face_detection_short_range_cpu" -> "FaceDetectionShortRangeCpu".
std::string CamelCaseStem(const fs::path& p) {
  std::string out;
  for (absl::string_view part : absl::StrSplit(p.stem().string(), '_')) {
    if (part.empty()) continue;
    out += absl::ascii_toupper(part[0]);
    out.append(part.data() + 1, part.size() - 1);
  }
  return out;
}

// Cheap check so that data files in a graphs folder (not graph configs) are
// not parsed: a text graph that can be registered has a top-level `type:`.
bool TextDeclaresType(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  static const std::regex kType("^type\\s*:");
  while (std::getline(in, line)) {
    if (std::regex_search(line, kType)) return true;
  }
  return false;
}

}  // namespace

SubgraphRegistry& SubgraphRegistry::Get() {
  static SubgraphRegistry* registry = new SubgraphRegistry();
  return *registry;
}

absl::Status SubgraphRegistry::RegisterGraphConfig(const std::string& name,
                                                   CalculatorGraphConfig config) {
  if (name.empty()) {
    return absl::InvalidArgumentError("cannot register a subgraph without a name");
  }
  auto shared = std::make_shared<const CalculatorGraphConfig>(std::move(config));
  Factory factory = [shared](const CalculatorGraphConfig::Node&)
      -> absl::StatusOr<CalculatorGraphConfig> { return *shared; };
  std::lock_guard<std::mutex> lock(mu_);
  entries_[name] = Entry{std::move(factory), "<config>"};
  return absl::OkStatus();
}

absl::Status SubgraphRegistry::RegisterGraphText(absl::string_view text, std::string name,
                                                 absl::string_view source_name) {
  std::vector<std::string> warnings;
  ASSIGN_OR_RETURN(CalculatorGraphConfig config,
                   ParseGraphConfigText(text, source_name, &warnings));
  if (name.empty()) name = config.type();
  if (name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": graph has no `type:` field; give a name to register it under"));
  }
  RETURN_IF_ERROR(RegisterGraphConfig(name, std::move(config)));
  std::lock_guard<std::mutex> lock(mu_);
  entries_[name].source = std::string(source_name);
  warnings_.insert(warnings_.end(), warnings.begin(), warnings.end());
  return absl::OkStatus();
}

absl::Status SubgraphRegistry::RegisterGraphFile(const std::string& path, std::string name) {
  std::vector<std::string> warnings;
  ASSIGN_OR_RETURN(CalculatorGraphConfig config, LoadGraphConfigFile(path, &warnings));
  if (name.empty()) name = config.type();
  if (name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": graph has no `type:` field; give a name to register it under"));
  }
  RETURN_IF_ERROR(RegisterGraphConfig(name, std::move(config)));
  std::lock_guard<std::mutex> lock(mu_);
  entries_[name].source = path;
  warnings_.insert(warnings_.end(), warnings.begin(), warnings.end());
  return absl::OkStatus();
}

absl::Status SubgraphRegistry::RegisterGraphsFrom(const std::string& file_or_folder) {
  std::error_code ec;
  if (fs::is_regular_file(file_or_folder, ec)) return RegisterGraphFile(file_or_folder);
  if (!fs::is_directory(file_or_folder, ec)) {
    return absl::NotFoundError(
        absl::StrCat("no graph file or folder \"", file_or_folder, "\""));
  }
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(file_or_folder, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file(ec) && IsGraphFile(it->path())) files.push_back(it->path());
  }
  if (ec) {
    return absl::NotFoundError(
        absl::StrCat("cannot list folder \"", file_or_folder, "\": ", ec.message()));
  }
  std::sort(files.begin(), files.end());
  // Load all first: names claimed by several files are resolved like Bazel's
  // register_as usually is: the file whose CamelCase stem equals the type
  // keeps it, the others are registered under their own CamelCase stem.
  struct Loaded {
    fs::path path;
    CalculatorGraphConfig config;
  };
  std::vector<Loaded> loaded;
  std::map<std::string, std::vector<size_t>> by_type;
  std::vector<std::string> warnings;
  for (const fs::path& p : files) {
    if (p.extension() == ".pbtxt" && !TextDeclaresType(p.string())) continue;
    ASSIGN_OR_RETURN(CalculatorGraphConfig config, LoadGraphConfigFile(p.string(), &warnings));
    if (config.type().empty()) continue;
    by_type[config.type()].push_back(loaded.size());
    loaded.push_back({p, std::move(config)});
  }
  for (auto& [type, indices] : by_type) {
    size_t keeper = indices[0];
    for (size_t i : indices) {
      if (CamelCaseStem(loaded[i].path) == type) keeper = i;
    }
    for (size_t i : indices) {
      std::string name = i == keeper ? type : CamelCaseStem(loaded[i].path);
      if (i != keeper) {
        warnings.push_back(absl::StrCat(loaded[i].path.string(), ": type \"", type,
                                        "\" is also declared by ", loaded[keeper].path.string(),
                                        "; registered as \"", name, "\""));
      }
      RETURN_IF_ERROR(RegisterGraphConfig(name, loaded[i].config));
      std::lock_guard<std::mutex> lock(mu_);
      entries_[name].source = loaded[i].path.string();
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  warnings_.insert(warnings_.end(), warnings.begin(), warnings.end());
  return absl::OkStatus();
}

absl::Status SubgraphRegistry::RegisterFactory(const std::string& name, Factory factory) {
  if (name.empty() || !factory) {
    return absl::InvalidArgumentError("RegisterFactory needs a name and a factory");
  }
  std::lock_guard<std::mutex> lock(mu_);
  entries_[name] = Entry{std::move(factory), "<factory>"};
  return absl::OkStatus();
}

bool SubgraphRegistry::IsRegistered(absl::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.find(name) != entries_.end();
}

std::vector<std::string> SubgraphRegistry::Names() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& entry : entries_) names.push_back(entry.first);
  return names;
}

absl::StatusOr<CalculatorGraphConfig> SubgraphRegistry::Create(
    absl::string_view name, const CalculatorGraphConfig::Node& node) const {
  Factory factory;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      return absl::NotFoundError(absl::StrCat("no subgraph registered as \"", name, "\""));
    }
    factory = it->second.factory;
  }
  // Called without the lock: a factory may consult the registry.
  absl::StatusOr<CalculatorGraphConfig> config = factory(node);
  if (!config.ok()) {
    return absl::Status(config.status().code(),
                        absl::StrCat("subgraph \"", name, "\": ", config.status().message()));
  }
  return config;
}

std::string SubgraphRegistry::SourceOf(absl::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(name);
  return it == entries_.end() ? "" : it->second.source;
}

std::vector<std::string> SubgraphRegistry::LoadWarnings() const {
  std::lock_guard<std::mutex> lock(mu_);
  return warnings_;
}

void SubgraphRegistry::Unregister(absl::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(name);
  if (it != entries_.end()) entries_.erase(it);
}

SubgraphFactoryRegistrar::SubgraphFactoryRegistrar(const char* name,
                                                   SubgraphRegistry::Factory factory) {
  // Fails only for an empty name or factory, which a registrar never passes.
  SubgraphRegistry::Get().RegisterFactory(name, std::move(factory)).IgnoreError();
}

}  // namespace sluice
