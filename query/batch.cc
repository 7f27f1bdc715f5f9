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

// Parses and counts one query.
Status CountOne(Searcher* searcher, Analyzer* analyzer, const std::string& text, const WarmupOptions& run,
                BatchResult* r) {
  DPS_ASSIGN_OR_RETURN(QueryNode root, ParseQuery(text, analyzer, &searcher->fields()));
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

// Ranks one query: its K best ids, best first.
Status RankOne(Searcher* searcher, Analyzer* analyzer, const std::string& text, const WarmupOptions& rank,
               BatchResult* r) {
  DPS_ASSIGN_OR_RETURN(QueryNode root, ParseQuery(text, analyzer, &searcher->fields()));
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
  using Clock = std::chrono::steady_clock;
  const auto warm_start = Clock::now();
  *passes = 0;
  while (!queries.empty() &&
         (*passes < warmup.min_passes ||
          std::chrono::duration<double>(Clock::now() - warm_start).count() < warmup.min_seconds)) {
    for (const auto& q : queries) {
      BatchResult ignored;
      (void)CountOne(searcher, analyzer, q.text, warmup, &ignored);
      if (warmup.top_k > 0) (void)RankOne(searcher, analyzer, q.text, warmup, &ignored);
    }
    ++*passes;
  }
  results->clear();
  for (const auto& q : queries) {
    BatchResult r;
    r.id = q.id;
    const auto t0 = Clock::now();
    Status s = CountOne(searcher, analyzer, q.text, warmup, &r);
    r.micros = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    if (s.ok() && warmup.top_k > 0) {
      const auto t1 = Clock::now();
      s = RankOne(searcher, analyzer, q.text, warmup, &r);
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
