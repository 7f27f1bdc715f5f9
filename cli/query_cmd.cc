// `dpsearch query`: one query with streamed results, or a batch of queries.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "index/index_reader.h"
#include "ingest/analyzer.h"
#include "query/batch.h"
#include "query/cluster.h"
#include "query/coordinator.h"
#include "query/parser.h"
#include "query/planner.h"
#include "query/snippet.h"

namespace dps::cli {

namespace {

std::string JsonEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

std::string Tsv(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

void PrintStats(const QueryStats& s) {
  std::fprintf(stderr, "\n%-6s %-6s %12s %12s %10s %s\n", "bin", "tablet", "wait_us", "service_us",
               "results", "path");
  for (const auto& b : s.bins) {
    std::fprintf(stderr, "%-6u %-6u %12.1f %12.1f %10llu %s\n", b.bin, b.tablet, b.queue_wait_us,
                 b.service_us, static_cast<unsigned long long>(b.results),
                 b.fast_path ? "fast" : "iterators");
  }
  std::fprintf(stderr,
               "query: %llu results from %llu bins, total %.1f us, first result %.1f us, last result "
               "%.1f us, last tablet %lld%s\n",
               static_cast<unsigned long long>(s.results), static_cast<unsigned long long>(s.bins_visited),
               s.total_us, s.ttfr_us, s.ttlr_us, static_cast<long long>(s.last_tablet),
               s.cancelled ? " (stopped early)" : "");
}

void PrintClusterSummary(const ClusterStats& s) {
  if (s.hedged > 0 || s.failovers > 0) {
    std::fprintf(stderr, "cluster: %llu requests, %llu hedged, %llu failovers\n",
                 static_cast<unsigned long long>(s.requests), static_cast<unsigned long long>(s.hedged),
                 static_cast<unsigned long long>(s.failovers));
  }
}

std::string MissingList(const ClusterStats& s) {
  std::string out;
  for (const auto& m : s.missing) out += (out.empty() ? "" : ",") + m;
  return out;
}

}  // namespace

Result<ClusterOptions> ClusterOptionsFromArgs(const std::string& token_file, uint32_t deadline_ms,
                                              const std::string& hedge_after) {
  ClusterOptions o;
  o.deadline_ms = deadline_ms;
  if (!token_file.empty()) {
    DPS_ASSIGN_OR_RETURN(o.token, ReadTokenFile(token_file));
  }
  if (!hedge_after.empty()) {
    char* end = nullptr;
    const bool pct = hedge_after[0] == 'p' || hedge_after[0] == 'P';
    const char* num = hedge_after.c_str() + (pct ? 1 : 0);
    const double v = std::strtod(num, &end);
    if (end == num || *end != '\0' || v <= 0 || (pct && v >= 100)) {
      return Status::InvalidArgument("--hedge-after " + hedge_after + ": expected pNN (a percentile) or milliseconds");
    }
    (pct ? o.hedge_percentile : o.hedge_after_ms) = v;
  }
  return o;
}

template <typename Args>
void RunClusterQuery(const Args& a) {
  auto ranges = ReadClusterFile(a.cluster);
  if (!ranges.ok()) return (void)Fail(ranges.status());
  auto options = ClusterOptionsFromArgs(a.token_file, a.deadline_ms, a.hedge_after);
  if (!options.ok()) return (void)Fail(options.status());
  if (!a.delays.empty()) {
    return (void)Fail(Status::InvalidArgument("--inject-delay applies to --index; give it to dpsearch serve"));
  }
  auto analyzer = Analyzer::Create();
  if (!analyzer.ok()) return (void)Fail(analyzer.status());
  auto client = ClusterClient::Connect(std::move(ranges).value(), *options);
  if (!client.ok()) return (void)Fail(client.status());
  bool partial = false;
  if (!a.queries.empty()) {
    auto queries = ReadQueryFile(a.queries);
    if (!queries.ok()) return (void)Fail(queries.status());
    std::vector<BatchResult> results;
    unsigned passes = 0;
    auto count = [&](const std::string& text, uint64_t* matches) -> Status {
      DPS_ASSIGN_OR_RETURN(QueryNode root, ParseQuery(text, analyzer->get()));
      ClusterStats stats;
      *matches = 0;
      DPS_RETURN_IF_ERROR((*client)->Run(root, true, 0, [&](const RemoteBin& b) { *matches += b.count; return true; }, &stats));
      if (stats.partial) {
        partial = true;
        std::fprintf(stderr, "dpsearch: partial result for '%s': tablets %s missing\n", text.c_str(), MissingList(stats).c_str());
      }
      return Status::OK();
    };
    Status s = RunBatch(count, *queries, WarmupOptions{a.warmup_passes, a.warmup_seconds}, &results, &passes);
    if (!s.ok()) return (void)Fail(s);
    uint64_t total = 0;
    for (const auto& r : results) {
      if (!r.error.empty()) std::fprintf(stderr, "dpsearch: query %s: %s\n", r.id.c_str(), r.error.c_str());
      std::printf("%s\t%llu\t%.1f\n", r.id.c_str(), static_cast<unsigned long long>(r.matches), r.micros);
      total += r.matches;
    }
    if (partial) return SetExitCode(kExitPartial);
    if (total == 0) SetExitCode(kExitNoMatch);
    return;
  }
  auto root = ParseQuery(a.query, analyzer->get());
  if (!root.ok()) return (void)Fail(root.status());
  const bool tty = isatty(STDOUT_FILENO);
  const std::string format = a.format.empty() ? (tty ? "text" : "tsv") : a.format;
  uint64_t matches = 0;
  ClusterStats stats;
  Status s = (*client)->Run(*root, a.count, a.limit, [&](const RemoteBin& b) {
    matches += b.count;
    for (const auto& d : b.docs) {
      if (format == "tsv") {
        std::printf("%s\t%s\t%u\t%u\n", Tsv(d.id).c_str(), Tsv(d.title).c_str(), b.bin, d.docid);
      } else if (format == "jsonl") {
        std::printf("{\"id\":\"%s\",\"title\":\"%s\",\"bin\":%u,\"docid\":%u,\"snippet\":\"\"}\n",
                    JsonEscape(d.id).c_str(), JsonEscape(d.title).c_str(), b.bin, d.docid);
      } else {
        std::printf("%s  %s\n", d.id.c_str(), d.title.c_str());
      }
    }
    std::fflush(stdout);
    return true;
  }, &stats);
  if (!s.ok()) return (void)Fail(s);
  if (a.count) std::printf("%llu\n", static_cast<unsigned long long>(matches));
  if (stats.partial && format == "jsonl" && !a.count) {
    std::printf("{\"partial\":true,\"missing_tablets\":\"%s\"}\n", MissingList(stats).c_str());
  }
  if (a.stats) PrintStats(stats.query);
  PrintClusterSummary(stats);
  if (stats.partial) {
    std::fprintf(stderr, "dpsearch: partial result: tablets %s did not answer\n", MissingList(stats).c_str());
    return SetExitCode(kExitPartial);
  }
  if (matches == 0) SetExitCode(kExitNoMatch);
}

void RegisterQuery(CLI::App& app) {
  struct Args {
    std::string index;
    std::string query;
    std::string queries;
    bool count = false;
    size_t limit = 0;
    std::optional<size_t> top;
    std::string format;
    bool stats = false;
    unsigned threads = 0;
    unsigned warmup_passes = 0;
    double warmup_seconds = 0;
    std::string cluster, token_file, hedge_after;
    uint32_t deadline_ms = 0;
    std::vector<std::string> delays;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("query", "Run a boolean query (AND by default; OR, NOT, -term, parentheses)");
  auto* index_opt = cmd->add_option("--index", a->index, "Index directory");
  auto* cluster_opt = cmd->add_option("--cluster", a->cluster, "Cluster file: tablet ranges and their servers");
  index_opt->excludes(cluster_opt);
  cmd->add_option("--token-file", a->token_file, "--cluster: the servers' shared secret");
  cmd->add_option("--deadline", a->deadline_ms, "--cluster: answer with what arrived after MS milliseconds");
  cmd->add_option("--hedge-after", a->hedge_after, "--cluster: ask another replica after pNN of recent latencies or MS");
  cmd->add_option("--inject-delay", a->delays, "--index: WHO:PROBABILITY:MS (repeatable), delay before a bin");
  cmd->add_option("query", a->query, "The query, e.g. 'white house -senate'");
  cmd->add_option("--queries", a->queries, "Batch: a file of id<TAB>query lines; prints id<TAB>matches<TAB>micros");
  cmd->add_flag("--count", a->count, "Print only the number of matches");
  cmd->add_option("--limit", a->limit, "Stop after N results");
  cmd->add_option("--top", a->top, "Ranked top-K (BM25): not available yet");
  cmd->add_option("--format", a->format, "text (default on a terminal), jsonl or tsv")
      ->check(CLI::IsMember({"text", "jsonl", "tsv"}));
  cmd->add_flag("--stats", a->stats, "Per-bin timing table on stderr");
  cmd->add_option("--threads", a->threads, "Worker threads (default: all cores)");
  cmd->add_option("--warmup-passes", a->warmup_passes, "Batch: warm-up passes before measuring");
  cmd->add_option("--warmup-seconds", a->warmup_seconds, "Batch: minimum warm-up time");
  cmd->callback([a] {
    if (a->top) {
      return (void)Fail(Status::Unsupported("--top (ranked BM25 retrieval) is not implemented yet"));
    }
    if (a->query.empty() == a->queries.empty()) {
      return (void)Fail(Status::InvalidArgument("query: give a QUERY or --queries FILE"));
    }
    if (a->index.empty() == a->cluster.empty()) {
      return (void)Fail(Status::InvalidArgument("query: give --index DIR or --cluster FILE"));
    }
    if (!a->cluster.empty()) return RunClusterQuery(*a);
    std::unique_ptr<DelayInjector> delays;
    if (!a->delays.empty()) {
      std::vector<DelayRule> rules;
      for (const auto& spec : a->delays) {
        auto rule = ParseDelayRule(spec);
        if (!rule.ok()) return (void)Fail(rule.status());
        rules.push_back(*rule);
      }
      delays = std::make_unique<DelayInjector>(std::move(rules));
    }
    auto index = IndexReader::Open(a->index);
    if (!index.ok()) return (void)Fail(index.status());
    auto analyzer = Analyzer::Create();
    if (!analyzer.ok()) return (void)Fail(analyzer.status());
    Coordinator coordinator(index->get(), a->threads);

    if (!a->queries.empty()) {
      auto queries = ReadQueryFile(a->queries);
      if (!queries.ok()) return (void)Fail(queries.status());
      std::vector<BatchResult> results;
      unsigned passes = 0;
      Status s = RunBatch(**index, &coordinator, analyzer->get(), *queries,
                          WarmupOptions{a->warmup_passes, a->warmup_seconds}, &results, &passes);
      if (!s.ok()) return (void)Fail(s);
      uint64_t total = 0;
      for (const auto& r : results) {
        if (!r.error.empty()) std::fprintf(stderr, "dpsearch: query %s: %s\n", r.id.c_str(), r.error.c_str());
        std::printf("%s\t%llu\t%.1f\n", r.id.c_str(), static_cast<unsigned long long>(r.matches), r.micros);
        total += r.matches;
      }
      if (total == 0) SetExitCode(kExitNoMatch);
      return;
    }

    auto root = ParseQuery(a->query, analyzer->get());
    if (!root.ok()) return (void)Fail(root.status());
    auto plan = PlanQuery(*root, (*index)->global(), (*index)->bins());
    if (!plan.ok()) return (void)Fail(plan.status());
    const bool tty = isatty(STDOUT_FILENO);
    const std::string format = a->format.empty() ? (tty ? "text" : "tsv") : a->format;
    SnippetStyle style;
    if (tty && format == "text") {
      style.before = "\033[1;31m";
      style.after = "\033[0m";
    }
    SearchOptions options;
    options.count_only = a->count;
    options.limit = a->limit;
    options.delays = delays.get();
    uint64_t matches = 0;
    Status fetch_status;
    DocBlockCache cache;
    QueryStats stats;
    Status s = coordinator.Run(*plan, options, [&](const BinResponse& r) {
      matches += r.count;
      if (a->count) return true;
      const Tablet& tablet = (*index)->TabletOf(BinId{r.bin});
      for (DocId d : r.docs) {
        StoredDoc doc;
        Status ds = tablet.GetDocument(BinId{r.bin}, d, &doc, &cache, /*with_text=*/format != "tsv");
        if (!ds.ok()) {
          fetch_status = ds;
          return false;
        }
        if (format == "tsv") {
          std::printf("%s\t%s\t%u\t%u\n", Tsv(doc.id).c_str(), Tsv(doc.title).c_str(), r.bin, d);
        } else if (format == "jsonl") {
          std::printf("{\"id\":\"%s\",\"title\":\"%s\",\"bin\":%u,\"docid\":%u,\"snippet\":\"%s\"}\n",
                      JsonEscape(doc.id).c_str(), JsonEscape(doc.title).c_str(), r.bin, d,
                      JsonEscape(MakeSnippet(doc.text, plan->highlight, SnippetStyle())).c_str());
        } else {
          std::printf("%s  %s\n    %s\n", doc.id.c_str(), doc.title.c_str(),
                      MakeSnippet(doc.text, plan->highlight, style).c_str());
        }
      }
      std::fflush(stdout);  // stream: results show while slow bins still work
      return true;
    }, &stats);
    if (!s.ok()) return (void)Fail(s);
    if (!fetch_status.ok()) return (void)Fail(fetch_status);
    if (a->count) std::printf("%llu\n", static_cast<unsigned long long>(matches));
    if (a->stats) PrintStats(stats);
    if (matches == 0) SetExitCode(kExitNoMatch);
  });
}

}  // namespace dps::cli
