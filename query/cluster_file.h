// The static cluster file (DESIGN.md "Cluster file"): one line per tablet
// range, `FIRST-LAST HOST:PORT...` (or a single tablet number), replicas
// in order of preference, `#` comments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace dps {

struct ClusterRange {
  uint32_t first_tablet = 0, last_tablet = 0;
  std::vector<std::string> replicas;  // host:port, tried in this order
  std::string name() const { return std::to_string(first_tablet) + "-" + std::to_string(last_tablet); }
  bool operator==(const ClusterRange&) const = default;
};

// Ranges ascending by first tablet. Errors name the file and line;
// overlapping ranges are refused.
Result<std::vector<ClusterRange>> ReadClusterFile(const std::string& path);

}  // namespace dps
