"""sluice.CalculatorGraph: config sources, streams, side packets, pollers,
error paths, and callbacks under load (GIL released, no deadlock)."""
import threading
import time

import pytest

import sluice
from sluice import packet_creator as pc
from sluice import packet_getter as pg

PASS_THROUGH = """
input_stream: "in"
output_stream: "out"
node { calculator: "PassThroughCalculator" input_stream: "in" output_stream: "out" }
"""


def run_ints(graph, n, stream="in"):
  graph.start_run()
  for t in range(n):
    graph.add_packet_to_input_stream(stream, pc.create_int(t * 10), timestamp=t)
  graph.close_all_packet_sources()
  graph.wait_until_done()


def test_observe_output_stream_in_timestamp_order():
  graph = sluice.CalculatorGraph(graph_config=PASS_THROUGH)
  seen = []
  graph.observe_output_stream("out", lambda name, p: seen.append((name, p.timestamp.value,
                                                                  pg.get_int(p))))
  run_ints(graph, 20)
  assert seen == [("out", t, t * 10) for t in range(20)]


def test_config_from_file_binary_and_message(tmp_path):
  text_path = tmp_path / "g.pbtxt"
  text_path.write_text(PASS_THROUGH)
  g1 = sluice.CalculatorGraph(graph_config_path=str(text_path))
  bin_path = tmp_path / "g.binarypb"
  bin_path.write_bytes(g1.binary_config)
  for g in (g1, sluice.CalculatorGraph(binary_graph_path=str(bin_path)),
            sluice.CalculatorGraph(graph_config=g1.binary_config)):
    out = []
    g.observe_output_stream("out", lambda _, p: out.append(pg.get_int(p)))
    run_ints(g, 3)
    assert out == [0, 10, 20]
  assert "PassThroughCalculator" in g1.text_config


def test_poller_and_packet_at():
  graph = sluice.CalculatorGraph(graph_config=PASS_THROUGH)
  poller = graph.add_output_stream_poller("out")
  graph.start_run()
  for t in range(5):
    graph.add_packet_to_input_stream("in", pc.create_string("s%d" % t).at(t))
  graph.close_input_stream("in")
  got = [(p.timestamp.value, pg.get_str(p)) for p in poller]
  graph.wait_until_done()
  assert got == [(t, "s%d" % t) for t in range(5)]
  assert poller.next() is None


def test_side_packets_in_and_out():
  graph = sluice.CalculatorGraph(graph_config="""
    input_side_packet: "side_in"
    output_stream: "out"
    node {
      calculator: "SidePacketToStreamCalculator"
      input_side_packet: "side_in"
      output_stream: "AT_PRESTREAM:out"
    }
    node {
      calculator: "ConstantSidePacketCalculator"
      output_side_packet: "PACKET:answer"
      options {
        [mediapipe.ConstantSidePacketCalculatorOptions.ext] { packet { int_value: 42 } }
      }
    }
  """)
  out = []
  graph.observe_output_stream("out", lambda _, p: out.append((p.timestamp, pg.get_str(p))))
  graph.start_run({"side_in": pc.create_string("hello")})
  graph.wait_until_done()
  assert out == [(sluice.Timestamp.PRESTREAM, "hello")]
  assert pg.get_int(graph.get_output_side_packet("answer")) == 42
  with pytest.raises(ValueError, match="nope"):
    graph.get_output_side_packet("nope")


def test_wait_until_idle_then_more_packets():
  graph = sluice.CalculatorGraph(graph_config=PASS_THROUGH)
  out = []
  graph.observe_output_stream("out", lambda _, p: out.append(pg.get_int(p)))
  graph.start_run()
  graph.add_packet_to_input_stream("in", pc.create_int(1), 1)
  graph.wait_until_idle()
  assert out == [1]
  graph.add_packet_to_input_stream("in", pc.create_int(2), 2)
  graph.close_all_packet_sources()
  graph.wait_until_done()
  assert out == [1, 2]


@pytest.mark.parametrize("config, text", [
    ('node { calculator: "NoSuchCalculator" input_stream: "a" }', "NoSuchCalculator"),
    ("node { calculator: ", "graph_config:1"),
    ('input_stream: "in"\nnode { calculator: "PassThroughCalculator" input_stream: "x" '
     'output_stream: "y" }', "x"),
])
def test_bad_config_raises_with_the_problem(config, text):
  with pytest.raises((ValueError, RuntimeError), match=text):
    sluice.CalculatorGraph(graph_config=config)


def test_config_arguments():
  with pytest.raises(ValueError, match="exactly one"):
    sluice.CalculatorGraph()
  with pytest.raises(ValueError, match="exactly one"):
    sluice.CalculatorGraph(graph_config=PASS_THROUGH, graph_config_path="x.pbtxt")
  with pytest.raises(ValueError, match="missing.pbtxt"):
    sluice.CalculatorGraph(graph_config_path="/nonexistent/missing.pbtxt")
  with pytest.raises(TypeError):
    sluice.CalculatorGraph(graph_config=12)


