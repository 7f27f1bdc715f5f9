// dpsearch: the command-line front end. Argument handling and output only;
// every behaviour lives in the libraries so tests and benchmarks can call it.
// The command line itself is defined in cli/app.cc.
//
// Exit codes (DESIGN.md): 0 success, 1 query ran but matched nothing,
// 2 usage or input error, 3 index or I/O error, 4 partial cluster answer.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>

#include "cli/app.h"
#include "cli/commands.h"
#include "common/fault_injection.h"

int main(int argc, char** argv) {
  // A test hook (README "Testing failures"): rules that make file calls
  // fail as a full disk or a dying device would. It only ever adds errors.
  if (const char* spec = std::getenv("DPS_FAULTS"); spec != nullptr && *spec != '\0') {
    if (dps::Status s = dps::faults::ArmFromSpec(spec); !s.ok()) {
      std::fprintf(stderr, "dpsearch: DPS_FAULTS: %s\n", s.message().c_str());
      return dps::cli::kExitUsage;
    }
  }
  CLI::App app;
  dps::cli::BuildApp(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --help-all
    // One line, like every other error: what is wrong and where to look.
    std::fprintf(stderr, "dpsearch: %s (see dpsearch --help)\n", e.what());
    return dps::cli::kExitUsage;
  }
  return dps::cli::ExitCode();
}
