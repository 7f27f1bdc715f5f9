#include "query/bench.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>

#include <sys/prctl.h>

#include "query/result_format.h"

namespace dps {

void SummarizeTablets(BenchRecord* r) {
  std::map<uint32_t, TabletTiming> by_tablet;
  for (const auto& b : r->bins) {
    TabletTiming& s = by_tablet[b.tablet];
    s.tablet = b.tablet;
    s.done_us = std::max(s.done_us, b.queue_wait_us + b.service_us);
    s.service_us += b.service_us;
    s.results += b.results;
  }
  r->tablets.clear();
  for (auto& [t, s] : by_tablet) r->tablets.push_back(s);
  r->straggler_ratio = 0;
  r->last_tablet = -1;
  if (r->tablets.empty()) return;
  const auto last = std::max_element(r->tablets.begin(), r->tablets.end(),
                                     [](const TabletTiming& a, const TabletTiming& b) { return a.done_us < b.done_us; });
  r->last_tablet = last->tablet;
  if (r->tablets.size() < 2) return;
  std::vector<double> done;
  for (const auto& s : r->tablets) done.push_back(s.done_us);
  std::sort(done.begin(), done.end());
  // The lower median for an even count: the ratio then says how far the
  // slowest tablet is from a typical one, not from the second slowest.
  const double median = done[(done.size() - 1) / 2];
  r->straggler_ratio = median > 0 ? done.back() / median : 0;
}

Percentiles ComputePercentiles(std::vector<double> v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least q of the data at or below it.
  auto at = [&](double q) {
    const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
  };
  p.p50 = at(0.50);
  p.p90 = at(0.90);
  p.p95 = at(0.95);
  p.p99 = at(0.99);
  p.p999 = at(0.999);
  p.max = v.back();
  return p;
}

Percentiles ComputePercentiles(const LatencyHistogram& h) {
  Percentiles p;
  p.p50 = h.QuantileMicros(0.50);
  p.p90 = h.QuantileMicros(0.90);
  p.p95 = h.QuantileMicros(0.95);
  p.p99 = h.QuantileMicros(0.99);
  p.p999 = h.QuantileMicros(0.999);
  p.max = h.MaxMicros();
  return p;
}

namespace {

using Clock = std::chrono::steady_clock;

// Everything a summary needs, added to as queries finish (one lock: a few
// hundred nanoseconds a query against microseconds of work).
class BenchAccumulator {
 public:
  BenchAccumulator(const BenchOptions& options, std::vector<BenchRecord>* records)
      : keep_(options.keep_records), rng_(options.load.seed ^ 0x9e3779b97f4a7c15ULL), records_(records) {
    s_.mode = options.mode;
    s_.load = options.load;
  }

  void Add(BenchRecord r) {
    std::lock_guard lock(mu_);
    if (!r.error.empty()) {
      ++s_.errors;
      if (r.index_error) ++s_.index_errors;
      if (failed_ids_.insert(r.id).second) s_.failed.emplace_back(r.id, r.error);
    } else {
      ++s_.queries;
      s_.requests += r.requests;
      s_.hedged += r.hedged;
      s_.failovers += r.failovers;
      s_.tied += r.tied;
      s_.tied_cancelled += r.tied_cancelled;
      s_.tied_both_started += r.tied_both_started;
      s_.wasted_bins += r.wasted_bins;
      s_.bins += r.bins.size();
      for (const auto& server : r.asked) ++s_.requests_by_server[server];
      for (uint64_t g : r.generations) ++s_.queries_by_generation[g];
      s_.partial += r.partial ? 1 : 0;
      s_.total_histogram.RecordMicros(r.total_us);
      service_.RecordMicros(r.total_us - r.start_lag_us);
      lag_.RecordMicros(r.start_lag_us);
      if (r.ttfr_us >= 0) ttfr_.RecordMicros(r.ttfr_us);
      // Ratios are recorded in thousandths: the histogram is of integers.
      if (r.tablets.size() >= 2) ratio_.Record(static_cast<uint64_t>(std::llround(r.straggler_ratio * 1e3)));
      for (const auto& t : r.tablets) s_.tablet_histograms[t.tablet].RecordMicros(t.done_us);
      if (r.last_tablet >= 0) ++s_.finished_last[static_cast<uint32_t>(r.last_tablet)];
    }
    // Reservoir sampling (Vitter's algorithm R): a uniform sample of the run.
    ++seen_;
    if (records_->size() < keep_) {
      records_->push_back(std::move(r));
    } else if (keep_ > 0) {
      const uint64_t j = rng_() % seen_;
      if (j < keep_) (*records_)[j] = std::move(r);
    }
  }

