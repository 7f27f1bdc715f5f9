// `dpsearch bench`: straggler measurement over a query file (query/bench.h).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "common/file.h"
#include "index/index_reader.h"
#include "query/bench.h"
#include "query/cluster.h"

namespace dps::cli {

Result<ClusterOptions> ClusterOptionsFromArgs(const std::string& token_file, uint32_t deadline_ms,
                                              const std::string& hedge_after);

void RegisterBench(CLI::App& app) {
  struct Args {
    std::string index, cluster, queries, report, token_file, hedge_after;
    std::vector<std::string> delays;
    size_t repeat = 1, concurrency = 1;
    unsigned threads = 0, warmup_passes = 1;
    uint32_t deadline_ms = 0;
    bool json = false, fetch = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("bench", "Measure latency and stragglers over a query file");
  auto* index_opt = cmd->add_option("--index", a->index, "Index directory (in-process shards)");
  auto* cluster_opt = cmd->add_option("--cluster", a->cluster, "Cluster file (shard servers)");
  index_opt->excludes(cluster_opt);
  cmd->add_option("--queries", a->queries, "File of id<TAB>query lines")->required();
  cmd->add_option("--repeat", a->repeat, "Run the file N times (default 1)");
  cmd->add_option("--concurrency", a->concurrency, "Concurrent clients (default 1)");
  cmd->add_option("--threads", a->threads, "--index: worker threads per client (default: all cores)");
  cmd->add_option("--warmup-passes", a->warmup_passes, "Unrecorded passes first (default 1)");
  cmd->add_option("--inject-delay", a->delays, "--index: WHO:PROBABILITY:MS (repeatable)");
  cmd->add_option("--hedge-after", a->hedge_after, "--cluster: pNN or MS");
  cmd->add_option("--deadline", a->deadline_ms, "--cluster: milliseconds");
  cmd->add_option("--token-file", a->token_file, "--cluster: the servers' shared secret");
  cmd->add_flag("--fetch", a->fetch, "Fetch results (ids, titles) instead of counting");
  cmd->add_option("--report", a->report, "Write a self-contained HTML report");
  cmd->add_flag("--json", a->json, "Print the summary as one JSON object");
  cmd->callback([a] {
    if (a->index.empty() == a->cluster.empty()) {
      return (void)Fail(Status::InvalidArgument("bench: give --index DIR or --cluster FILE"));
    }
    auto queries = ReadQueryFile(a->queries);
    if (!queries.ok()) return (void)Fail(queries.status());
    std::unique_ptr<IndexReader> index;
    std::unique_ptr<DelayInjector> delays;
    RunnerFactory factory;
    if (!a->index.empty()) {
      if (!a->hedge_after.empty() || a->deadline_ms > 0) {
        return (void)Fail(Status::InvalidArgument("--hedge-after and --deadline need --cluster"));
      }
      std::vector<DelayRule> rules;
      for (const auto& spec : a->delays) {
        auto rule = ParseDelayRule(spec);
        if (!rule.ok()) return (void)Fail(rule.status());
        rules.push_back(*rule);
      }
      if (!rules.empty()) delays = std::make_unique<DelayInjector>(std::move(rules));
      auto opened = IndexReader::Open(a->index);
      if (!opened.ok()) return (void)Fail(opened.status());
      index = std::move(opened).value();
      factory = LocalRunners(index.get(), a->threads, !a->fetch, delays.get());
    } else {
      if (!a->delays.empty()) {
        return (void)Fail(Status::InvalidArgument("--inject-delay with --cluster belongs to dpsearch serve"));
      }
      auto ranges = ReadClusterFile(a->cluster);
      if (!ranges.ok()) return (void)Fail(ranges.status());
      auto options = ClusterOptionsFromArgs(a->token_file, a->deadline_ms, a->hedge_after);
      if (!options.ok()) return (void)Fail(options.status());
      factory = ClusterRunners(*ranges, *options, !a->fetch);
    }
    std::vector<BenchRecord> records;
    BenchSummary summary;
    Status s = RunBench(factory, *queries, BenchOptions{a->repeat, a->concurrency, a->warmup_passes},
                        &records, &summary);
    if (!s.ok()) return (void)Fail(s);
    if (a->json) {
      std::printf("%s\n", BenchJson(summary).c_str());
    } else {
      std::printf("%s", BenchText(summary).c_str());
    }
    if (!a->report.empty()) {
      const std::string title = "dpsearch bench: " + a->queries + " on " + (a->index.empty() ? a->cluster : a->index);
      Status w = WriteFileAtomically(a->report, BenchHtml(summary, records, title));
      if (!w.ok()) return (void)Fail(w);
      std::fprintf(stderr, "dpsearch: report written to %s\n", a->report.c_str());
    }
    if (summary.errors > 0) std::fprintf(stderr, "dpsearch: %llu queries failed\n", static_cast<unsigned long long>(summary.errors));
  });
}

}  // namespace dps::cli
