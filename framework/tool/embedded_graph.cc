#include "framework/tool/embedded_graph.h"

#include <memory>
#include <string>

#include "framework/tool/graph_config_io.h"
#include "framework/tool/subgraph_registry.h"

namespace sluice {

EmbeddedGraphRegistrar::EmbeddedGraphRegistrar(const char* name, const char* source,
                                               const char* text, std::size_t size) {
  auto body = std::make_shared<const std::string>(text, size);
  std::string source_name = source;
  // Name and factory are non-empty, so registration cannot fail.
  SubgraphRegistry::Get()
      .RegisterFactory(name,
                       [body, source_name](const mediapipe::CalculatorGraphConfig::Node&) {
                         return ParseGraphConfigText(*body, source_name);
                       })
      .IgnoreError();
}

}  // namespace sluice
