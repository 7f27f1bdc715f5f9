// dpsearch: the command-line front end. Argument handling and output only;
// every behaviour lives in the libraries so tests and benchmarks can call it.
//
// Exit codes (DESIGN.md): 0 success, 1 query ran but matched nothing,
// 2 usage or input error, 3 index or I/O error.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"dpsearch: a document-partitioned full-text search engine"};
  app.require_subcommand(1);
  // --help shows every option's default (set before any option is added:
  // subcommands copy these defaults).
  app.option_defaults()->always_capture_default();
  app.set_help_all_flag("--help-all", "Show help for every command");
  dps::cli::RegisterIngest(app);
  dps::cli::RegisterQuery(app);
  dps::cli::RegisterScan(app);
  dps::cli::RegisterStats(app);
  dps::cli::RegisterDelete(app);
  dps::cli::RegisterCompact(app);
  dps::cli::RegisterCheck(app);
  dps::cli::RegisterServe(app);
  dps::cli::RegisterBench(app);
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