  void Finish(double wall_seconds, BenchSummary* out) {
    s_.total = ComputePercentiles(s_.total_histogram);
    s_.service = ComputePercentiles(service_);
    s_.start_lag = ComputePercentiles(lag_);
    s_.ttfr = ComputePercentiles(ttfr_);
    // Thousandths recorded as nanoseconds read back as microseconds: the ratio.
    s_.straggler = ComputePercentiles(ratio_);
    for (const auto& [t, h] : s_.tablet_histograms) s_.tablet_done[t] = ComputePercentiles(h);
    s_.wall_seconds = wall_seconds;
    s_.achieved_qps = wall_seconds > 0 ? static_cast<double>(s_.queries + s_.errors) / wall_seconds : 0;
    *out = std::move(s_);
  }

 private:
  std::mutex mu_;
  size_t keep_;
  std::mt19937_64 rng_;
  std::vector<BenchRecord>* records_;
  uint64_t seen_ = 0;
  BenchSummary s_;
  LatencyHistogram service_, lag_, ttfr_, ratio_;
  std::set<std::string> failed_ids_;
};

// Which query comes next and when it is due. Closed loop: the next in the
// file, due now. Open loop: exponential gaps at the offered rate (a Poisson
// process), from a seeded generator, so a run's schedule is reproducible.
class Arrivals {
 public:
  Arrivals(const BenchLoad& load, size_t queries)
      : load_(load), total_(queries * std::max<size_t>(1, load.repeat)),
        schedule_(load.open() ? load.rate_qps : 1.0, load.seed) {
    // An open loop stops sending once it runs past twice its planned
    // length and a second: a system that cannot keep up would otherwise
    // hold a sweep's saturated rates for as long as their backlog lasts.
    const double planned_us = load.duration_seconds > 0 ? load.duration_seconds * 1e6
                              : load.open()             ? static_cast<double>(total_) / load.rate_qps * 1e6
                                                        : 0;
    give_up_us_ = 2 * planned_us + 1e6;
  }

  // False when the run is over. `due_us` is from the start of the run.
  bool Next(Clock::time_point start, size_t* index, double* due_us) {
    std::lock_guard lock(mu_);
    if (load_.duration_seconds <= 0 && next_ >= total_) return false;
    if (stopped_) return false;
    const double now_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    *due_us = load_.open() ? schedule_.Next() : now_us;
    if (load_.duration_seconds > 0 && *due_us >= load_.duration_seconds * 1e6) return false;
    if (load_.open() && now_us > give_up_us_) {
      stopped_ = true;
      unsent_from_us_ = *due_us;
      return false;
    }
    *index = next_++;
    return true;
  }

  // After the run: whether it stopped early, from which due time on
  // nothing was sent, and (a run of passes) how many queries that left.
  bool stopped() const { return stopped_; }
  double unsent_from_us() const { return unsent_from_us_; }
  uint64_t unsent() const { return load_.duration_seconds > 0 ? 0 : total_ - next_; }

