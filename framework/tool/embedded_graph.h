// Static registration of graph texts embedded at build time by the CMake
// function sluice_embed_graphs (framework/tool/EmbedGraphs.cmake). The text is
// parsed when the subgraph is first instantiated, not at static-init time, so
// that every options type linked into the binary is known by then; a parse
// error is reported at expansion, naming the original file.
#ifndef SLUICE_FRAMEWORK_TOOL_EMBEDDED_GRAPH_H_
#define SLUICE_FRAMEWORK_TOOL_EMBEDDED_GRAPH_H_

#include <cstddef>

namespace sluice {

struct EmbeddedGraphRegistrar {
  // Registers `text` (not NUL-terminated, `size` bytes) into
  // SubgraphRegistry::Get() under `name`; `source` is the original path.
  EmbeddedGraphRegistrar(const char* name, const char* source, const char* text,
                         std::size_t size);
};

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_TOOL_EMBEDDED_GRAPH_H_
