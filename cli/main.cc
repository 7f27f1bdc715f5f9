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
    int code = app.exit(e);
    return code == 0 ? 0 : dps::cli::kExitUsage;
  }
  return dps::cli::ExitCode();
}
