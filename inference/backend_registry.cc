// The backend registry and the one explicit list of built-in backends. Each
// optional backend target defines SLUICE_HAVE_<NAME>_BACKEND on this library
// (inference/CMakeLists.txt) and a Create<Name>Backend() factory.
#include <algorithm>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "inference/backend.h"
#include "inference/reference/reference_kernels.h"
#if SLUICE_HAVE_XNNPACK_BACKEND
#include "inference/xnnpack/xnnpack_backend.h"
#endif
#if SLUICE_HAVE_CUDA_BACKEND
#include "inference/cuda/cuda_backend.h"
#endif

namespace sluice::inference {
namespace {

// Best first: SelectBackend("auto") takes the first available one.
constexpr std::string_view kPreference[] = {"cuda", "xnnpack", "reference"};

struct Registry {
  std::mutex mu;
  std::vector<std::unique_ptr<Backend>> backends;
};

Registry& GetRegistry() {
  static Registry* r = [] {
    auto* reg = new Registry;
    reg->backends.push_back(reference::CreateReferenceBackend());
#if SLUICE_HAVE_XNNPACK_BACKEND
    reg->backends.push_back(xnn::CreateXnnpackBackend());
#endif
#if SLUICE_HAVE_CUDA_BACKEND
    reg->backends.push_back(cuda::CreateCudaBackend());
#endif
    return reg;
  }();
  return *r;
}

int Rank(std::string_view name) {
  for (size_t i = 0; i < std::size(kPreference); ++i) {
    if (kPreference[i] == name) return static_cast<int>(i);
  }
  return static_cast<int>(std::size(kPreference));
}

}  // namespace

void RegisterBackend(std::unique_ptr<Backend> backend) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto& b : r.backends) {
    if (b->Name() == backend->Name()) {
      b = std::move(backend);
      return;
    }
  }
  r.backends.push_back(std::move(backend));
}

const Backend* FindBackend(std::string_view name) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& b : r.backends) {
    if (b->Name() == name) return b.get();
  }
  return nullptr;
}

std::vector<std::string> BuiltBackendNames() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& b : r.backends) names.emplace_back(b->Name());
  std::stable_sort(names.begin(), names.end(),
                   [](const std::string& a, const std::string& b) { return Rank(a) < Rank(b); });
  return names;
}

absl::StatusOr<const Backend*> SelectBackend(std::string_view name) {
  if (name.empty() || name == "auto") {
    for (const std::string& n : BuiltBackendNames()) {
      const Backend* b = FindBackend(n);
      if (b != nullptr && b->IsAvailable()) return b;
    }
    return absl::NotFoundError("no inference backend is available");
  }
  const Backend* b = FindBackend(name);
  if (b == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "inference backend '", std::string(name),
        "' is not built into this binary (built: ", absl::StrJoin(BuiltBackendNames(), ", "), ")"));
  }
  if (!b->IsAvailable()) {
    return absl::UnavailableError(absl::StrCat("inference backend '", std::string(name),
                                               "' is built but not available on this machine"));
  }
  return b;
}

}  // namespace sluice::inference
