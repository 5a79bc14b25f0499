// Small calculators (names start with "Test") and helpers for the runtime's own tests.
#ifndef SLUICE_FRAMEWORK_TESTING_TEST_CALCULATORS_H_
#define SLUICE_FRAMEWORK_TESTING_TEST_CALCULATORS_H_

#include <mutex>
#include <string>
#include <vector>

#include "framework/graph_service.h"
#include "framework/packet.h"

namespace sluice {
namespace testing {

// A thread-safe log shared with calculators through the side packet "LOG"
// (a packet holding TestLog*).
class TestLog {
 public:
  void Add(std::string s) {
    std::lock_guard<std::mutex> l(mu_);
    lines_.push_back(std::move(s));
  }
  std::vector<std::string> Lines() const {
    std::lock_guard<std::mutex> l(mu_);
    return lines_;
  }
  Packet AsPacket() { return MakePacket<TestLog*>(this); }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

// Object of the test service: a number handed to calculators.
struct TestServiceObject {
  int value = 7;
};
extern const GraphService<TestServiceObject> kTestService;

}  // namespace testing
}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_TESTING_TEST_CALCULATORS_H_
