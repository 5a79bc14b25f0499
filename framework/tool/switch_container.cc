#include "framework/tool/switch_container.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "framework/tool/options_util.h"
#include "framework/tool/subgraph_registry.h"
#include "framework/tool/switch_container.pb.h"
#include "framework/tool/tag_map.h"

namespace sluice {
namespace {

using mediapipe::CalculatorGraphConfig;
using mediapipe::SwitchContainerOptions;
using Node = CalculatorGraphConfig::Node;
using Ports = google::protobuf::RepeatedPtrField<std::string>;

constexpr char kSelectTag[] = "SELECT";
constexpr char kEnableTag[] = "ENABLE";
// Interface names of the selection inputs inside the expanded subgraph.
constexpr char kSelectName[] = "gate_select";
constexpr char kEnableName[] = "gate_enable";

// One container port: (tag, index) and the stream's name, made unique within
// its list (a stream bound to two tags gets "name_2" inside the container).
struct Port {
  std::string tag;
  int index = 0;
  std::string name;
};

std::string Spec(absl::string_view tag, int index, absl::string_view name) {
  return tag.empty() ? std::string(name) : absl::StrCat(tag, ":", index, ":", name);
}

std::string ChannelName(absl::string_view name, int channel) {
  return absl::StrCat("c", channel, "__", name);
}

bool IsSelection(const std::string& tag) { return tag == kSelectTag || tag == kEnableTag; }

// The container's ports of one list, except SELECT/ENABLE, in (tag, index) order.
absl::StatusOr<std::vector<Port>> ParsePorts(const Ports& specs, absl::string_view what) {
  std::map<std::pair<std::string, int>, std::string> by_tag_index;
  std::set<std::string> used;
  int untagged = 0;
  for (const std::string& spec : specs) {
    auto parsed = ParseTagIndexName(spec);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("SwitchContainer ", what, " \"", spec, "\": ", parsed.status().message()));
    }
    if (IsSelection(parsed->tag)) continue;
    int index = parsed->index >= 0 ? parsed->index : untagged++;
    std::string name = parsed->name;
    for (int n = 2; used.count(name) > 0; ++n) name = absl::StrCat(parsed->name, "_", n);
    used.insert(name);
    if (!by_tag_index.emplace(std::make_pair(parsed->tag, index), name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("SwitchContainer ", what, " \"", spec, "\": tag and index used twice"));
    }
  }
  std::vector<Port> ports;
  for (auto& [key, name] : by_tag_index) ports.push_back({key.first, key.second, name});
  return ports;
}

int CountTag(const Ports& specs, absl::string_view tag) {
  int n = 0;
  for (const std::string& spec : specs) {
    auto parsed = ParseTagIndexName(spec);
    if (parsed.ok() && parsed->tag == tag) ++n;
  }
  return n;
}

absl::Status Validate(const Node& node, const SwitchContainerOptions& options) {
  if (options.has_select() && options.has_enable()) {
    return absl::InvalidArgumentError(
        "SwitchContainer: set only one of the options 'select' and 'enable'");
  }
  for (const Ports* list : {&node.input_stream(), &node.input_side_packet()}) {
    if (CountTag(*list, kSelectTag) + CountTag(*list, kEnableTag) > 1) {
      return absl::InvalidArgumentError(
          "SwitchContainer: give only one of the inputs SELECT and ENABLE");
    }
  }
  if (options.contained_node_size() == 0) {
    return absl::InvalidArgumentError("SwitchContainer: no contained_node in its options");
  }
  return absl::OkStatus();
}

// Demux and mux carry the container's options minus the contained nodes.
void CopyOptionsWithoutContainedNodes(const Node& container, Node* dest) {
  if (container.has_options()) *dest->mutable_options() = container.options();
  *dest->mutable_node_options() = container.node_options();
  if (dest->has_options() && dest->options().HasExtension(SwitchContainerOptions::ext)) {
    dest->mutable_options()->MutableExtension(SwitchContainerOptions::ext)->clear_contained_node();
  }
  for (google::protobuf::Any& any : *dest->mutable_node_options()) {
    SwitchContainerOptions unpacked;
    if (any.Is<SwitchContainerOptions>() && any.UnpackTo(&unpacked)) {
      unpacked.clear_contained_node();
      any.PackFrom(unpacked);
    }
  }
}

Node* AddSwitchNode(const char* calculator, const Node& container, CalculatorGraphConfig* config) {
  Node* node = config->add_node();
  node->set_calculator(calculator);
  CopyOptionsWithoutContainedNodes(container, node);
  node->add_input_stream(Spec(kSelectTag, 0, kSelectName));
  node->add_input_stream(Spec(kEnableTag, 0, kEnableName));
  node->add_input_side_packet(Spec(kSelectTag, 0, kSelectName));
  node->add_input_side_packet(Spec(kEnableTag, 0, kEnableName));
  return node;
}

