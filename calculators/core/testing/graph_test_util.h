// Helpers for calculator tests: build a graph from a pbtxt string, collect the
// packets of its streams, and read typed values out of them.
#ifndef SLUICE_CALCULATORS_CORE_TESTING_GRAPH_TEST_UTIL_H_
#define SLUICE_CALCULATORS_CORE_TESTING_GRAPH_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/calculator_graph.h"
#include "framework/packet.h"
#include "proto/calculator.pb.h"

namespace sluice {
namespace testing {

// Parses a text-format CalculatorGraphConfig with the config layer's parser
// (options of types not linked in are skipped, not errors).
absl::StatusOr<mediapipe::CalculatorGraphConfig> ParseConfig(const std::string& text);

// Records every packet of one graph stream, thread-safely (observer callbacks
// run on scheduler threads).
class PacketCollector {
 public:
  // Must be called between Initialize and StartRun.
  absl::Status Attach(CalculatorGraph* graph, const std::string& stream,
                      bool observe_bounds = false);

  std::vector<Packet> Packets() const;
  // Raw timestamp values of the collected packets.
  std::vector<int64_t> Timestamps() const;
  size_t Size() const;
  void Clear();

  // Payloads of the non-empty packets, in arrival order.
  template <typename T>
  std::vector<T> Values() const {
    std::vector<T> out;
    for (const Packet& p : Packets()) {
      if (!p.IsEmpty()) out.push_back(p.Get<T>());
    }
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Packet> packets_;
};

// Initialize()s `graph` from `text` and attaches one collector per listed
// output stream (collectors are returned in the same order).
absl::StatusOr<std::vector<std::unique_ptr<PacketCollector>>> InitGraphWithCollectors(
    CalculatorGraph* graph, const std::string& text, const std::vector<std::string>& streams);

}  // namespace testing
}  // namespace sluice

#endif  // SLUICE_CALCULATORS_CORE_TESTING_GRAPH_TEST_UTIL_H_
