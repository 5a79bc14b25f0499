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
// hands (tools/hands_command.cc).
void AddHandsCommands(CLI::App& app);
// face (tools/face_command.cc).
void AddFaceCommands(CLI::App& app);
// face-mesh (tools/face_mesh_command.cc).
void AddFaceMeshCommands(CLI::App& app);
// selfie (tools/selfie_command.cc).
void AddSelfieCommands(CLI::App& app);
// pose (tools/pose_command.cc).
void AddPoseCommands(CLI::App& app);

}  // namespace sluice::cli

#endif  // SLUICE_TOOLS_COMMANDS_H_
