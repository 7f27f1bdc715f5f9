// Parsing of size arguments such as "512M", "2G", "1.5GiB", "100000".
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace dps::cli {

// Suffixes K, M, G, T (optionally followed by B or iB) are powers of 1024.
Result<uint64_t> ParseSize(const std::string& text);

}  // namespace dps::cli
