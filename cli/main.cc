// dpsearch: the command-line front end. Argument handling and output only;
// every behaviour lives in the libraries so tests and benchmarks can call it.
// The command line itself is defined in cli/app.cc.
//
// Exit codes (DESIGN.md): 0 success, 1 query ran but matched nothing,
// 2 usage or input error, 3 index or I/O error, 4 partial cluster answer.
#include <CLI/CLI.hpp>

#include "cli/app.h"
#include "cli/commands.h"

int main(int argc, char** argv) {
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
