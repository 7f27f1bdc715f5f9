#include "cli/validators.h"

#include <charconv>
#include <cmath>
#include <limits>
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

CLI::Validator FiniteNumber(double min, double max) {
  auto show = [](double v) {
    if (v == std::numeric_limits<double>::max()) return std::string("any");
    char buf[32];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  };
  const std::string range = max == std::numeric_limits<double>::max() ? ">= " + show(min)
                                                                       : "from " + show(min) + " to " + show(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        double v = 0;
        const bool plain = !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (!plain || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < min ||
            v > max) {
          return "'" + text + "' is not a finite number " + range;
        }
        return std::string();
      },
      "NUMBER " + range);
}

}  // namespace dps::cli