const SubgraphFactoryRegistrar kRegistrar("SwitchContainer", &ExpandSwitchContainer);

}  // namespace

std::string SwitchChannelTag(absl::string_view tag, int channel) {
  return absl::StrCat("C", channel, "__", tag);
}

bool ParseSwitchChannelTag(absl::string_view channel_tag, int* channel, std::string* tag) {
  if (!absl::StartsWith(channel_tag, "C")) return false;
  const size_t sep = channel_tag.find("__");
  if (sep == absl::string_view::npos) return false;
  int c = 0;
  if (!absl::SimpleAtoi(channel_tag.substr(1, sep - 1), &c) || c < 0) return false;
  *channel = c;
  *tag = std::string(channel_tag.substr(sep + 2));
  return true;
}

absl::StatusOr<CalculatorGraphConfig> ExpandSwitchContainer(const Node& container) {
  auto options = GetNodeOptions<SwitchContainerOptions>(container);
  if (!options.ok()) return options.status();
  if (absl::Status s = Validate(container, *options); !s.ok()) return s;
  auto inputs = ParsePorts(container.input_stream(), "input_stream");
  auto outputs = ParsePorts(container.output_stream(), "output_stream");
  auto side_inputs = ParsePorts(container.input_side_packet(), "input_side_packet");
  auto side_outputs = ParsePorts(container.output_side_packet(), "output_side_packet");
  for (const auto* ports : {&inputs, &outputs, &side_inputs, &side_outputs}) {
    if (!ports->ok()) return ports->status();
  }

  CalculatorGraphConfig config;
  // The subgraph's interface: selection inputs, then the container's ports.
  config.add_input_stream(Spec(kSelectTag, 0, kSelectName));
  config.add_input_stream(Spec(kEnableTag, 0, kEnableName));
  config.add_input_side_packet(Spec(kSelectTag, 0, kSelectName));
  config.add_input_side_packet(Spec(kEnableTag, 0, kEnableName));
  Node* demux = AddSwitchNode("SwitchDemuxCalculator", container, &config);
  Node* mux = AddSwitchNode("SwitchMuxCalculator", container, &config);
  for (const Port& p : *inputs) {
    config.add_input_stream(Spec(p.tag, p.index, p.name));
    demux->add_input_stream(Spec(p.tag, p.index, p.name));
  }
  for (const Port& p : *outputs) {
    config.add_output_stream(Spec(p.tag, p.index, p.name));
    mux->add_output_stream(Spec(p.tag, p.index, p.name));
  }
  for (const Port& p : *side_inputs) {
    config.add_input_side_packet(Spec(p.tag, p.index, p.name));
    demux->add_input_side_packet(Spec(p.tag, p.index, p.name));
  }
  for (const Port& p : *side_outputs) {
    config.add_output_side_packet(Spec(p.tag, p.index, p.name));
    mux->add_output_side_packet(Spec(p.tag, p.index, p.name));
  }

  // Channel c: the c-th contained node, wired to demux/mux through c<c>__ names.
  // Untagged ports keep the tag "" on the contained node and become "C<c>__".
  for (int c = 0; c < options->contained_node_size(); ++c) {
    Node* node = config.add_node();
    *node = options->contained_node(c);
    for (const Port& p : *inputs) {
      const std::string name = ChannelName(p.name, c);
      demux->add_output_stream(Spec(SwitchChannelTag(p.tag, c), p.index, name));
      node->add_input_stream(Spec(p.tag, p.index, name));
    }
    for (const Port& p : *outputs) {
      const std::string name = ChannelName(p.name, c);
      node->add_output_stream(Spec(p.tag, p.index, name));
      mux->add_input_stream(Spec(SwitchChannelTag(p.tag, c), p.index, name));
    }
    for (const Port& p : *side_inputs) {
      const std::string name = ChannelName(p.name, c);
      demux->add_output_side_packet(Spec(SwitchChannelTag(p.tag, c), p.index, name));
      node->add_input_side_packet(Spec(p.tag, p.index, name));
    }
    for (const Port& p : *side_outputs) {
      const std::string name = ChannelName(p.name, c);
      node->add_output_side_packet(Spec(p.tag, p.index, name));
      mux->add_input_side_packet(Spec(SwitchChannelTag(p.tag, c), p.index, name));
    }
  }
  return config;
}

}  // namespace sluice
