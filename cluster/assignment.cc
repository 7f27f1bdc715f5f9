#include "cluster/assignment.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <sstream>

namespace dps {

std::vector<TabletSpan> Assignment::TabletsOf(const std::string& address) const {
  std::vector<TabletSpan> out;
  for (uint32_t t = 0; t < servers.size(); ++t) {
    if (std::find(servers[t].begin(), servers[t].end(), address) == servers[t].end()) continue;
    if (!out.empty() && out.back().last + 1 == t) {
      out.back().last = t;
    } else {
      out.push_back(TabletSpan{t, t});
    }
  }
  return out;
}

Assignment PlanAssignment(const Assignment& previous, const std::vector<std::string>& live, uint32_t tablets,
                          uint32_t replicas) {
  Assignment next;
  next.replicas = std::min<uint32_t>(replicas, static_cast<uint32_t>(live.size()));
  next.servers.assign(tablets, {});
  if (live.empty()) return next;
  const std::set<std::string> alive(live.begin(), live.end());
  std::map<std::string, size_t> load;
  for (const auto& s : live) load[s] = 0;
  // Keep what still holds: live servers, at most R a tablet.
  if (previous.servers.size() == tablets) {
    for (uint32_t t = 0; t < tablets; ++t) {
      for (const auto& s : previous.servers[t]) {
        if (alive.count(s) && next.servers[t].size() < next.replicas) {
          next.servers[t].push_back(s);
          ++load[s];
        }
      }
    }
  }
  auto holds = [&](uint32_t t, const std::string& s) {
    return std::find(next.servers[t].begin(), next.servers[t].end(), s) != next.servers[t].end();
  };
  // The least loaded server not holding t (ties: by address, for one plan everywhere).
  auto least = [&](uint32_t t) {
    const std::string* best = nullptr;
    for (const auto& [s, n] : load) {
      if (!holds(t, s) && (best == nullptr || n < load[*best])) best = &s;
    }
    return best;
  };
  // Fill every tablet to R.
  for (uint32_t t = 0; t < tablets; ++t) {
    while (next.servers[t].size() < next.replicas) {
      const std::string* s = least(t);
      next.servers[t].push_back(*s);
      ++load[*s];
    }
  }
  // Rebalance: move a tablet from the most loaded server to the least
  // loaded one that does not hold it, while loads differ by more than one.
  for (size_t moves = 0; moves < size_t{tablets} * next.replicas; ++moves) {
    auto most = std::max_element(load.begin(), load.end(), [](auto& a, auto& b) { return a.second < b.second; });
    auto fewest = std::min_element(load.begin(), load.end(), [](auto& a, auto& b) { return a.second < b.second; });
    if (most->second <= fewest->second + 1) break;
    bool moved = false;
    for (uint32_t t = tablets; t-- > 0 && !moved;) {  // from the end: the first tablets stay put
      if (holds(t, most->first) && !holds(t, fewest->first)) {
        std::replace(next.servers[t].begin(), next.servers[t].end(), most->first, fewest->first);
        --most->second;
        ++fewest->second;
        moved = true;
      }
    }
    if (!moved) break;
  }
  for (auto& s : next.servers) std::sort(s.begin(), s.end());
  return next;
}

std::string EncodeAssignment(const Assignment& a) {
  std::string out = "dpsearch-assignment " + std::to_string(kAssignmentVersion) + "\nreplicas " +
                    std::to_string(a.replicas) + "\ntablets " + std::to_string(a.servers.size()) + "\n";
  for (size_t t = 0; t < a.servers.size(); ++t) {
    out += "tablet " + std::to_string(t);
    for (const auto& s : a.servers[t]) out += " " + s;
    out += "\n";
  }
  return out;
}

Result<Assignment> DecodeAssignment(const std::string& data) {
  std::istringstream in(data);
  std::string line;
  size_t n = 0;
  auto bad = [&](const std::string& why) {
    return Status::Corruption("assignment line " + std::to_string(n) + ": " + why);
  };
  auto number = [](const std::string& text, uint64_t* out) {
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    return ec == std::errc() && p == text.data() + text.size() && !text.empty();
  };
  Assignment a;
  uint64_t tablets = 0;
  while (std::getline(in, line)) {
    ++n;
    std::istringstream words(line);
    std::string key, value;
    words >> key >> value;
    if (n == 1) {
      if (key != "dpsearch-assignment") return bad("not a dpsearch assignment");
      if (value != std::to_string(kAssignmentVersion)) return bad("format version " + value);
    } else if (n == 2) {
      uint64_t r = 0;
      if (key != "replicas" || !number(value, &r) || r > 1000) return bad("expected 'replicas R'");
      a.replicas = static_cast<uint32_t>(r);
    } else if (n == 3) {
      if (key != "tablets" || !number(value, &tablets) || tablets > (1u << 20)) return bad("expected 'tablets T'");
    } else {
      uint64_t t = 0;
      if (key != "tablet" || !number(value, &t) || t != a.servers.size() || t >= tablets) {
        return bad("expected 'tablet " + std::to_string(a.servers.size()) + " ADDRESS...'");
      }
      std::vector<std::string> servers;
      for (std::string s; words >> s;) servers.push_back(s);
      a.servers.push_back(std::move(servers));
    }
  }
  if (n < 3 || a.servers.size() != tablets) return Status::Corruption("assignment: " + std::to_string(a.servers.size()) + " tablet lines of " + std::to_string(tablets));
  return a;
}

}  // namespace dps
