#include "framework/tracer.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

namespace sluice {
namespace {

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

const char* KindName(Tracer::Kind k) {
  switch (k) {
    case Tracer::Kind::kOpen:
      return "Open";
    case Tracer::Kind::kProcess:
      return "Process";
    case Tracer::Kind::kClose:
      return "Close";
  }
  return "?";
}

}  // namespace

Tracer::Tracer(std::vector<std::string> node_names)
    : names_(std::move(node_names)), t0_(std::chrono::steady_clock::now()) {}

int64_t Tracer::NowUs() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               t0_)
      .count();
}

void Tracer::Record(int node, Kind kind, Timestamp input_ts, int64_t start_us, int64_t end_us) {
  uint32_t tid = static_cast<uint32_t>(std::hash<std::thread::id>()(std::this_thread::get_id()));
  std::lock_guard<std::mutex> l(mu_);
  events_.push_back(Event{node, kind, input_ts, start_us, end_us, tid});
}

std::vector<Tracer::Event> Tracer::Events() const {
  std::lock_guard<std::mutex> l(mu_);
  return events_;
}

void Tracer::Clear() {
  std::lock_guard<std::mutex> l(mu_);
  events_.clear();
}

std::string Tracer::ChromeTraceJson() const {
  std::vector<Event> events = Events();
  std::map<uint32_t, int> tids;  // small, stable thread numbers
  std::ostringstream os;
  os << "{\"traceEvents\":[";
  bool first = true;
  for (const Event& e : events) {
    int tid = tids.emplace(e.thread, static_cast<int>(tids.size()) + 1).first->second;
    const std::string& name =
        e.node >= 0 && e.node < static_cast<int>(names_.size()) ? names_[e.node] : "?";
    os << (first ? "" : ",") << "\n{\"name\":\"" << JsonEscape(name) << "\",\"cat\":\""
       << KindName(e.kind) << "\",\"ph\":\"X\",\"pid\":1,\"tid\":" << tid
       << ",\"ts\":" << e.start_us << ",\"dur\":" << std::max<int64_t>(0, e.end_us - e.start_us)
       << ",\"args\":{\"input_timestamp\":\"" << e.input_ts.DebugString() << "\"}}";
    first = false;
  }
  os << "\n],\"displayTimeUnit\":\"ms\"}\n";
  return os.str();
}

absl::Status Tracer::WriteChromeTrace(const std::string& path) const {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return absl::UnavailableError("Cannot open trace file \"" + path + "\" for writing");
  f << ChromeTraceJson();
  f.close();
  if (!f) return absl::DataLossError("Failed writing trace file \"" + path + "\"");
  return absl::OkStatus();
}

std::string Tracer::Summary() const {
  std::vector<Event> events = Events();
  std::map<int, std::vector<int64_t>> per_node;
  for (const Event& e : events) {
    if (e.kind == Kind::kProcess) per_node[e.node].push_back(e.end_us - e.start_us);
  }
  std::ostringstream os;
  os << "node                                      count    mean_us     p50_us     p99_us\n";
  for (auto& kv : per_node) {
    auto& d = kv.second;
    std::sort(d.begin(), d.end());
    double sum = 0;
    for (int64_t v : d) sum += static_cast<double>(v);
    auto pct = [&](double p) { return d[std::min(d.size() - 1, static_cast<size_t>(p * d.size()))]; };
    const std::string& name =
        kv.first >= 0 && kv.first < static_cast<int>(names_.size()) ? names_[kv.first] : "?";
    char line[256];
    std::snprintf(line, sizeof(line), "%-40s %7zu %10.1f %10lld %10lld\n", name.c_str(), d.size(),
                  sum / static_cast<double>(d.size()), static_cast<long long>(pct(0.5)),
                  static_cast<long long>(pct(0.99)));
    os << line;
  }
  return os.str();
}

}  // namespace sluice
