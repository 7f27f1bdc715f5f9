#include "cli/run.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>

#include "cli/app.h"
#include "cli/commands.h"
#include "common/fault_injection.h"

namespace dps::cli {

int Run(int argc, char** argv) {
  // A test hook (README "Testing failures"): rules that make file calls
  // fail as a full disk or a dying device would. It only ever adds errors.
  if (const char* spec = std::getenv("DPS_FAULTS"); spec != nullptr && *spec != '\0') {
    if (Status s = faults::ArmFromSpec(spec); !s.ok()) {
      std::fprintf(stderr, "dpsearch: DPS_FAULTS: %s\n", s.message().c_str());
      return kExitUsage;
    }
  }
  CLI::App app;
  BuildApp(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --help-all
    // One line, like every other error: what is wrong and where to look.
    std::fprintf(stderr, "dpsearch: %s (see dpsearch --help)\n", e.what());
    return kExitUsage;
  }
  return ExitCode();
}

}  // namespace dps::cli