def test_unknown_streams():
  graph = sluice.CalculatorGraph(graph_config=PASS_THROUGH)
  with pytest.raises(ValueError, match="nope"):
    graph.observe_output_stream("nope", lambda *_: None)
  graph.start_run()
  with pytest.raises((ValueError, RuntimeError), match="nope"):
    graph.add_packet_to_input_stream("nope", pc.create_int(1), 0)
  graph.close_all_packet_sources()
  graph.wait_until_done()


def test_wrong_packet_type_fails_the_run_naming_the_node():
  graph = sluice.CalculatorGraph(graph_config="""
    input_stream: "v"
    output_stream: "first"
    node {
      name: "splitter"
      calculator: "SplitIntVectorCalculator"
      input_stream: "v"
      output_stream: "first"
      options { [mediapipe.SplitVectorCalculatorOptions.ext] { ranges { begin: 0 end: 1 } } }
    }
  """)
  graph.start_run()
  with pytest.raises((ValueError, RuntimeError)) as err:
    graph.add_packet_to_input_stream("v", pc.create_string("not a vector"), 0)
    graph.close_all_packet_sources()
    graph.wait_until_done()
  assert "splitter" in str(err.value) and "type mismatch" in str(err.value)


def test_callback_exception_fails_the_run_with_its_message():
  graph = sluice.CalculatorGraph(graph_config=PASS_THROUGH)

  def callback(name, packet):
    if pg.get_int(packet) == 30:
      raise KeyError("boom at thirty")
  graph.observe_output_stream("out", callback)
  with pytest.raises(RuntimeError, match="boom at thirty") as err:
    run_ints(graph, 10)
  assert '"out"' in str(err.value) and "KeyError" in str(err.value)
  assert graph.has_error()


def test_slow_callbacks_under_load_do_not_deadlock():
  graph = sluice.CalculatorGraph(graph_config="""
    input_stream: "in"
    output_stream: "a"
    output_stream: "b"
    node { calculator: "PassThroughCalculator" input_stream: "in" output_stream: "a" }
    node { calculator: "PassThroughCalculator" input_stream: "in" output_stream: "b" }
  """)
  n = 300
  a, b = [], []
  lock = threading.Lock()

  def slow(name, p):
    time.sleep(0.001)  # holds the GIL only while Python runs
    with lock:
      (a if name == "a" else b).append(pg.get_int(p))
  graph.observe_output_stream("a", slow)
  graph.observe_output_stream("b", slow)
  poller_graph_done = threading.Event()
  graph.start_run()

  def producer():
    for t in range(n):
      graph.add_packet_to_input_stream("in", pc.create_int(t), t)
    graph.close_all_packet_sources()
  threads = [threading.Thread(target=producer)]
  threads[0].start()
  waiter = threading.Thread(target=lambda: (graph.wait_until_done(), poller_graph_done.set()))
  waiter.start()
  assert poller_graph_done.wait(60), "graph did not finish: deadlock?"
  for t in threads + [waiter]:
    t.join()
  assert a == list(range(n)) and b == list(range(n))


def test_cancel_ends_a_run():
  graph = sluice.CalculatorGraph(graph_config=PASS_THROUGH)
  graph.start_run()
  graph.add_packet_to_input_stream("in", pc.create_int(1), 0)
  graph.cancel()
  with pytest.raises(RuntimeError, match="[Cc]ancel"):
    graph.wait_until_done()


def test_dropping_a_running_graph_is_safe():
  for _ in range(5):
    graph = sluice.CalculatorGraph(graph_config=PASS_THROUGH)
    graph.observe_output_stream("out", lambda *_: time.sleep(0.001))
    graph.start_run()
    for t in range(50):
      graph.add_packet_to_input_stream("in", pc.create_int(t), t)
    del graph  # cancels and joins without the GIL


def test_image_frames_through_a_graph_stay_zero_copy():
  import numpy as np
  graph = sluice.CalculatorGraph(graph_config=PASS_THROUGH)
  views = []
  graph.observe_output_stream("out", lambda _, p: views.append(pg.get_numpy(p)))
  graph.start_run()
  data = np.random.default_rng(0).integers(0, 255, (16, 16, 3), dtype=np.uint8)
  packet = pc.create_image_frame(data, image_format=sluice.ImageFormat.SRGB)
  graph.add_packet_to_input_stream("in", packet, 0)
  graph.close_all_packet_sources()
  graph.wait_until_done()
  assert np.shares_memory(views[0], pg.get_numpy(packet))
  np.testing.assert_array_equal(views[0], data)


def test_full_input_queue_with_slow_callback_does_not_deadlock():
  # MediaPipe's PR #2748 case: add_packet_to_input_stream waits for room in a
  # throttled graph while the callback that makes room needs the GIL.
  graph = sluice.CalculatorGraph(graph_config="max_queue_size: 2\n" + PASS_THROUGH)
  out = []

  def slow(_, p):
    time.sleep(0.002)
    out.append(pg.get_int(p))
  graph.observe_output_stream("out", slow)
  done = threading.Event()

  def run():
    run_ints(graph, 100)
    done.set()
  t = threading.Thread(target=run, daemon=True)
  t.start()
  assert done.wait(60), "deadlock: add_packet_to_input_stream vs the callback"
  t.join()
  assert out == [t * 10 for t in range(100)]
