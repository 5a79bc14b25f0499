// CalculatorGraph with the shape of the C++ class (and of MediaPipe's Python
// one). Every call that can block runs without the GIL; output callbacks take
// it only while the Python function runs, so a slow callback delays that
// stream only, and a callback's exception fails the run with its message.
#include <map>
#include <memory>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "framework/calculator_graph.h"
#include "framework/packet.h"
#include "framework/tool/graph_config_io.h"
#include "status_util.h"

namespace py = pybind11;

namespace sluice::python {
namespace {

// A Python callable that C++ threads may copy freely: the reference is
// dropped under the GIL, by whichever thread lets go last.
using SharedFunction = std::shared_ptr<py::function>;

SharedFunction Share(py::function f) {
  return SharedFunction(new py::function(std::move(f)), [](py::function* p) {
    if (!Py_IsInitialized()) return;  // interpreter gone: leak rather than crash
    py::gil_scoped_acquire gil;
    delete p;
  });
}

class PyGraph {
 public:
  explicit PyGraph(const mediapipe::CalculatorGraphConfig& config)
      : graph_(std::make_unique<CalculatorGraph>()) {
    RaiseIfError(graph_->Initialize(config));
  }
  ~PyGraph() {
    // Scheduler threads may be waiting for the GIL (callbacks): let them finish.
    py::gil_scoped_release release;
    graph_.reset();  // cancels and waits for a run still going
  }

  void ObserveOutputStream(const std::string& name, py::function callback,
                           bool observe_timestamp_bounds) {
    SharedFunction fn = Share(std::move(callback));
    RaiseIfError(graph_->ObserveOutputStream(
        name,
        [fn, name](const Packet& packet) -> absl::Status {
          py::gil_scoped_acquire gil;
          try {
            (*fn)(name, packet);
          } catch (py::error_already_set& e) {
            return absl::UnknownError(
                absl::StrCat("output stream \"", name, "\" callback raised ", e.what()));
          }
          return absl::OkStatus();
        },
        observe_timestamp_bounds));
  }

  OutputStreamPoller AddPoller(const std::string& name, bool observe_timestamp_bounds) {
    return ValueOrRaise(graph_->AddOutputStreamPoller(name, observe_timestamp_bounds));
  }

  void StartRun(const std::map<std::string, Packet>& side_packets) {
    absl::Status s;
    {
      py::gil_scoped_release release;
      s = graph_->StartRun(side_packets);
    }
    RaiseIfError(s);
  }

  void AddPacket(const std::string& stream, const Packet& packet, const py::object& timestamp) {
    Packet p = packet;
    if (!timestamp.is_none()) {
      p = py::isinstance<Timestamp>(timestamp) ? p.At(timestamp.cast<Timestamp>())
                                               : p.At(Timestamp(timestamp.cast<int64_t>()));
    }
    absl::Status s;
    {
      py::gil_scoped_release release;  // may wait for room in the stream
      s = graph_->AddPacketToInputStream(stream, std::move(p));
      // Refused because the run already failed (e.g. a callback raised):
      // report that failure, which says why, rather than "not running".
      if (!s.ok() && graph_->HasError()) {
        absl::Status run = graph_->WaitUntilDone();
        if (!run.ok()) s = run;
      }
    }
    RaiseIfError(s);
  }

  // Runs `f` (a graph call returning a Status) without the GIL, then raises.
  template <typename F>
  void Unlocked(F f) {
    absl::Status s;
    {
      py::gil_scoped_release release;
      s = f(*graph_);
    }
    RaiseIfError(s);
  }

  CalculatorGraph& graph() { return *graph_; }

