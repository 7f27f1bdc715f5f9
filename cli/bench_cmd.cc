// `dpsearch bench`: straggler measurement over a query file (query/bench.h).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/validators.h"
#include "cli/search_flags.h"
#include "common/file.h"
#include "query/bench.h"
#include "query/bench_samples.h"
#include "query/result_format.h"

namespace dps::cli {

void RegisterBench(CLI::App& app) {
  struct Args {
    SearchFlags search;
    std::string queries, report, samples;
    size_t repeat = 1, concurrency = 1, max_in_flight = 32;
    std::vector<double> rates;
    double duration = 0;
    uint64_t seed = 1;
    unsigned warmup_passes = 1;
    bool json = false, fetch = false, allow_failures = false;
    size_t top = 0;
    Bm25Flags bm25;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("bench", "Measure latency and stragglers over a query file");
  AddSearchFlags(cmd, &a->search);
  cmd->add_option("--queries", a->queries, "File of id<TAB>query lines")
      ->type_name("FILE")->required();
  auto* repeat = cmd->add_option("--repeat", a->repeat, "Run the file N times")->check(WholeNumber(1, 1000000));
  cmd->add_option("--duration", a->duration, "Run for S seconds instead of --repeat passes")
      ->type_name("S")->check(FiniteNumber(0.001, 86400))->excludes(repeat);
  auto* concurrency = cmd->add_option("--concurrency", a->concurrency, "Closed loop: concurrent clients, each asking when answered")
                          ->check(WholeNumber(1, 1024));
  auto* rate = cmd->add_option("--rate", a->rates,
                               "Open loop: Poisson arrivals at QPS, latency from each query's due time; "
                               "a list (200,400,800) sweeps the rates and finds the knee")
                   ->type_name("QPS[,QPS...]")->delimiter(',')->check(FiniteNumber(0.001, 1e9))->excludes(concurrency);
  cmd->add_option("--max-in-flight", a->max_in_flight, "--rate: queries running at once (later arrivals wait, and the wait counts)")
      ->check(WholeNumber(1, 1024))->needs(rate);
  cmd->add_option("--seed", a->seed, "--rate: seed of the arrival schedule")->needs(rate);
  cmd->add_option("--warmup-passes", a->warmup_passes, "Unrecorded passes over the file first")->check(WholeNumber(0, 1000000));
  cmd->add_flag("--fetch", a->fetch, "Fetch results (ids, titles) instead of counting");
  cmd->add_option("--top", a->top, "Rank each query: its K best by BM25 (ids and titles fetched)")
      ->type_name("K")->check(WholeNumber(1, 1000000))->default_str("none (count)");
  AddBm25Flags(cmd, &a->bm25);
  cmd->add_option("--report", a->report, "Write a self-contained HTML report")
      ->type_name("FILE.html");
  cmd->add_option("--samples", a->samples,
                  "Write each query's per-tablet service times and overhead, for dpsearch simulate")
      ->type_name("FILE");
  cmd->add_flag("--json", a->json, "Print the summary as one JSON object");
  cmd->add_flag("--allow-failures", a->allow_failures,
                "Exit 0 even when some queries failed (they are still named on stderr)");
  cmd->callback([a] {
    if (Status s = CheckBm25Flags(a->bm25, a->top > 0); !s.ok()) return (void)Fail(s);
    auto backend = OpenBackend(a->search);
    if (!backend.ok()) return (void)Fail(backend.status());
    auto queries = ReadQueryFile(a->queries);
    if (!queries.ok()) return (void)Fail(queries.status());
    SearchBackend* b = backend->get();
    const BenchMode mode{a->fetch, a->top, a->bm25.params, a->search.max_expansions};
    RunnerFactory factory = SearchRunners([b] { return b->NewSearcher(); }, mode);
    BenchOptions options;
    options.mode = mode;
    options.load.concurrency = a->concurrency;
    options.load.max_in_flight = a->max_in_flight;
    options.load.repeat = a->repeat;
    options.load.duration_seconds = a->duration;
    options.load.seed = a->seed;
    options.warmup_passes = a->warmup_passes;
    std::vector<BenchRecord> records;
    std::vector<BenchSummary> sweep;
    BenchSummary summary;
    const std::string title = "dpsearch bench: " + a->queries + " on " + b->name();
    std::string report;
    if (a->rates.size() > 1) {
      Status s = RunRateSweep(factory, *queries, options, a->rates, &sweep, &records);
      if (!s.ok()) return (void)Fail(s);
      std::printf("%s", a->json ? (SweepJson(sweep) + "\n").c_str() : SweepText(sweep).c_str());
      if (!a->report.empty()) report = SweepHtml(sweep, title);
      // Failures are named from the rate that had the most.
      summary = *std::max_element(sweep.begin(), sweep.end(), [](const BenchSummary& x, const BenchSummary& y) {
        return x.errors < y.errors;
      });
    } else {
      options.load.rate_qps = a->rates.empty() ? 0 : a->rates[0];
      Status s = RunBench(factory, *queries, options, &records, &summary);
      if (!s.ok()) return (void)Fail(s);
      std::printf("%s", a->json ? (BenchJson(summary) + "\n").c_str() : BenchText(summary).c_str());
      if (!a->report.empty()) report = BenchHtml(summary, records, title);
    }
    if (!a->samples.empty()) {
      Status w = WriteFileAtomically(a->samples, FormatSamples(records));
      if (!w.ok()) return (void)Fail(w);
    }
    if (!a->report.empty()) {
      Status w = WriteFileAtomically(a->report, report);
      if (!w.ok()) return (void)Fail(w);
      std::fprintf(stderr, "dpsearch: report written to %s\n", a->report.c_str());
    }
    if (summary.errors > 0) {
      // Name them: the first few with the first one's reason, and how many.
      constexpr size_t kNamed = 5;
      std::string names;
      for (size_t i = 0; i < std::min(kNamed, summary.failed.size()); ++i) {
        names += (i ? ", " : "") + FieldEscape(summary.failed[i].first);
      }
      if (summary.failed.size() > kNamed) names += " and " + std::to_string(summary.failed.size() - kNamed) + " more";
      std::fprintf(stderr, "dpsearch: %zu of %zu queries failed (%s); %s: %s\n", summary.failed.size(),
                   queries->size(), names.c_str(), FieldEscape(summary.failed[0].first).c_str(),
                   FieldEscape(summary.failed[0].second).c_str());
      if (!a->allow_failures) SetExitCode(summary.index_errors > 0 ? kExitIndex : kExitUsage);
    }
  });
}

}  // namespace dps::cli
