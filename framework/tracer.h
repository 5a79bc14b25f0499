// Tracer: per-node invocation timings; writes Chrome/Perfetto trace JSON and a text summary.
#ifndef SLUICE_FRAMEWORK_TRACER_H_
#define SLUICE_FRAMEWORK_TRACER_H_

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/timestamp.h"

namespace sluice {

class Tracer {
 public:
  enum class Kind : uint8_t { kOpen, kProcess, kClose };
  struct Event {
    int node;
    Kind kind;
    Timestamp input_ts;
    int64_t start_us;  // since the tracer was created
    int64_t end_us;
    uint32_t thread;
  };

  explicit Tracer(std::vector<std::string> node_names);
  int64_t NowUs() const;
  void Record(int node, Kind kind, Timestamp input_ts, int64_t start_us, int64_t end_us);
  std::vector<Event> Events() const;
  void Clear();

  // Chrome trace-event JSON (open in chrome://tracing or ui.perfetto.dev).
  absl::Status WriteChromeTrace(const std::string& path) const;
  std::string ChromeTraceJson() const;
  // Per node: Process count, mean, p50, p99 (microseconds).
  std::string Summary() const;

 private:
  std::vector<std::string> names_;
  std::chrono::steady_clock::time_point t0_;
  mutable std::mutex mu_;
  std::vector<Event> events_;
};

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_TRACER_H_
