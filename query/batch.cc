#include "query/batch.h"

#include <chrono>
#include <fstream>

#include "query/parser.h"
#include "query/planner.h"

namespace dps {

Result<std::vector<BatchQuery>> ReadQueryFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IOError(path + ": cannot open");
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

// Parses, plans and counts one query.
Status CountOne(const IndexReader& index, Coordinator* coordinator, Analyzer* analyzer,
                const std::string& text, uint64_t* matches) {
  DPS_ASSIGN_OR_RETURN(QueryNode root, ParseQuery(text, analyzer));
  DPS_ASSIGN_OR_RETURN(QueryPlan plan, PlanQuery(std::move(root), index.global(), index.bins()));
  SearchOptions options;
  options.count_only = true;
  uint64_t total = 0;
  DPS_RETURN_IF_ERROR(coordinator->Run(
      plan, options, [&](const BinResponse& r) { total += r.count; return true; }, nullptr));
  *matches = total;
  return Status::OK();
}

}  // namespace

Status RunBatch(const IndexReader& index, Coordinator* coordinator, Analyzer* analyzer,
                const std::vector<BatchQuery>& queries, const WarmupOptions& warmup,
                std::vector<BatchResult>* results, unsigned* passes) {
  return RunBatch(
      [&](const std::string& text, uint64_t* matches) {
        return CountOne(index, coordinator, analyzer, text, matches);
      },
      queries, warmup, results, passes);
}

Status RunBatch(const CountFn& count, const std::vector<BatchQuery>& queries,
                const WarmupOptions& warmup, std::vector<BatchResult>* results, unsigned* passes) {
  using Clock = std::chrono::steady_clock;
  const auto warm_start = Clock::now();
  *passes = 0;
  while (!queries.empty() &&
         (*passes < warmup.min_passes ||
          std::chrono::duration<double>(Clock::now() - warm_start).count() < warmup.min_seconds)) {
    for (const auto& q : queries) {
      uint64_t ignored;
      (void)count(q.text, &ignored);
    }
    ++*passes;
  }
  results->clear();
  for (const auto& q : queries) {
    BatchResult r;
    r.id = q.id;
    const auto t0 = Clock::now();
    Status s = count(q.text, &r.matches);
    r.micros = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    if (!s.ok()) {
      if (!s.IsInvalidArgument()) return s;  // an index error ends the batch
      r.error = s.message();
    }
    results->push_back(std::move(r));
  }
  return Status::OK();
}

}  // namespace dps