 private:
  std::mutex mu_;
  BenchLoad load_;
  size_t total_, next_ = 0;
  PoissonSchedule schedule_;
  double give_up_us_ = 0, unsent_from_us_ = -1;
  bool stopped_ = false;
};

}  // namespace

Status RunBench(const RunnerFactory& factory, const std::vector<BatchQuery>& queries,
                const BenchOptions& options, std::vector<BenchRecord>* records, BenchSummary* summary) {
  records->clear();
  *summary = BenchSummary();
  summary->mode = options.mode;
  summary->load = options.load;
  if (queries.empty()) return Status::InvalidArgument("bench: no queries");
  const BenchLoad& load = options.load;
  const size_t threads = std::max<size_t>(1, load.open() ? load.max_in_flight : load.concurrency);
  std::vector<QueryRunner> runners;
  for (size_t i = 0; i < threads; ++i) {
    DPS_ASSIGN_OR_RETURN(QueryRunner r, factory());
    runners.push_back(std::move(r));
  }
  for (unsigned pass = 0; pass < options.warmup_passes; ++pass) {
    for (const auto& q : queries) (void)runners[0](q.text);
  }
  BenchAccumulator acc(options, records);
  Arrivals arrivals(load, queries.size());
  std::atomic<int64_t> last_end_ns{0};
  const Clock::time_point start = Clock::now();
  auto work = [&](size_t t) {
    // Open loop: wake at the due time, not up to 50 µs later (Linux's
    // default timer slack), which would be counted as the system's latency.
    if (load.open()) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    size_t i = 0;
    double due_us = 0;
    while (arrivals.Next(start, &i, &due_us)) {
      const Clock::time_point due = start + std::chrono::nanoseconds(static_cast<int64_t>(due_us * 1e3));
      if (load.open()) std::this_thread::sleep_until(due);
      const Clock::time_point began = Clock::now();
      const BatchQuery& q = queries[i % queries.size()];
      BenchRecord r = runners[t](q.text);
      const Clock::time_point ended = Clock::now();
      r.id = q.id;
      if (load.open()) {
        r.start_lag_us = std::max(0.0, std::chrono::duration<double, std::micro>(began - due).count());
        r.total_us = std::chrono::duration<double, std::micro>(ended - due).count();
      }
      int64_t end_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(ended - start).count();
      for (int64_t seen = last_end_ns.load(); end_ns > seen && !last_end_ns.compare_exchange_weak(seen, end_ns);) {
      }
      SummarizeTablets(&r);
      acc.Add(std::move(r));
    }
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (auto& th : pool) th.join();
  }
  acc.Finish(static_cast<double>(last_end_ns.load()) / 1e9, summary);
  if (arrivals.stopped()) {
    summary->stopped_early = true;
    summary->unsent_from_seconds = arrivals.unsent_from_us() / 1e6;
    summary->unsent = arrivals.unsent();
  }
  return Status::OK();
}

std::string BenchLoad::Describe() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%g s", duration_seconds);
  const std::string how_long = duration_seconds > 0 ? std::string(buf)
                                                    : std::to_string(std::max<size_t>(1, repeat)) +
                                                          (repeat <= 1 ? " pass" : " passes");
  if (open()) {
    std::snprintf(buf, sizeof buf, "open loop, %.0f qps Poisson arrivals, at most %zu in flight, %s", rate_qps,
                  max_in_flight, how_long.c_str());
  } else {
    std::snprintf(buf, sizeof buf, "closed loop, %zu client%s, %s", concurrency, concurrency == 1 ? "" : "s",
                  how_long.c_str());
  }
  return buf;
}

namespace {
std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}
std::string Ratio(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}
// The shortest text that reads back as `v` (a parameter as the user gave it).
std::string Shortest(double v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
}  // namespace

std::string BenchMode::Describe() const {
  if (top_k == 0) return fetch ? "fetch" : "count";
  return "ranked top " + std::to_string(top_k) + " (BM25 k1 " + Shortest(bm25.k1) + ", b " + Shortest(bm25.b) + ")";
}

