// The query runners of `dpsearch bench`: one query -> one BenchRecord.
#include <chrono>
#include <memory>

#include "index/index_reader.h"
#include "ingest/analyzer.h"
#include "query/bench.h"
#include "query/cluster.h"
#include "query/parser.h"
#include "query/planner.h"

namespace dps {

RunnerFactory LocalRunners(const IndexReader* index, unsigned threads, bool count_only,
                           DelayInjector* delays) {
  return [=]() -> Result<QueryRunner> {
    DPS_ASSIGN_OR_RETURN(std::unique_ptr<Analyzer> analyzer, Analyzer::Create());
    auto coordinator = std::make_shared<Coordinator>(index, threads);
    std::shared_ptr<Analyzer> shared_analyzer(std::move(analyzer));
    return QueryRunner([=](const std::string& text) {
      BenchRecord r;
      const auto start = std::chrono::steady_clock::now();
      auto root = ParseQuery(text, shared_analyzer.get());
      if (!root.ok()) {
        r.error = root.status().message();
        return r;
      }
      auto plan = PlanQuery(*root, index->global(), index->bins());
      if (!plan.ok()) {
        r.error = plan.status().message();
        return r;
      }
      SearchOptions options;
      options.count_only = count_only;
      options.delays = delays;
      QueryStats stats;
      DocBlockCache cache;
      Status fetch;
      Status s = coordinator->Run(*plan, options, [&](const BinResponse& b) {
        r.results += b.count;
        // Fetching means what a user gets: ids and titles from the doc store.
        const Tablet& tablet = index->TabletOf(BinId{b.bin});
        for (DocId d : b.docs) {
          StoredDoc doc;
          fetch = tablet.GetDocument(BinId{b.bin}, d, &doc, &cache, /*with_text=*/false);
          if (!fetch.ok()) return false;
        }
        return true;
      }, &stats);
      if (s.ok()) s = fetch;
      if (!s.ok()) r.error = s.message();
      r.total_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      r.ttfr_us = stats.ttfr_us;
      r.bins = std::move(stats.bins);
      return r;
    });
  };
}

RunnerFactory ClusterRunners(const std::vector<ClusterRange>& ranges, const ClusterOptions& options,
                             bool count_only) {
  return [=]() -> Result<QueryRunner> {
    DPS_ASSIGN_OR_RETURN(std::unique_ptr<Analyzer> analyzer, Analyzer::Create());
    DPS_ASSIGN_OR_RETURN(std::unique_ptr<ClusterClient> client, ClusterClient::Connect(ranges, options));
    std::shared_ptr<Analyzer> shared_analyzer(std::move(analyzer));
    std::shared_ptr<ClusterClient> shared_client(std::move(client));
    return QueryRunner([=](const std::string& text) {
      BenchRecord r;
      const auto start = std::chrono::steady_clock::now();
      auto root = ParseQuery(text, shared_analyzer.get());
      if (!root.ok()) {
        r.error = root.status().message();
        return r;
      }
      ClusterStats stats;
      Status s = shared_client->Run(*root, count_only, 0, [&](const RemoteBin& b) {
        r.results += b.count;
        return true;
      }, &stats);
      if (!s.ok()) r.error = s.message();
      r.total_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      r.ttfr_us = stats.query.ttfr_us;
      r.bins = std::move(stats.query.bins);
      r.partial = stats.partial;
      r.requests = stats.requests;
      r.hedged = stats.hedged;
      r.failovers = stats.failovers;
      return r;
    });
  };
}

}  // namespace dps
