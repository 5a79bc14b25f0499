// Calculator registry: REGISTER_CALCULATOR(ClassName) makes a calculator available by class name.
#ifndef SLUICE_FRAMEWORK_CALCULATOR_REGISTRY_H_
#define SLUICE_FRAMEWORK_CALCULATOR_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/calculator_base.h"

namespace sluice {

struct CalculatorFactory {
  std::function<absl::Status(CalculatorContract*)> get_contract;
  std::function<std::unique_ptr<CalculatorBase>()> create;
};

class CalculatorRegistry {
 public:
  static CalculatorRegistry& Get();
  // Returns true; a second registration of a name is ignored (and reported by
  // DuplicateNames()).
  bool Register(const std::string& name, CalculatorFactory factory);
  // nullptr when unknown.
  const CalculatorFactory* Find(const std::string& name) const;
  bool IsRegistered(const std::string& name) const { return Find(name) != nullptr; }
  std::vector<std::string> Names() const;
  std::vector<std::string> DuplicateNames() const;
  // The registered name closest to `name` (edit distance), "" if none is close.
  std::string ClosestName(const std::string& name) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, CalculatorFactory> factories_;
  std::vector<std::string> duplicates_;
};

// Edit distance (case-insensitive), for "did you mean" hints.
int EditDistance(const std::string& a, const std::string& b);

}  // namespace sluice

#define SLUICE_REGISTRY_CONCAT_INNER_(a, b) a##b
#define SLUICE_REGISTRY_CONCAT_(a, b) SLUICE_REGISTRY_CONCAT_INNER_(a, b)

// Registers `name` (a class deriving CalculatorBase, visible unqualified here)
// under its class name. Libraries with registrations must be linked whole.
#define REGISTER_CALCULATOR(name)                                                     \
  static const bool SLUICE_REGISTRY_CONCAT_(sluice_calculator_registered_, __COUNTER__) = \
      ::sluice::CalculatorRegistry::Get().Register(                                   \
          #name, ::sluice::CalculatorFactory{                                         \
                     [](::sluice::CalculatorContract* cc) { return name::GetContract(cc); }, \
                     []() -> std::unique_ptr<::sluice::CalculatorBase> {              \
                       return std::make_unique<name>();                               \
                     }})

#endif  // SLUICE_FRAMEWORK_CALCULATOR_REGISTRY_H_
