// `dpsearch query`: one query with streamed results, or a batch of queries.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/search_flags.h"
#include "ingest/analyzer.h"
#include "query/batch.h"
#include "query/parser.h"
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

void PrintStats(const SearchStats& s) {
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

void PrintClusterSummary(const SearchStats& s) {
  if (s.hedged > 0 || s.failovers > 0) {
    std::fprintf(stderr, "cluster: %llu requests, %llu hedged, %llu failovers\n",
                 static_cast<unsigned long long>(s.requests), static_cast<unsigned long long>(s.hedged),
                 static_cast<unsigned long long>(s.failovers));
  }
}

std::string MissingList(const std::vector<std::string>& missing) {
  std::string out;
  for (const auto& m : missing) out += (out.empty() ? "" : ",") + m;
  return out;
}

struct QueryArgs {
  SearchFlags search;
  std::string query, queries, format;
  bool count = false, stats = false;
  size_t limit = 0;
  std::optional<size_t> top;
  unsigned warmup_passes = 0;
  double warmup_seconds = 0;
};

// Batch mode: id<TAB>matches<TAB>micros per query.
void RunBatchQueries(const QueryArgs& a, Searcher* searcher, Analyzer* analyzer) {
  auto queries = ReadQueryFile(a.queries);
  if (!queries.ok()) return (void)Fail(queries.status());
  std::vector<BatchResult> results;
  unsigned passes = 0;
  Status s = RunBatch(searcher, analyzer, *queries, WarmupOptions{a.warmup_passes, a.warmup_seconds},
                      &results, &passes);
  if (!s.ok()) return (void)Fail(s);
  uint64_t total = 0;
  bool partial = false;
  for (const auto& r : results) {
    if (!r.error.empty()) std::fprintf(stderr, "dpsearch: query %s: %s\n", r.id.c_str(), r.error.c_str());
    if (r.partial) {
      partial = true;
      std::fprintf(stderr, "dpsearch: partial result for query %s: tablets %s missing\n", r.id.c_str(),
                   MissingList(r.missing).c_str());
    }
    std::printf("%s\t%llu\t%.1f\n", r.id.c_str(), static_cast<unsigned long long>(r.matches), r.micros);
    total += r.matches;
  }
  if (partial) return SetExitCode(kExitPartial);
  if (total == 0) SetExitCode(kExitNoMatch);
}

// One query, its results streamed as bins finish.
void RunOneQuery(const QueryArgs& a, Searcher* searcher, Analyzer* analyzer) {
  auto root = ParseQuery(a.query, analyzer);
  if (!root.ok()) return (void)Fail(root.status());
  std::vector<std::string> highlight;
  PositiveTerms(*root, &highlight);
  const std::string format = ResolveFormat(a.format);
  SnippetStyle style;
  if (format == "text" && isatty(STDOUT_FILENO)) {
    style.before = "\033[1;31m";
    style.after = "\033[0m";
  }
  // Snippets come from stored text, which only in-process searchers return.
  const bool snippets = format != "tsv" && searcher->returns_text();
  SearchOptions options;
  options.count_only = a.count;
  options.limit = a.limit;
  options.fetch = snippets ? Fetch::kText : Fetch::kIdsAndTitles;
  uint64_t matches = 0;
  SearchStats stats;
  Status s = searcher->Run(std::move(root).value(), options, [&](const BinResult& b) {
    matches += b.count;
    for (size_t i = 0; i < b.stored.size(); ++i) {
      const StoredDoc& d = b.stored[i];
      const DocId docid = b.docs[i];
      if (format == "tsv") {
        std::printf("%s\t%s\t%u\t%u\n", Tsv(d.id).c_str(), Tsv(d.title).c_str(), b.bin.value, docid);
      } else if (format == "jsonl") {
        const std::string snippet = snippets ? MakeSnippet(d.text, highlight, SnippetStyle()) : "";
        std::printf("{\"id\":\"%s\",\"title\":\"%s\",\"bin\":%u,\"docid\":%u,\"snippet\":\"%s\"}\n",
                    JsonEscape(d.id).c_str(), JsonEscape(d.title).c_str(), b.bin.value, docid,
                    JsonEscape(snippet).c_str());
      } else if (snippets) {
        std::printf("%s  %s\n    %s\n", d.id.c_str(), d.title.c_str(), MakeSnippet(d.text, highlight, style).c_str());
      } else {
        std::printf("%s  %s\n", d.id.c_str(), d.title.c_str());
      }
    }
    std::fflush(stdout);  // stream: results show while slow bins still work
    return true;
  }, &stats);
  if (!s.ok()) return (void)Fail(s);
  if (a.count) std::printf("%llu\n", static_cast<unsigned long long>(matches));
  if (stats.partial && format == "jsonl" && !a.count) {
    std::printf("{\"partial\":true,\"missing_tablets\":\"%s\"}\n", MissingList(stats.missing).c_str());
  }
  if (a.stats) PrintStats(stats);
  PrintClusterSummary(stats);
  if (stats.partial) {
    std::fprintf(stderr, "dpsearch: partial result: tablets %s did not answer\n", MissingList(stats.missing).c_str());
    return SetExitCode(kExitPartial);
  }
  if (matches == 0) SetExitCode(kExitNoMatch);
}

}  // namespace

void RegisterQuery(CLI::App& app) {
  auto a = std::make_shared<QueryArgs>();
  CLI::App* cmd = app.add_subcommand("query", "Run a boolean query (AND by default; OR, NOT, -term, parentheses)");
  AddSearchFlags(cmd, &a->search);
  cmd->add_option("query", a->query, "The query, e.g. 'white house -senate'");
  cmd->add_option("--queries", a->queries, "Batch: a file of id<TAB>query lines; prints id<TAB>matches<TAB>micros");
  cmd->add_flag("--count", a->count, "Print only the number of matches");
  cmd->add_option("--limit", a->limit, "Stop after N results");
  cmd->add_option("--top", a->top, "Ranked top-K (BM25): not available yet");
  AddFormatFlag(cmd, &a->format);
  cmd->add_flag("--stats", a->stats, "Per-bin timing table on stderr");
  cmd->add_option("--warmup-passes", a->warmup_passes, "Batch: warm-up passes before measuring");
  cmd->add_option("--warmup-seconds", a->warmup_seconds, "Batch: minimum warm-up time");
  cmd->callback([a] {
    if (a->top) {
      return (void)Fail(Status::Unsupported("--top (ranked BM25 retrieval) is not implemented yet"));
    }
    if (a->query.empty() == a->queries.empty()) {
      return (void)Fail(Status::InvalidArgument("query: give a QUERY or --queries FILE"));
    }
    auto backend = OpenBackend(a->search);
    if (!backend.ok()) return (void)Fail(backend.status());
    auto analyzer = Analyzer::Create();
    if (!analyzer.ok()) return (void)Fail(analyzer.status());
    auto searcher = (*backend)->NewSearcher();
    if (!searcher.ok()) return (void)Fail(searcher.status());
    if (!a->queries.empty()) return RunBatchQueries(*a, searcher->get(), analyzer->get());
    RunOneQuery(*a, searcher->get(), analyzer->get());
  });
}

}  // namespace dps::cli
