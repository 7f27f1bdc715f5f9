#include <cstdio>

#include "cli/commands.h"
#include "query/result_format.h"

namespace dps::cli {

namespace {
int g_exit_code = kExitOk;
}  // namespace

int ExitCode() { return g_exit_code; }
void SetExitCode(int code) { g_exit_code = code; }

int Fail(const Status& status) {
  // One line whatever the message quotes (a query, a server's words).
  std::fprintf(stderr, "dpsearch: %s\n", FieldEscape(status.ToString()).c_str());
  const int code = status.IsInvalidArgument() ? kExitUsage : kExitIndex;
  SetExitCode(code);
  return code;
}

}  // namespace dps::cli
