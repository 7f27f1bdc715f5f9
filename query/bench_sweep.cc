// `dpsearch bench --rate R1,R2,...`: latency against offered load.
#include <algorithm>
#include <cstdio>

#include "query/bench.h"

namespace dps {

namespace {
// Saturation, as the sweep judges it (README "bench"): the system no longer
// keeps up (answers fall behind arrivals by more than 5%), or queueing has
// taken over the tail (p99 ten times what it is at the lowest load).
constexpr double kMinAchievedShare = 0.95;
constexpr double kMaxTailGrowth = 10.0;
}  // namespace

Status RunRateSweep(const RunnerFactory& factory, const std::vector<BatchQuery>& queries,
                    const BenchOptions& options, const std::vector<double>& rates,
                    std::vector<BenchSummary>* summaries, std::vector<BenchRecord>* last_records) {
  summaries->clear();
  std::vector<double> sorted = rates;
  std::sort(sorted.begin(), sorted.end());
  BenchOptions o = options;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (!(sorted[i] > 0)) return Status::InvalidArgument("bench: a rate must be above 0 queries a second");
    o.load.rate_qps = sorted[i];
    o.warmup_passes = i == 0 ? options.warmup_passes : 0;  // warm once
    BenchSummary s;
    DPS_RETURN_IF_ERROR(RunBench(factory, queries, o, last_records, &s));
    summaries->push_back(std::move(s));
  }
  return Status::OK();
}

bool Saturated(const BenchSummary& point, const BenchSummary& lowest) {
  if (point.stopped_early || point.achieved_qps < kMinAchievedShare * point.load.rate_qps) return true;
  return lowest.total.p99 > 0 && point.total.p99 > kMaxTailGrowth * lowest.total.p99;
}

int KneeOf(const std::vector<BenchSummary>& sweep) {
  int knee = -1;
  for (size_t i = 0; i < sweep.size(); ++i) {
    if (Saturated(sweep[i], sweep.front())) break;
    knee = static_cast<int>(i);
  }
  return knee;
}

std::string SweepJson(const std::vector<BenchSummary>& sweep) {
  if (sweep.empty()) return "{}";
  const int knee = KneeOf(sweep);
  // The top level is the knee's run (the lowest rate's when every rate
  // saturated), so DESIGN.md's fields mean what they mean for one run.
  std::string j = BenchJson(sweep[knee >= 0 ? static_cast<size_t>(knee) : 0]);
  j.pop_back();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", knee >= 0 ? sweep[static_cast<size_t>(knee)].load.rate_qps : 0.0);
  j += ",\"knee_qps\":" + std::string(knee >= 0 ? buf : "null") + ",\"sweep\":[";
  for (size_t i = 0; i < sweep.size(); ++i) {
    std::string point = BenchJson(sweep[i]);
    point.pop_back();
    j += (i ? "," : "") + point + ",\"saturated\":" + (Saturated(sweep[i], sweep.front()) ? "true" : "false") + "}";
  }
  return j + "]}";
}

std::string SweepText(const std::vector<BenchSummary>& sweep) {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%12s %12s %10s %10s %10s %10s %10s  %s\n", "offered qps", "achieved", "p50 us",
                "p90 us", "p99 us", "p99.9 us", "max us", "");
  out += buf;
  for (const auto& s : sweep) {
    std::snprintf(buf, sizeof buf, "%12.1f %12.1f %10.1f %10.1f %10.1f %10.1f %10.1f  %s\n", s.load.rate_qps,
                  s.achieved_qps, s.total.p50, s.total.p90, s.total.p99, s.total.p999, s.total.max,
                  Saturated(s, sweep.front()) ? "saturated" : "");
    out += buf;
  }
  const int knee = KneeOf(sweep);
  if (knee < 0) {
    out += "knee: none (the lowest rate already saturates)\n";
  } else {
    std::snprintf(buf, sizeof buf, "knee: %.1f qps (the highest rate sustained before the first that saturates)\n",
                  sweep[static_cast<size_t>(knee)].load.rate_qps);
    out += buf;
  }
  return out;
}

}  // namespace dps
