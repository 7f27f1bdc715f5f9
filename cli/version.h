// What `dpsearch --version` prints. Only this header's .cc includes the
// libraries' version headers, so nothing else pays for them.
#pragma once

#include <string>
#include <string_view>

namespace dps::cli {

// CMake's project(VERSION), e.g. "0.1.0".
std::string_view ProjectVersion();

// Several lines: the project version; the version of each index file kind
// (the constants the readers check, named as in docs/FORMAT.md
// "Compatibility") and of the wire protocol; the version of each library
// the binary was built with, and the one it runs with where they differ.
// No newline after the last line.
std::string VersionText();

}  // namespace dps::cli
