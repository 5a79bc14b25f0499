// The `sluice` command line: one binary, one subcommand per job.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "tools/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"Sluice: real-time perception pipelines (MediaPipe-compatible graphs)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "sluice 0.1.0");
  sluice::cli::AddGraphCommands(app);
  sluice::cli::AddModelCommands(app);
  sluice::cli::AddHandsCommands(app);
  sluice::cli::AddFaceCommands(app);
  sluice::cli::AddFaceMeshCommands(app);
  sluice::cli::AddSelfieCommands(app);
  sluice::cli::AddPoseCommands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return 0;
}
