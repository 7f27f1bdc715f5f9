// The whole of dpsearch's main(), in the cli library: main.cc stays a
// one-line file that does not include CLI11, whose inline code is then
// compiled once with the rest of cli/ (a unity batch) instead of again for
// main.cc alone.
#pragma once

namespace dps::cli {

// Arms DPS_FAULTS, parses the command line, runs the subcommand; returns
// the exit code (cli/commands.h).
int Run(int argc, char** argv);

}  // namespace dps::cli