std::string BenchJson(const BenchSummary& s) {
  std::string j = "{";
  j += "\"mode\":\"" + std::string(s.mode.top_k > 0 ? "ranked" : s.mode.fetch ? "fetch" : "count") + "\"";
  if (s.mode.top_k > 0) {
    j += ",\"top_k\":" + std::to_string(s.mode.top_k) + ",\"bm25_k1\":" + Shortest(s.mode.bm25.k1) +
         ",\"bm25_b\":" + Shortest(s.mode.bm25.b);
  }
  if (s.load.open()) {
    j += ",\"load\":\"open\",\"offered_qps\":" + Shortest(s.load.rate_qps) +
         ",\"max_in_flight\":" + std::to_string(s.load.max_in_flight);
  } else {
    j += ",\"load\":\"closed\",\"concurrency\":" + std::to_string(s.load.concurrency);
  }
  if (s.load.duration_seconds > 0) {
    j += ",\"duration_seconds\":" + Shortest(s.load.duration_seconds);
  } else {
    j += ",\"repeat\":" + std::to_string(s.load.repeat);
  }
  j += ",\"achieved_qps\":" + Num(s.achieved_qps);
  j += std::string(",\"stopped_early\":") + (s.stopped_early ? "true" : "false");
  if (s.stopped_early) {
    j += ",\"unsent_from_seconds\":" + Ratio(s.unsent_from_seconds);
    if (s.load.duration_seconds <= 0) j += ",\"unsent_queries\":" + std::to_string(s.unsent);
  }
  j += ",\"queries\":" + std::to_string(s.queries);
  j += ",\"errors\":" + std::to_string(s.errors);
  j += ",\"failed_queries\":[";
  for (size_t i = 0; i < s.failed.size(); ++i) {
    j += (i ? ",{\"id\":\"" : "{\"id\":\"") + JsonEscape(s.failed[i].first) + "\",\"error\":\"" +
         JsonEscape(s.failed[i].second) + "\"}";
  }
  j += "]";
  j += ",\"requests\":" + std::to_string(s.requests);
  j += ",\"hedged_requests\":" + std::to_string(s.hedged);
  j += ",\"failovers\":" + std::to_string(s.failovers);
  j += ",\"tied_pairs\":" + std::to_string(s.tied) + ",\"tied_cancelled\":" + std::to_string(s.tied_cancelled) +
       ",\"tied_both_started\":" + std::to_string(s.tied_both_started);
  j += ",\"bins\":" + std::to_string(s.bins) + ",\"wasted_bins\":" + std::to_string(s.wasted_bins);
  j += ",\"requests_by_server\":{";
  for (auto it = s.requests_by_server.begin(); it != s.requests_by_server.end(); ++it) {
    j += (it == s.requests_by_server.begin() ? "\"" : ",\"") + JsonEscape(it->first) + "\":" + std::to_string(it->second);
  }
  j += "}";
  j += ",\"queries_by_generation\":{";
  for (auto it = s.queries_by_generation.begin(); it != s.queries_by_generation.end(); ++it) {
    j += (it == s.queries_by_generation.begin() ? "\"" : ",\"") + std::to_string(it->first) +
         "\":" + std::to_string(it->second);
  }
  j += "}";
  j += ",\"partial_results\":" + std::to_string(s.partial);
  j += ",\"p50_us\":" + Num(s.total.p50);
  j += ",\"p90_us\":" + Num(s.total.p90);
  j += ",\"p95_us\":" + Num(s.total.p95);
  j += ",\"p99_us\":" + Num(s.total.p99);
  j += ",\"p999_us\":" + Num(s.total.p999);
  j += ",\"max_us\":" + Num(s.total.max);
  j += ",\"service_p50_us\":" + Num(s.service.p50) + ",\"service_p99_us\":" + Num(s.service.p99) +
       ",\"service_p999_us\":" + Num(s.service.p999);
  j += ",\"start_lag_p50_us\":" + Num(s.start_lag.p50) + ",\"start_lag_p99_us\":" + Num(s.start_lag.p99) +
       ",\"start_lag_max_us\":" + Num(s.start_lag.max);
  j += ",\"ttfr_p50_us\":" + Num(s.ttfr.p50);
  j += ",\"ttfr_p99_us\":" + Num(s.ttfr.p99);
  j += ",\"straggler_ratio_p50\":" + Ratio(s.straggler.p50);
  j += ",\"straggler_ratio_p99\":" + Ratio(s.straggler.p99);
  j += ",\"wall_seconds\":" + Ratio(s.wall_seconds);
  j += ",\"tablets\":[";
  bool first = true;
  for (const auto& [t, p] : s.tablet_done) {
    if (!first) j += ",";
    first = false;
    const auto last = s.finished_last.find(t);
    j += "{\"tablet\":" + std::to_string(t) + ",\"p50_us\":" + Num(p.p50) + ",\"p95_us\":" + Num(p.p95) +
         ",\"p99_us\":" + Num(p.p99) + ",\"max_us\":" + Num(p.max) +
         ",\"finished_last\":" + std::to_string(last == s.finished_last.end() ? 0 : last->second) + "}";
  }
  j += "]";
  // The whole latency distribution, (highest µs of a bucket, queries) for
  // each non-empty bucket: enough to redraw or compare runs within 0.8%.
  j += ",\"latency_histogram\":[";
  first = true;
  for (const auto& [us, n] : s.total_histogram.Buckets()) {
    char edge[32];
    std::snprintf(edge, sizeof edge, "%.3f", us);  // whole nanoseconds: the bucket reads back as itself
    j += (first ? "[" : ",[") + std::string(edge) + "," + std::to_string(n) + "]";
    first = false;
  }
  j += "]}";
  return j;
}

