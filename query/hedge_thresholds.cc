#include "query/hedge_thresholds.h"

#include <algorithm>

namespace dps {

void HedgeThresholds::Window::Add(double v, size_t cap) {
  if (us.size() < cap) {
    us.push_back(v);
  } else {
    us[next] = v;
    next = (next + 1) % cap;
  }
}

double HedgeThresholds::Window::Percentile(std::vector<double> v, double p) {
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(p / 100 * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

double HedgeThresholds::Window::Percentile(double p) const { return Percentile(us, p); }

void HedgeThresholds::Record(size_t range, const std::string& server, double us) {
  by_replica_[{range, server}].Add(us, kWindow);
  by_server_[server].Add(us, kServerWindow);
  ++answers_;
}

double HedgeThresholds::DelayUs(size_t range, const std::string& asked, double percentile) const {
  Cached& c = cache_[{range, asked}];
  if (c.percentile == percentile && c.us >= 0 && answers_ < c.at_answer + kRefresh) return c.us;
  c.percentile = percentile;
  c.at_answer = answers_;
  double best = -1;
  for (auto it = by_replica_.lower_bound({range, std::string()}); it != by_replica_.end() && it->first.first == range;
       ++it) {
    if (it->first.second == asked || it->second.us.size() < kMinSamples) continue;
    const double p = it->second.Percentile(percentile);
    if (best < 0 || p < best) best = p;
  }
  if (best < 0) {
    std::vector<double> others;
    for (const auto& [server, w] : by_server_) {
      if (server != asked) others.insert(others.end(), w.us.begin(), w.us.end());
    }
    if (others.size() >= kMinSamples) best = Window::Percentile(std::move(others), percentile);
  }
  return c.us = best;
}

}  // namespace dps
