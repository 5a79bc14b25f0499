#include "util/resource_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;

struct EmbeddedStore {
  std::mutex mu;
  // unique_ptr: FindEmbeddedResource hands out pointers that must stay valid
  // when other resources are registered later.
  std::map<std::string, std::unique_ptr<std::string>, std::less<>> files;
};

EmbeddedStore& Store() {
  static auto* store = new EmbeddedStore;  // never destroyed: used at static init/exit
  return *store;
}

bool IsFile(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// Tries the places of steps 1-3 in order; fills `tried`. Empty if none exists.
std::string FindFile(const std::string& path, bool model_dirs, std::vector<std::string>* tried) {
  tried->push_back(path);
  if (IsFile(path)) return path;
  if (!path.empty() && path[0] != '/') {
    if (const char* roots = std::getenv("SLUICE_RESOURCE_DIR"); roots != nullptr) {
      for (absl::string_view root : absl::StrSplit(roots, ':', absl::SkipEmpty())) {
        std::string candidate = (fs::path(std::string(root)) / path).string();
        tried->push_back(candidate);
        if (IsFile(candidate)) return candidate;
      }
    }
  }
  if (model_dirs) {
    const std::string file = fs::path(path).filename().string();
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("SLUICE_MODELS_DIR"); env != nullptr && *env) {
      dirs.push_back(env);
    }
    dirs.push_back("models");
    // The checkout's models/ seen from the binary (<repo>/build*/<dir>/exe),
    // so an installed or built CLI finds them from any working directory.
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    const fs::path checkout =
        !ec && exe.has_parent_path() ? exe.parent_path().parent_path().parent_path() : fs::path();
    if (!checkout.empty()) dirs.push_back((checkout / "models").string());
    if (const char* shared = std::getenv("SLUICE_SHARED_DIR"); shared != nullptr && *shared) {
      dirs.push_back((fs::path(shared) / "models").string());
    }
    dirs.push_back("../shared/models");
    // The shared folder beside the checkout (a development layout), found from
    // any working directory.
    if (!checkout.empty()) dirs.push_back((checkout.parent_path() / "shared" / "models").string());
    for (const std::string& dir : dirs) {
      std::string candidate = (fs::path(dir) / file).string();
      tried->push_back(candidate);
      if (IsFile(candidate)) return candidate;
    }
  }
  return "";
}

bool IsModel(const std::string& path) { return absl::EndsWith(path, ".tflite"); }

absl::Status NotFound(const std::string& what, const std::string& path,
                      const std::vector<std::string>& tried, bool model) {
  return absl::NotFoundError(absl::StrCat(
      what, " \"", path, "\" not found (looked at: ", absl::StrJoin(tried, ", "), "); ",
      model ? "run tools/fetch_models.sh or set SLUICE_MODELS_DIR"
            : "set SLUICE_RESOURCE_DIR to the folder holding mediapipe/..."));
}

}  // namespace

absl::StatusOr<std::string> ResolveResourcePath(const std::string& path) {
  std::vector<std::string> tried;
  std::string found = FindFile(path, IsModel(path), &tried);
  if (!found.empty()) return found;
  return NotFound("resource", path, tried, IsModel(path));
}

absl::StatusOr<std::string> ResolveModelPath(const std::string& model_path) {
  std::vector<std::string> tried;
  std::string found = FindFile(model_path, /*model_dirs=*/true, &tried);
  if (!found.empty()) return found;
  return NotFound("model", model_path, tried, /*model=*/true);
}

absl::StatusOr<std::string> ReadResource(const std::string& path) {
  std::vector<std::string> tried;
  const std::string found = FindFile(path, IsModel(path), &tried);
  if (!found.empty()) {
    std::ifstream in(found, std::ios::binary);
    std::ostringstream contents;
    contents << in.rdbuf();
    if (!in.good() && !in.eof()) {
      return absl::UnavailableError(absl::StrCat("cannot read resource file \"", found, "\""));
    }
    return contents.str();
  }
  if (const std::string* embedded = FindEmbeddedResource(path)) return *embedded;
  tried.push_back("<embedded resources>");
  return NotFound("resource", path, tried, IsModel(path));
}

void RegisterEmbeddedResource(std::string path, std::string contents) {
  EmbeddedStore& store = Store();
  std::lock_guard<std::mutex> lock(store.mu);
  store.files[std::move(path)] = std::make_unique<std::string>(std::move(contents));
}

const std::string* FindEmbeddedResource(absl::string_view path) {
  EmbeddedStore& store = Store();
  std::lock_guard<std::mutex> lock(store.mu);
  auto it = store.files.find(path);
  return it == store.files.end() ? nullptr : it->second.get();
}

EmbeddedResourceRegistrar::EmbeddedResourceRegistrar(const char* path,
                                                     absl::string_view contents) {
  RegisterEmbeddedResource(path, std::string(contents));
}

}  // namespace sluice
