// Helpers for runtime tests: parse a config, collect a stream's packets.
#ifndef SLUICE_FRAMEWORK_TESTING_GRAPH_TEST_UTIL_H_
#define SLUICE_FRAMEWORK_TESTING_GRAPH_TEST_UTIL_H_

#include <mutex>
#include <string>
#include <vector>

#include "framework/calculator_graph.h"
#include "framework/tool/graph_config_io.h"
#include "gtest/gtest.h"

namespace sluice {
namespace testing {

inline mediapipe::CalculatorGraphConfig ParseConfigOrDie(const std::string& text) {
  auto c = ParseGraphConfigText(text);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : mediapipe::CalculatorGraphConfig();
}

// Thread-safe list of the packets observed on one stream.
class Collector {
 public:
  absl::Status Observe(CalculatorGraph* g, const std::string& stream, bool bounds = false) {
    return g->ObserveOutputStream(
        stream,
        [this](const Packet& p) {
          std::lock_guard<std::mutex> l(mu_);
          packets_.push_back(p);
          return absl::OkStatus();
        },
        bounds);
  }
  std::vector<Packet> Packets() const {
    std::lock_guard<std::mutex> l(mu_);
    return packets_;
  }
  size_t Size() const {
    std::lock_guard<std::mutex> l(mu_);
    return packets_.size();
  }
  // Int payloads ("." for empty packets), as "ts:value" strings.
  std::vector<std::string> Strings() const {
    std::vector<std::string> out;
    for (const Packet& p : Packets()) {
      out.push_back(std::to_string(p.Timestamp().Value()) + ":" +
                    (p.IsEmpty() ? "." : std::to_string(p.Get<int>())));
    }
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Packet> packets_;
};

}  // namespace testing
}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_TESTING_GRAPH_TEST_UTIL_H_
