#include "cli/size_arg.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace dps::cli {

Result<uint64_t> ParseSize(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  std::string suffix(end);
  for (auto& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.ends_with("IB")) suffix.resize(suffix.size() - 2);
  else if (suffix.ends_with("B")) suffix.resize(suffix.size() - 1);
  double scale = 1;
  if (suffix == "K") scale = 1024.0;
  else if (suffix == "M") scale = 1024.0 * 1024;
  else if (suffix == "G") scale = 1024.0 * 1024 * 1024;
  else if (suffix == "T") scale = 1024.0 * 1024 * 1024 * 1024;
  else if (!suffix.empty()) end = nullptr;
  if (end == text.c_str() || end == nullptr || !(value > 0) || !std::isfinite(value * scale)) {
    return Status::InvalidArgument("bad size '" + text + "' (examples: 512M, 2G)");
  }
  return static_cast<uint64_t>(value * scale);
}

}  // namespace dps::cli
