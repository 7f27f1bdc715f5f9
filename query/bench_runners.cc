// The query runner of `dpsearch bench`: one query -> one BenchRecord.
#include <chrono>
#include <memory>

#include "ingest/analyzer.h"
#include "query/bench.h"
#include "query/parser.h"

namespace dps {

RunnerFactory SearchRunners(SearcherFactory make_searcher, BenchMode mode) {
  return [=]() -> Result<QueryRunner> {
    DPS_ASSIGN_OR_RETURN(std::unique_ptr<Searcher> searcher, make_searcher());
    DPS_ASSIGN_OR_RETURN(std::unique_ptr<Analyzer> analyzer, Analyzer::Create(searcher->analyzer_spec()));
    std::shared_ptr<Analyzer> shared_analyzer(std::move(analyzer));
    std::shared_ptr<Searcher> shared_searcher(std::move(searcher));
    return QueryRunner([=](const std::string& text) {
      BenchRecord r;
      const auto start = std::chrono::steady_clock::now();
      auto root = ParseQuery(text, shared_analyzer.get(), &shared_searcher->fields());
      if (!root.ok()) {
        r.error = root.status().message();
        return r;
      }
      SearchOptions options;
      options.count_only = !mode.fetch && mode.top_k == 0;
      options.top_k = mode.top_k;
      options.bm25 = mode.bm25;
      options.max_expansions = mode.max_expansions;
      // Fetching means what a user gets: ids and titles from the doc store.
      options.fetch = Fetch::kIdsAndTitles;
      SearchStats stats;
      Status s = shared_searcher->Run(std::move(root).value(), options, [&](const BinResult& b) {
        r.results += b.count;
        return true;
      }, &stats);
      if (!s.ok()) {
        r.index_error = !s.IsInvalidArgument();
        r.error = r.index_error ? s.ToString() : s.message();
      }
      r.total_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      r.ttfr_us = stats.ttfr_us;
      r.bins = std::move(stats.bins);
      r.partial = stats.partial;
      r.requests = stats.requests;
      r.asked = std::move(stats.asked);
      r.generations = std::move(stats.generations);
      r.hedged = stats.hedged;
      r.failovers = stats.failovers;
      r.tied = stats.tied;
      r.tied_cancelled = stats.tied_cancelled;
      r.tied_both_started = stats.tied_both_started;
      r.wasted_bins = stats.wasted_bins;
      return r;
    });
  };
}

}  // namespace dps
