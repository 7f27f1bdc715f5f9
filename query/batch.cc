#include "query/batch.h"

#include <chrono>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "query/parser.h"

namespace dps {

Result<std::vector<BatchQuery>> ReadQueryFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument(path + ": cannot open (" + std::string(std::strerror(errno)) + ")");
  std::vector<BatchQuery> out;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      return Status::InvalidArgument(path + ": line " + std::to_string(n) +
                                     ": expected id<TAB>query");
    }
    const size_t tab2 = line.find('\t', tab + 1);
    out.push_back({line.substr(0, tab), line.substr(tab + 1, tab2 == std::string::npos
                                                                 ? std::string::npos
                                                                 : tab2 - tab - 1)});
  }
  return out;
}

namespace {

// Counts one parsed query.
Status CountOne(Searcher* searcher, QueryNode root, const WarmupOptions& run, BatchResult* r) {
  SearchOptions options;
  options.count_only = true;
  options.max_expansions = run.max_expansions;
  options.timed = false;
  SearchStats stats;
  uint64_t total = 0;
  DPS_RETURN_IF_ERROR(searcher->Run(
      std::move(root), options, [&](const BinResult& b) { total += b.count; return true; }, &stats));
  r->matches = total;
  r->partial = stats.partial;
  r->missing = std::move(stats.missing);
  return Status::OK();
}

// Ranks one parsed query: its K best ids, best first.
Status RankOne(Searcher* searcher, QueryNode root, const WarmupOptions& rank, BatchResult* r) {
  SearchOptions options;
  options.top_k = rank.top_k;
  options.bm25 = rank.bm25;
  options.max_expansions = rank.max_expansions;
  options.fetch = Fetch::kIds;
  options.timed = false;
  r->top_ids.clear();
  return searcher->Run(std::move(root), options, [&](const BinResult& b) {
    for (const auto& d : b.stored) r->top_ids.push_back(d.id);
    return true;
  }, nullptr);
}

}  // namespace

Status RunBatch(Searcher* searcher, Analyzer* analyzer, const std::vector<BatchQuery>& queries,
                const WarmupOptions& warmup, std::vector<BatchResult>* results, unsigned* passes) {
  // Every query is parsed and analyzed once, before the warm-up: the timers
  // cover the search (planning, the global index, the bins, the K best
  // ids), as the peers harness's engines build their query objects before
  // their timed pass. A query that does not parse is a failed query.
  std::vector<Result<QueryNode>> parsed;
  parsed.reserve(queries.size());
  for (const auto& q : queries) parsed.push_back(ParseQuery(q.text, analyzer, &searcher->fields()));

  using Clock = std::chrono::steady_clock;
  const auto warm_start = Clock::now();
  *passes = 0;
  while (!queries.empty() &&
         (*passes < warmup.min_passes ||
          std::chrono::duration<double>(Clock::now() - warm_start).count() < warmup.min_seconds)) {
    for (auto& root : parsed) {
      if (!root.ok()) continue;
      BatchResult ignored;
      (void)CountOne(searcher, *root, warmup, &ignored);
      if (warmup.top_k > 0) (void)RankOne(searcher, *root, warmup, &ignored);
    }
    ++*passes;
  }
  results->clear();
  for (size_t i = 0; i < queries.size(); ++i) {
    BatchResult r;
    r.id = queries[i].id;
    Status s = parsed[i].status();
    if (s.ok()) {
      QueryNode count_root = *parsed[i];  // copied before the timer
      const auto t0 = Clock::now();
      s = CountOne(searcher, std::move(count_root), warmup, &r);
      r.micros = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    }
    if (s.ok() && warmup.top_k > 0) {
      QueryNode rank_root = *parsed[i];
      const auto t1 = Clock::now();
      s = RankOne(searcher, std::move(rank_root), warmup, &r);
      r.top_micros = std::chrono::duration<double, std::micro>(Clock::now() - t1).count();
    }
    if (!s.ok()) {
      r.index_error = !s.IsInvalidArgument();
      r.error = r.index_error ? s.ToString() : s.message();
    }
    results->push_back(std::move(r));
  }
  return Status::OK();
}

}  // namespace dps
