// The `sluice` command line is one CLI11 app; each layer adds its own subcommands.
// A subcommand's callback reports failure by throwing CLI::RuntimeError(exit_code)
// after printing one clear line to stderr.
#ifndef SLUICE_TOOLS_COMMANDS_H_
#define SLUICE_TOOLS_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace sluice::cli {

// run, validate, expand, viz (tools/graph_commands.cc).
void AddGraphCommands(CLI::App& app);
// model-info, bench-model (tools/model_commands.cc).
void AddModelCommands(CLI::App& app);

}  // namespace sluice::cli

#endif  // SLUICE_TOOLS_COMMANDS_H_
