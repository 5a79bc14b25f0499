// Process-wide registry of subgraph types: graph configs registered by name
// (from .pbtxt/.binarypb files, embedded text, or C++ factories).
#ifndef SLUICE_FRAMEWORK_TOOL_SUBGRAPH_REGISTRY_H_
#define SLUICE_FRAMEWORK_TOOL_SUBGRAPH_REGISTRY_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include <mutex>
#include "proto/calculator.pb.h"

namespace sluice {

class SubgraphRegistry {
 public:
  // Builds the subgraph's config for one node instantiating it (the node
  // carries the options the subgraph may use).
  using Factory = std::function<absl::StatusOr<mediapipe::CalculatorGraphConfig>(
      const mediapipe::CalculatorGraphConfig::Node& node)>;

  SubgraphRegistry() = default;
  SubgraphRegistry(const SubgraphRegistry&) = delete;
  SubgraphRegistry& operator=(const SubgraphRegistry&) = delete;

  // The process-wide registry (what embedded graphs register into).
  static SubgraphRegistry& Get();

  // Registers `config` under `name` (not empty). Re-registering a name
  // replaces the previous entry (later files override earlier ones).
  absl::Status RegisterGraphConfig(const std::string& name,
                                   mediapipe::CalculatorGraphConfig config);
  // Loads a .pbtxt/.binarypb and registers it under `name`, by default its
  // `type:` field (error naming the file if it has none).
  absl::Status RegisterGraphFile(const std::string& path, std::string name = "");
  // A file, or every .pbtxt/.binarypb with a `type:` directly or recursively
  // under a folder (files without `type:` are skipped). Errors name the file.
  absl::Status RegisterGraphsFrom(const std::string& file_or_folder);
  // Parses text (e.g. embedded at build time) and registers it under `name`,
  // by default its `type:` field.
  absl::Status RegisterGraphText(absl::string_view text, std::string name = "",
                                 absl::string_view source_name = "<embedded>");
  absl::Status RegisterFactory(const std::string& name, Factory factory);

  bool IsRegistered(absl::string_view name) const;
  std::vector<std::string> Names() const;
  // Instantiates `name` for `node`; NotFound if unknown.
  absl::StatusOr<mediapipe::CalculatorGraphConfig> Create(
      absl::string_view name, const mediapipe::CalculatorGraphConfig::Node& node) const;
  // Where `name` came from (file path, "<embedded>", "<factory>"), "" if unknown.
  std::string SourceOf(absl::string_view name) const;
  // Warnings collected while loading files (skipped unlinked options, ...).
  std::vector<std::string> LoadWarnings() const;
  void Unregister(absl::string_view name);

 private:
  struct Entry {
    Factory factory;
    std::string source;
  };
  // std::mutex, not absl::Mutex: Debian's abseil is not TSan-instrumented, so
  // TSan would not see absl::Mutex synchronisation.
  mutable std::mutex mu_;
  std::map<std::string, Entry, std::less<>> entries_;
  std::vector<std::string> warnings_;
};

// Registers a C++ subgraph factory into SubgraphRegistry::Get() at static-init
// time, e.g. in the calculator's .cc:
//   const sluice::SubgraphFactoryRegistrar kRegistrar("InferenceCalculator", &Expand);
// (link the library whole so that the object is kept).
struct SubgraphFactoryRegistrar {
  SubgraphFactoryRegistrar(const char* name, SubgraphRegistry::Factory factory);
};

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_TOOL_SUBGRAPH_REGISTRY_H_
