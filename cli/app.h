// The whole dpsearch command line as one CLI::App: every subcommand with
// its options, --help-all and --version. main() parses with it; the man
// page generator (cli/man/) walks the same App, so `--help` and
// dpsearch(1) are made from one definition.
#pragma once

#include <CLI/CLI.hpp>

namespace dps::cli {

// Adds everything to an empty `app`.
void BuildApp(CLI::App& app);

}  // namespace dps::cli
