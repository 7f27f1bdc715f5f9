#include "query/cluster_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace dps {

Result<std::vector<ClusterRange>> ReadClusterFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument(path + ": cannot open cluster file (" + std::string(std::strerror(errno)) + ")");
  std::vector<ClusterRange> out;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string range;
    if (!(words >> range)) continue;
    auto bad = [&](const std::string& why) {
      return Status::InvalidArgument(path + ": line " + std::to_string(n) + ": " + why);
    };
    ClusterRange r;
    unsigned long first = 0, last = 0;
    char* end = nullptr;
    first = std::strtoul(range.c_str(), &end, 10);
    if (end == range.c_str()) return bad("expected a tablet range such as 0-3, got '" + range + "'");
    last = first;
    if (*end == '-') {
      const char* second = end + 1;
      last = std::strtoul(second, &end, 10);
      if (end == second) return bad("bad tablet range '" + range + "'");
    }
    if (*end != '\0' || first > last || last > UINT32_MAX) return bad("bad tablet range '" + range + "'");
    r.first_tablet = static_cast<uint32_t>(first);
    r.last_tablet = static_cast<uint32_t>(last);
    std::string replica;
    while (words >> replica) {
      const size_t colon = replica.rfind(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == replica.size()) {
        return bad("expected HOST:PORT, got '" + replica + "'");
      }
      r.replicas.push_back(replica);
    }
    if (r.replicas.empty()) return bad("tablets " + range + " have no server");
    out.push_back(std::move(r));
  }
  if (out.empty()) return Status::InvalidArgument(path + ": no tablet ranges");
  std::sort(out.begin(), out.end(),
            [](const ClusterRange& a, const ClusterRange& b) { return a.first_tablet < b.first_tablet; });
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].first_tablet <= out[i - 1].last_tablet) {
      return Status::InvalidArgument(path + ": tablet ranges overlap at tablet " +
                                     std::to_string(out[i].first_tablet));
    }
  }
  return out;
}

}  // namespace dps
