#include "query/discovered_ranges.h"

#include <algorithm>
#include <map>
#include <set>

namespace dps {

std::vector<ClusterRange> RangesOfServers(const std::vector<ServerRecord>& servers) {
  std::set<uint64_t> cuts;  // first tablets of pieces, and one past the last
  for (const auto& s : servers) {
    for (const auto& span : s.hosted) {
      cuts.insert(span.first);
      cuts.insert(uint64_t{span.last} + 1);
    }
  }
  std::vector<ClusterRange> out;
  for (auto it = cuts.begin(); it != cuts.end() && std::next(it) != cuts.end(); ++it) {
    ClusterRange piece;
    piece.first_tablet = static_cast<uint32_t>(*it);
    piece.last_tablet = static_cast<uint32_t>(*std::next(it) - 1);
    for (const auto& s : servers) {
      const bool hosts = std::any_of(s.hosted.begin(), s.hosted.end(), [&](const TabletSpan& span) {
        return span.first <= piece.first_tablet && piece.last_tablet <= span.last;
      });
      if (hosts) piece.replicas.push_back(s.address);
    }
    if (piece.replicas.empty()) continue;  // a gap: no server hosts it
    std::sort(piece.replicas.begin(), piece.replicas.end());
    if (!out.empty() && out.back().replicas == piece.replicas && out.back().last_tablet + 1 == piece.first_tablet) {
      out.back().last_tablet = piece.last_tablet;
    } else {
      out.push_back(std::move(piece));
    }
  }
  return out;
}

std::vector<ClusterRange> KeepUncovered(const std::vector<ClusterRange>& next, const std::vector<ClusterRange>& last) {
  std::map<uint32_t, std::vector<std::string>> by_tablet;  // the tablets either covers
  for (const auto& r : last) {
    for (uint64_t t = r.first_tablet; t <= r.last_tablet; ++t) by_tablet[static_cast<uint32_t>(t)] = r.replicas;
  }
  for (const auto& r : next) {
    for (uint64_t t = r.first_tablet; t <= r.last_tablet; ++t) by_tablet[static_cast<uint32_t>(t)] = r.replicas;
  }
  std::vector<ClusterRange> out;
  for (const auto& [t, replicas] : by_tablet) {
    if (!out.empty() && out.back().last_tablet + 1 == t && out.back().replicas == replicas) {
      out.back().last_tablet = t;
    } else {
      out.push_back(ClusterRange{t, t, replicas});
    }
  }
  return out;
}

}  // namespace dps
