#include <cstdio>

#include "cli/commands.h"

namespace dps::cli {

namespace {
int g_exit_code = kExitOk;
}  // namespace

int ExitCode() { return g_exit_code; }
void SetExitCode(int code) { g_exit_code = code; }

int Fail(const Status& status) {
  std::fprintf(stderr, "dpsearch: %s\n", status.ToString().c_str());
  const int code = status.IsInvalidArgument() ? kExitUsage : kExitIndex;
  SetExitCode(code);
  return code;
}

}  // namespace dps::cli
