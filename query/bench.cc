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
  p.p95 = at(0.95);
  p.p99 = at(0.99);
  p.max = v.back();
  return p;
}

Status RunBench(const RunnerFactory& factory, const std::vector<BatchQuery>& queries,
                const BenchOptions& options, std::vector<BenchRecord>* records, BenchSummary* summary) {
  records->clear();
  *summary = BenchSummary();
  summary->mode = options.mode;
  if (queries.empty()) return Status::InvalidArgument("bench: no queries");
  const size_t threads = std::max<size_t>(1, options.concurrency);
  std::vector<QueryRunner> runners;
  for (size_t i = 0; i < threads; ++i) {
    DPS_ASSIGN_OR_RETURN(QueryRunner r, factory());
    runners.push_back(std::move(r));
  }
  for (unsigned pass = 0; pass < options.warmup_passes; ++pass) {
    for (const auto& q : queries) (void)runners[0](q.text);
  }
  const size_t total = queries.size() * std::max<size_t>(1, options.repeat);
  records->resize(total);
  std::atomic<size_t> next{0};
  const auto start = std::chrono::steady_clock::now();
  auto work = [&](size_t t) {
    for (size_t i = next.fetch_add(1); i < total; i = next.fetch_add(1)) {
      const BatchQuery& q = queries[i % queries.size()];
      BenchRecord r = runners[t](q.text);
      r.id = q.id;
      SummarizeTablets(&r);
      (*records)[i] = std::move(r);
    }
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (auto& th : pool) th.join();
  }
  summary->wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::set<std::string> failed_ids;
  std::vector<double> totals, ttfrs, ratios;
  std::map<uint32_t, std::vector<double>> tablet_done;
  for (const auto& r : *records) {
    if (!r.error.empty()) {
      ++summary->errors;
      if (r.index_error) ++summary->index_errors;
      if (failed_ids.insert(r.id).second) summary->failed.emplace_back(r.id, r.error);
      continue;
    }
    ++summary->queries;
    summary->requests += r.requests;
    summary->hedged += r.hedged;
    summary->failovers += r.failovers;
    for (const auto& server : r.asked) ++summary->requests_by_server[server];
    summary->partial += r.partial ? 1 : 0;
    totals.push_back(r.total_us);
    if (r.ttfr_us >= 0) ttfrs.push_back(r.ttfr_us);
    if (r.tablets.size() >= 2) ratios.push_back(r.straggler_ratio);
    for (const auto& s : r.tablets) tablet_done[s.tablet].push_back(s.done_us);
    if (r.last_tablet >= 0) ++summary->finished_last[static_cast<uint32_t>(r.last_tablet)];
  }
  summary->total = ComputePercentiles(totals);
  summary->ttfr = ComputePercentiles(ttfrs);
  summary->straggler = ComputePercentiles(ratios);
  for (auto& [t, v] : tablet_done) summary->tablet_done[t] = ComputePercentiles(std::move(v));
  return Status::OK();
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
  j += ",\"requests_by_server\":{";
  for (auto it = s.requests_by_server.begin(); it != s.requests_by_server.end(); ++it) {
    j += (it == s.requests_by_server.begin() ? "\"" : ",\"") + JsonEscape(it->first) + "\":" + std::to_string(it->second);
  }
  j += "}";
  j += ",\"partial_results\":" + std::to_string(s.partial);
  j += ",\"p50_us\":" + Num(s.total.p50);
  j += ",\"p95_us\":" + Num(s.total.p95);
  j += ",\"p99_us\":" + Num(s.total.p99);
  j += ",\"max_us\":" + Num(s.total.max);
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
  j += "]}";
  return j;
}

std::string BenchText(const BenchSummary& s) {
  char buf[512];
  std::string out;
  std::snprintf(buf, sizeof buf,
                "%s: %zu queries in %.2f s (%llu errors); %llu requests, %llu hedged, %llu failovers, %llu partial\n",
                s.mode.Describe().c_str(), s.queries, s.wall_seconds, static_cast<unsigned long long>(s.errors),
                static_cast<unsigned long long>(s.requests), static_cast<unsigned long long>(s.hedged),
                static_cast<unsigned long long>(s.failovers), static_cast<unsigned long long>(s.partial));
  out += buf;
  if (!s.requests_by_server.empty()) {
    out += "requests by server:";
    for (const auto& [server, n] : s.requests_by_server) out += " " + server + " " + std::to_string(n);
    out += "\n";
  }
  std::snprintf(buf, sizeof buf, "%-22s %10s %10s %10s %10s\n", "", "p50", "p95", "p99", "max");
  out += buf;
  auto row = [&](const std::string& name, const Percentiles& p, bool ratio) {
    if (ratio) {
      std::snprintf(buf, sizeof buf, "%-22s %10.3f %10.3f %10.3f %10.3f\n", name.c_str(), p.p50, p.p95, p.p99, p.max);
    } else {
      std::snprintf(buf, sizeof buf, "%-22s %10.1f %10.1f %10.1f %10.1f\n", name.c_str(), p.p50, p.p95, p.p99, p.max);
    }
    out += buf;
  };
  row("total us", s.total, false);
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
