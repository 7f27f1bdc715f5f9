#include "cli/validators.h"

#include <string>

namespace dps::cli {

CLI::Validator WholeNumber(uint64_t min, uint64_t max) {
  const std::string range = std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 19 &&
                            text.find_first_not_of("0123456789") == std::string::npos;
        const uint64_t v = digits ? std::stoull(text) : 0;
        if (!digits || v < min || v > max) return "'" + text + "' is not a whole number from " + range;
        return std::string();
      },
      "INT in " + range);
}

}  // namespace dps::cli
