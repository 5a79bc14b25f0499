// Framework overhead: packets through a chain of PassThroughCalculator nodes.
//
//   build/bench/framework_bench
//
// BM_PassThroughChain/K/T: K nodes, T scheduler threads; items_per_second is
// packets through the whole chain. The CPU cost of one calculator invocation is
// (cpu_time(K=10) - cpu_time(K=1)) / 9 per packet; bench/run_framework_bench.sh
// prints it next to Google's MediaPipe measured the same way.
#include <atomic>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "framework/calculator_graph.h"
#include "framework/tool/graph_config_io.h"

namespace sluice {
namespace {

mediapipe::CalculatorGraphConfig ChainConfig(int nodes, int threads) {
  std::string text = absl::StrCat("num_threads: ", threads, "\ninput_stream: \"s0\"\n");
  for (int i = 0; i < nodes; ++i) {
    absl::StrAppend(&text, "node { calculator: \"PassThroughCalculator\" input_stream: \"s", i,
                    "\" output_stream: \"s", i + 1, "\" }\n");
  }
  return *ParseGraphConfigText(text, "chain");
}

void BM_PassThroughChain(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  constexpr int kPackets = 10000;
  for (auto _ : state) {
    CalculatorGraph graph;
    if (!graph.Initialize(ChainConfig(nodes, threads)).ok()) {
      state.SkipWithError("Initialize failed");
      return;
    }
    std::atomic<int> received{0};
    (void)graph.ObserveOutputStream(absl::StrCat("s", nodes), [&](const Packet&) {
      received.fetch_add(1, std::memory_order_relaxed);
      return absl::OkStatus();
    });
    if (!graph.StartRun().ok()) {
      state.SkipWithError("StartRun failed");
      return;
    }
    Packet value = MakePacket<int>(1);
    for (int t = 0; t < kPackets; ++t) {
      (void)graph.AddPacketToInputStream("s0", value.At(Timestamp(t)));
    }
    (void)graph.CloseAllInputStreams();
    if (!graph.WaitUntilDone().ok() || received.load() != kPackets) {
      state.SkipWithError("run failed or lost packets");
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * kPackets);
  state.counters["invocations_per_packet"] = nodes;
}

BENCHMARK(BM_PassThroughChain)
    ->ArgsProduct({{1, 10}, {1, 2}})
    ->ArgNames({"nodes", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace
}  // namespace sluice

BENCHMARK_MAIN();