 private:
  std::unique_ptr<CalculatorGraph> graph_;
};

mediapipe::CalculatorGraphConfig ConfigFromArgs(const py::object& graph_config,
                                                const py::object& binary_graph_path,
                                                const py::object& graph_config_path) {
  const int given = !graph_config.is_none() + !binary_graph_path.is_none() +
                    !graph_config_path.is_none();
  if (given != 1) {
    throw py::value_error(
        "CalculatorGraph: give exactly one of graph_config (text or a "
        "CalculatorGraphConfig message), binary_graph_path or graph_config_path");
  }
  if (!binary_graph_path.is_none() || !graph_config_path.is_none()) {
    const std::string path = py::str(py::handle(binary_graph_path.is_none() ? graph_config_path : binary_graph_path)).cast<std::string>();
    return ValueOrRaise(LoadGraphConfigFile(path));
  }
  if (py::isinstance<py::str>(graph_config)) {
    return ValueOrRaise(ParseGraphConfigText(graph_config.cast<std::string>(), "graph_config"));
  }
  if (py::isinstance<py::bytes>(graph_config)) {
    return ValueOrRaise(ParseGraphConfigBinary(graph_config.cast<std::string>(), "graph_config"));
  }
  if (py::hasattr(graph_config, "SerializeToString")) {  // a Python protobuf message
    const std::string bytes = graph_config.attr("SerializeToString")().cast<std::string>();
    return ValueOrRaise(ParseGraphConfigBinary(bytes, "graph_config"));
  }
  throw py::type_error("graph_config must be text (str), wire-format bytes or a "
                       "CalculatorGraphConfig message");
}

}  // namespace

void InitGraph(py::module_& m) {
  py::class_<OutputStreamPoller>(m, "OutputStreamPoller", "Pulls the packets of one output stream.")
      .def("next",
           [](OutputStreamPoller& self) -> py::object {
             Packet p;
             bool ok;
             {
               py::gil_scoped_release release;
               ok = self.Next(&p);
             }
             if (!ok) return py::none();
             return py::cast(std::move(p));
           },
           "The next packet (blocks); None once the stream is done.")
      .def("queue_size", &OutputStreamPoller::QueueSize)
      .def("set_max_queue_size", &OutputStreamPoller::SetMaxQueueSize, py::arg("n"))
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", [](OutputStreamPoller& self) {
        Packet p;
        bool ok;
        {
          py::gil_scoped_release release;
          ok = self.Next(&p);
        }
        if (!ok) throw py::stop_iteration();
        return p;
      });

  py::class_<PyGraph>(m, "CalculatorGraph", "A graph of calculators (MediaPipe's CalculatorGraph).")
      .def(py::init([](py::object graph_config, py::object binary_graph_path,
                       py::object graph_config_path) {
             return std::make_unique<PyGraph>(
                 ConfigFromArgs(graph_config, binary_graph_path, graph_config_path));
           }),
           py::kw_only(), py::arg("graph_config") = py::none(),
           py::arg("binary_graph_path") = py::none(), py::arg("graph_config_path") = py::none())
      .def_property_readonly("text_config",
                             [](PyGraph& g) { return GraphConfigToText(g.graph().Config()); })
      .def_property_readonly("binary_config", [](PyGraph& g) {
        return py::bytes(g.graph().Config().SerializeAsString());
      })
      .def("observe_output_stream", &PyGraph::ObserveOutputStream, py::arg("stream_name"),
           py::arg("packet_callback"), py::arg("observe_timestamp_bounds") = false,
           "Calls packet_callback(stream_name, packet) for every packet of the stream.")
      .def("add_output_stream_poller", &PyGraph::AddPoller, py::arg("stream_name"),
           py::arg("observe_timestamp_bounds") = false)
      .def("start_run", &PyGraph::StartRun,
           py::arg("input_side_packets") = std::map<std::string, Packet>())
      .def("add_packet_to_input_stream", &PyGraph::AddPacket, py::arg("stream"),
           py::arg("packet"), py::arg("timestamp") = py::none())
      .def("close_input_stream",
           [](PyGraph& g, const std::string& name) {
             g.Unlocked([&](CalculatorGraph& c) { return c.CloseInputStream(name); });
           },
           py::arg("stream"))
      .def("close_all_input_streams",
           [](PyGraph& g) { g.Unlocked([](CalculatorGraph& c) { return c.CloseAllInputStreams(); }); })
      .def("close_all_packet_sources",
           [](PyGraph& g) { g.Unlocked([](CalculatorGraph& c) { return c.CloseAllPacketSources(); }); })
      .def("wait_until_idle",
           [](PyGraph& g) { g.Unlocked([](CalculatorGraph& c) { return c.WaitUntilIdle(); }); })
      .def("wait_until_done",
           [](PyGraph& g) { g.Unlocked([](CalculatorGraph& c) { return c.WaitUntilDone(); }); })
      .def("cancel", [](PyGraph& g) {
        py::gil_scoped_release release;
        g.graph().Cancel();
      })
      .def("has_error", [](PyGraph& g) { return g.graph().HasError(); })
      .def("get_output_side_packet",
           [](PyGraph& g, const std::string& name) {
             return ValueOrRaise(g.graph().GetOutputSidePacket(name));
           },
           py::arg("name"));
}

}  // namespace sluice::python
