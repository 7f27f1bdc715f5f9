// Registration of the dpsearch subcommands. Each Register* adds a CLI11
// subcommand whose callback runs the library call and records the exit code.
#pragma once

#include <CLI/CLI.hpp>

#include "common/status.h"

namespace dps::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitNoMatch = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitIndex = 3;
// --cluster: some tablets did not answer (deadline, or no replica left).
inline constexpr int kExitPartial = 4;

void RegisterIngest(CLI::App& app);
void RegisterQuery(CLI::App& app);
void RegisterScan(CLI::App& app);
void RegisterStats(CLI::App& app);
void RegisterDelete(CLI::App& app);
void RegisterCompact(CLI::App& app);
void RegisterCheck(CLI::App& app);
void RegisterServe(CLI::App& app);
void RegisterBench(CLI::App& app);
void RegisterSimulate(CLI::App& app);
void RegisterReport(CLI::App& app);
void RegisterCluster(CLI::App& app);

// A --token-file secret without its trailing newline.
Result<std::string> ReadTokenFile(const std::string& path);

// Exit code chosen by the subcommand that ran.
int ExitCode();
void SetExitCode(int code);
// Prints "dpsearch: <message>" on stderr and maps the status to an exit code.
int Fail(const Status& status);

}  // namespace dps::cli