std::string BenchText(const BenchSummary& s) {
  char buf[512];
  std::string out;
  std::snprintf(buf, sizeof buf,
                "%s, %s: %zu queries in %.2f s, %.1f a second (%llu errors); %llu requests, %llu hedged, "
                "%llu failovers, %llu partial\n",
                s.mode.Describe().c_str(), s.load.Describe().c_str(), s.queries, s.wall_seconds, s.achieved_qps,
                static_cast<unsigned long long>(s.errors),
                static_cast<unsigned long long>(s.requests), static_cast<unsigned long long>(s.hedged),
                static_cast<unsigned long long>(s.failovers), static_cast<unsigned long long>(s.partial));
  out += buf;
  if (s.stopped_early) {
    std::snprintf(buf, sizeof buf,
                  "stopped early: the system fell behind the arrivals; none due from %.3f s on was sent%s\n",
                  s.unsent_from_seconds,
                  s.load.duration_seconds > 0 ? "" : (" (" + std::to_string(s.unsent) + " queries)").c_str());
    out += buf;
  }
  if (s.tied > 0) {
    std::snprintf(buf, sizeof buf,
                  "tied: %llu pairs, %llu twins cancelled when the other started, %llu twins started anyway "
                  "(work duplicated)\n",
                  static_cast<unsigned long long>(s.tied), static_cast<unsigned long long>(s.tied_cancelled),
                  static_cast<unsigned long long>(s.tied_both_started));
    out += buf;
  }
  if (s.wasted_bins > 0) {
    std::snprintf(buf, sizeof buf, "wasted: %llu bins run whose answers went unused (%.1f%% beyond the %llu used)\n",
                  static_cast<unsigned long long>(s.wasted_bins),
                  s.bins > 0 ? 100.0 * static_cast<double>(s.wasted_bins) / static_cast<double>(s.bins) : 0.0,
                  static_cast<unsigned long long>(s.bins));
    out += buf;
  }
  if (!s.requests_by_server.empty()) {
    out += "requests by server:";
    for (const auto& [server, n] : s.requests_by_server) out += " " + server + " " + std::to_string(n);
    out += "\n";
  }
  if (!s.queries_by_generation.empty()) {
    out += "queries by index generation:";
    for (const auto& [g, n] : s.queries_by_generation) {
      out += ' ';
      out += std::to_string(g);
      out += ' ';
      out += std::to_string(n);
    }
    out += "\n";
  }
  std::snprintf(buf, sizeof buf, "%-22s %10s %10s %10s %10s %10s %10s\n", "", "p50", "p90", "p95", "p99", "p99.9",
                "max");
  out += buf;
  auto row = [&](const std::string& name, const Percentiles& p, bool ratio) {
    std::snprintf(buf, sizeof buf,
                  ratio ? "%-22s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n"
                        : "%-22s %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n",
                  name.c_str(), p.p50, p.p90, p.p95, p.p99, p.p999, p.max);
    out += buf;
  };
  row("total us", s.total, false);
  if (s.load.open()) {
    // The difference is the time queries waited to start: what a closed
    // loop, which never asks while it waits, leaves out.
    row("service us", s.service, false);
    row("start lag us", s.start_lag, false);
  }
  row("first result us", s.ttfr, false);
  row("straggler ratio", s.straggler, true);
  for (const auto& [t, p] : s.tablet_done) {
    const auto last = s.finished_last.find(t);
    row("tablet " + std::to_string(t) + " done us (last " +
            std::to_string(last == s.finished_last.end() ? 0 : last->second) + ")",
        p, false);
  }
  return out;
}

}  // namespace dps
