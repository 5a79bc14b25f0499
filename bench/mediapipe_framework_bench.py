#!/usr/bin/env python3
"""Framework overhead of Google's MediaPipe CalculatorGraph, for comparison with
bench/framework_bench (ours).

Feeds N int packets through a chain of K PassThroughCalculator nodes and reports
packets/s (wall clock) and two figures for the cost of one calculator invocation:
the CPU-time delta (CPU(K=10) - CPU(K=1)) / (9 * N) over all threads, meant to
cancel the Python-side cost of feeding packets (noisy: Python's own work varies
between runs), and the wall-clock bound T(K=10) / (10 * N).

Needs the `mediapipe` package (0.10.21, which still exposes CalculatorGraph):
    python3 -m venv .venv-mp && .venv-mp/bin/pip install mediapipe==0.10.21
    .venv-mp/bin/python bench/mediapipe_framework_bench.py
"""
import argparse
import time

import mediapipe as mp


def chain_config(k: int, threads: int) -> str:
    lines = [f"num_threads: {threads}", 'input_stream: "s0"']
    for i in range(k):
        lines.append(
            f'node {{ calculator: "PassThroughCalculator" '
            f'input_stream: "s{i}" output_stream: "s{i + 1}" }}')
    return "\n".join(lines)


def run_chain(k: int, threads: int, n: int) -> tuple:
    graph = mp.CalculatorGraph(graph_config=chain_config(k, threads))
    received = []
    graph.observe_output_stream(f"s{k}", lambda name, packet: received.append(1))
    graph.start_run()
    start = time.perf_counter()
    cpu_start = time.process_time()
    for t in range(n):
        graph.add_packet_to_input_stream(
            "s0", mp.packet_creator.create_int(t).at(t))
    graph.close_all_packet_sources()
    graph.wait_until_done()
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    assert len(received) == n, (len(received), n)
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--packets", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"mediapipe {mp.__version__}, {args.packets} packets, best of {args.repeats}")
    for threads in (1, 2):
        r1 = [run_chain(1, threads, args.packets) for _ in range(args.repeats)]
        r10 = [run_chain(10, threads, args.packets) for _ in range(args.repeats)]
        t10 = min(r[0] for r in r10)
        cpu1 = min(r[1] for r in r1)
        cpu10 = min(r[1] for r in r10)
        per_call_us = (cpu10 - cpu1) / (9 * args.packets) * 1e6
        # Upper bound from wall time: all 10 invocations of a packet fit in 1/pps.
        bound_us = t10 / (10 * args.packets) * 1e6
        print(f"mediapipe threads={threads} chain10 packets_per_s={args.packets / t10:.0f} "
              f"per_invocation_us_cpu_delta={per_call_us:.3f} "
              f"per_invocation_us_wall_bound={bound_us:.3f}")


if __name__ == "__main__":
    main()
