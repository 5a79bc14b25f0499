#include "framework/calculator_registry.h"

#include <algorithm>
#include <cctype>

namespace sluice {

CalculatorRegistry& CalculatorRegistry::Get() {
  static auto* registry = new CalculatorRegistry();  // never destroyed: used by static init
  return *registry;
}

bool CalculatorRegistry::Register(const std::string& name, CalculatorFactory factory) {
  std::lock_guard<std::mutex> l(mu_);
  if (!factories_.emplace(name, std::move(factory)).second) duplicates_.push_back(name);
  return true;
}

const CalculatorFactory* CalculatorRegistry::Find(const std::string& name) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    // MediaPipe configs may qualify names ("mediapipe.FooCalculator").
    auto dot = name.rfind('.');
    if (dot != std::string::npos) it = factories_.find(name.substr(dot + 1));
    auto colons = name.rfind("::");
    if (it == factories_.end() && colons != std::string::npos) {
      it = factories_.find(name.substr(colons + 2));
    }
  }
  return it == factories_.end() ? nullptr : &it->second;
}

std::vector<std::string> CalculatorRegistry::Names() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  for (const auto& kv : factories_) out.push_back(kv.first);
  return out;
}

std::vector<std::string> CalculatorRegistry::DuplicateNames() const {
  std::lock_guard<std::mutex> l(mu_);
  return duplicates_;
}

int EditDistance(const std::string& a, const std::string& b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string CalculatorRegistry::ClosestName(const std::string& name) const {
  std::string best;
  int best_d = 1 << 30;
  for (const std::string& n : Names()) {
    int d = EditDistance(name, n);
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  // Only suggest plausible typos: at most a third of the name changed.
  return best_d <= std::max<int>(2, static_cast<int>(name.size()) / 3) ? best : "";
}

}  // namespace sluice
