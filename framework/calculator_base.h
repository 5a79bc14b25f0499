// CalculatorBase: the base class of every calculator (GetContract + Open/Process/Close), and StatusStop.
#ifndef SLUICE_FRAMEWORK_CALCULATOR_BASE_H_
#define SLUICE_FRAMEWORK_CALCULATOR_BASE_H_

#include "absl/status/status.h"
#include "framework/calculator_context.h"
#include "framework/calculator_contract.h"
#include "framework/timestamp.h"

namespace sluice {

// A subclass also defines
//   static absl::Status GetContract(CalculatorContract* cc);
// and is registered with REGISTER_CALCULATOR(ClassName) (calculator_registry.h).
class CalculatorBase {
 public:
  virtual ~CalculatorBase() = default;

  // Once per run, after all input side packets arrived. On error neither
  // Process nor Close is called.
  virtual absl::Status Open(CalculatorContext* cc) { return absl::OkStatus(); }
  // Per input set (or repeatedly for source nodes until StatusStop()).
  virtual absl::Status Process(CalculatorContext* cc) = 0;
  // Once per run iff Open succeeded, when inputs are done or the run ends.
  virtual absl::Status Close(CalculatorContext* cc) { return absl::OkStatus(); }

  // Source nodes with the smallest value run first. Unset (the default) means
  // the smallest next timestamp bound of the node's outputs. `cc` may be null.
  virtual Timestamp SourceProcessOrder(const CalculatorContext* cc) const;
};

// Returned by Process() of a source node when it has nothing more to emit, or by
// a non-source node to end the run gracefully.
absl::Status StatusStop();
bool IsStatusStop(const absl::Status& s);

namespace tool {
using ::sluice::StatusStop;
}  // namespace tool

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_CALCULATOR_BASE_H_
