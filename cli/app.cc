#include "cli/app.h"

#include "cli/commands.h"
#include "cli/version.h"

namespace dps::cli {

void BuildApp(CLI::App& app) {
  app.description("dpsearch: a document-partitioned full-text search engine");
  app.name("dpsearch");
  // --version is a flag of the program, not a subcommand: CLI11 answers it
  // before checking that a subcommand was given.
  app.require_subcommand(1);
  // --help shows every option's default (set before any option is added:
  // subcommands copy these defaults).
  app.option_defaults()->always_capture_default();
  app.set_help_all_flag("--help-all", "Show help for every command");
  app.set_version_flag(
      "-V,--version", [] { return VersionText(); },
      "Print the version, the index format and protocol versions, and the "
      "libraries' versions, then exit");
  RegisterIngest(app);
  RegisterQuery(app);
  RegisterScan(app);
  RegisterStats(app);
  RegisterDelete(app);
  RegisterCompact(app);
  RegisterCheck(app);
  RegisterServe(app);
  RegisterBench(app);
  RegisterSimulate(app);
  RegisterReport(app);
  RegisterCluster(app);
}

}  // namespace dps::cli
