#include "calculators/core/testing/graph_test_util.h"

#include <utility>

#include "framework/tool/graph_config_io.h"
#include "util/status_macros.h"

namespace sluice {
namespace testing {

absl::StatusOr<mediapipe::CalculatorGraphConfig> ParseConfig(const std::string& text) {
  return ParseGraphConfigText(text, "<test graph>");
}

absl::Status PacketCollector::Attach(CalculatorGraph* graph, const std::string& stream,
                                     bool observe_bounds) {
  return graph->ObserveOutputStream(
      stream,
      [this](const Packet& p) {
        std::lock_guard<std::mutex> l(mu_);
        packets_.push_back(p);
        return absl::OkStatus();
      },
      observe_bounds);
}

std::vector<Packet> PacketCollector::Packets() const {
  std::lock_guard<std::mutex> l(mu_);
  return packets_;
}

std::vector<int64_t> PacketCollector::Timestamps() const {
  std::vector<int64_t> out;
  for (const Packet& p : Packets()) out.push_back(p.Timestamp().Value());
  return out;
}

size_t PacketCollector::Size() const {
  std::lock_guard<std::mutex> l(mu_);
  return packets_.size();
}

void PacketCollector::Clear() {
  std::lock_guard<std::mutex> l(mu_);
  packets_.clear();
}

absl::StatusOr<std::vector<std::unique_ptr<PacketCollector>>> InitGraphWithCollectors(
    CalculatorGraph* graph, const std::string& text, const std::vector<std::string>& streams) {
  ASSIGN_OR_RETURN(mediapipe::CalculatorGraphConfig config, ParseConfig(text));
  RETURN_IF_ERROR(graph->Initialize(config));
  std::vector<std::unique_ptr<PacketCollector>> out;
  for (const std::string& s : streams) {
    out.push_back(std::make_unique<PacketCollector>());
    RETURN_IF_ERROR(out.back()->Attach(graph, s));
  }
  return out;
}

}  // namespace testing
}  // namespace sluice
