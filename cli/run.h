// The whole of dpsearch's main() and of the man page generator's, in the
// cli library: main.cc and cli/man/gen_man.cc stay one-line files that do
// not include CLI11, whose inline code is then compiled once per unity
// batch of the library (cli/CMakeLists.txt) instead of once more for each.
#pragma once

namespace dps::cli {

// Arms DPS_FAULTS, parses the command line, runs the subcommand; returns
// the exit code (cli/commands.h).
int Run(int argc, char** argv);

// dpsearch_man TEMPLATE OUTPUT (cli/man/gen_man.cc): writes dpsearch(1)
// from the template and BuildApp's App; 0 on success.
int RunManGenerator(int argc, char** argv);

}  // namespace dps::cli
