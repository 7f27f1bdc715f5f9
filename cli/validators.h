// Checks for numeric flags. CLI11's own range checks convert first, and a
// negative number converts to a huge unsigned one ("--limit -3" read as no
// limit); these look at the text.
#pragma once

#include <cstdint>

#include <CLI/CLI.hpp>

namespace dps::cli {

// A whole number from `min` to `max`, digits only.
CLI::Validator WholeNumber(uint64_t min, uint64_t max = UINT32_MAX);

// A finite decimal number from `min` to `max` (no inf, nan or hex: what
// the flag's help says, checked as written).
CLI::Validator FiniteNumber(double min, double max);

}  // namespace dps::cli
