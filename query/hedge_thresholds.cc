#include "query/hedge_thresholds.h"

#include <algorithm>
#include <cmath>

#include "query/latency_histogram.h"

namespace dps {

namespace {
size_t BucketOfMicros(double us) {
  return LatencyHistogram::BucketOf(us > 0 ? static_cast<uint64_t>(std::llround(us * 1e3)) : 0);
}
}  // namespace

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
  Window& replica = by_replica_[{range, server}];
  replica.Add(us, kWindow);
  if (replica.us.size() == kMinSamples) ++eligible_[range];
  Window& w = by_server_[server];
  if (w.us.size() == kServerWindow) {
    --pool_[BucketOfMicros(w.us[w.next])];  // about to be overwritten
    --pool_size_;
  }
  w.Add(us, kServerWindow);
  const size_t b = BucketOfMicros(us);
  if (b >= pool_.size()) pool_.resize(b + 1, 0);
  ++pool_[b];
  ++pool_size_;
  ++range_answers_[range];
  ++answers_;
}

double HedgeThresholds::PooledUs(const std::string& asked, double percentile) const {
  // The pool less `asked`'s own window, walked bucket by bucket.
  std::vector<size_t> own;
  if (auto it = by_server_.find(asked); it != by_server_.end()) {
    for (double us : it->second.us) own.push_back(BucketOfMicros(us));
  }
  std::sort(own.begin(), own.end());
  const size_t n = pool_size_ - own.size();
  if (n < kMinSamples) return -1;
  // The same rank as Window::Percentile: the (k+1)-th smallest.
  const size_t k = std::min(n - 1, static_cast<size_t>(percentile / 100 * static_cast<double>(n)));
  size_t seen = 0, o = 0;
  for (size_t b = 0; b < pool_.size(); ++b) {
    size_t mine = 0;
    while (o < own.size() && own[o] == b) ++mine, ++o;
    seen += pool_[b] - mine;
    if (seen > k) return static_cast<double>(LatencyHistogram::HighestIn(b)) / 1e3;
  }
  return -1;
}

double HedgeThresholds::DelayUs(size_t range, const std::string& asked, double percentile) const {
  Cached& c = cache_[{range, asked}];
  const auto answers_of_range = range_answers_.find(range);
  const size_t range_answers = answers_of_range == range_answers_.end() ? 0 : answers_of_range->second;
  const auto eligible_of_range = eligible_.find(range);
  const size_t eligible = eligible_of_range == eligible_.end() ? 0 : eligible_of_range->second;
  const bool fresh = c.percentile == percentile && c.us >= 0 &&
                     (c.from_pool ? eligible == c.eligible && answers_ < c.at_answer + std::max(kRefresh, pool_size_ / 8)
                                  : range_answers < c.at_range_answer + kRefresh);
  if (fresh) return c.us;
  c.percentile = percentile;
  c.at_range_answer = range_answers;
  c.at_answer = answers_;
  c.eligible = eligible;
  double best = -1;
  for (auto it = by_replica_.lower_bound({range, std::string()}); it != by_replica_.end() && it->first.first == range;
       ++it) {
    if (it->first.second == asked || it->second.us.size() < kMinSamples) continue;
    const double p = it->second.Percentile(percentile);
    if (best < 0 || p < best) best = p;
  }
  c.from_pool = best < 0;
  if (best < 0) best = PooledUs(asked, percentile);
  return c.us = best;
}

}  // namespace dps
