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

double HedgeThresholds::Window::Percentile(double p) const {
  std::vector<double> v = us;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(p / 100 * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

void HedgeThresholds::Record(size_t range, const std::string& server, double us) {
  by_replica_[{range, server}].Add(us, kWindow);
  all_.Add(us, kGlobalWindow);
  ++answers_;
}

double HedgeThresholds::DelayUs(size_t range, double percentile) const {
  Cached& c = cache_[range];
  if (c.percentile == percentile && c.us >= 0 && answers_ < c.at_answer + kRefresh) return c.us;
  c.percentile = percentile;
  c.at_answer = answers_;
  double best = -1;
  for (auto it = by_replica_.lower_bound({range, std::string()}); it != by_replica_.end() && it->first.first == range;
       ++it) {
    if (it->second.us.size() < kMinSamples) continue;
    const double p = it->second.Percentile(percentile);
    if (best < 0 || p < best) best = p;
  }
  if (best < 0 && all_.us.size() >= kMinSamples) best = all_.Percentile(percentile);
  return c.us = best;
}

}  // namespace dps
