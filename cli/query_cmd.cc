// `dpsearch query`: one query (streamed, counted, or a page of it), or a
// batch of queries.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/validators.h"
#include "cli/result_printer.h"
#include "cli/search_flags.h"
#include "ingest/analyzer.h"
#include "query/batch.h"
#include "query/parser.h"
#include "query/result_format.h"

namespace dps::cli {

namespace {

constexpr size_t kDefaultPage = 10;

std::string GenerationList(const SearchStats& s) {
  std::string out;
  for (uint64_t g : s.generations) out += (out.empty() ? "" : ",") + std::to_string(g);
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
  if (!s.generations.empty()) std::fprintf(stderr, "cluster: answered by index generations %s\n", GenerationList(s).c_str());
}

// jsonl with --stats: a last line with the query's figures and, over
// servers, the index generations that answered (issue 22).
void PrintJsonStats(const SearchStats& s) {
  std::printf("{\"stats\":{\"results\":%llu,\"bins\":%llu,\"total_us\":%.1f,\"requests\":%llu,"
              "\"generations\":[%s]}}\n",
              static_cast<unsigned long long>(s.results), static_cast<unsigned long long>(s.bins_visited), s.total_us,
              static_cast<unsigned long long>(s.requests), GenerationList(s).c_str());
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
  size_t limit = 0, offset = 0;
  std::optional<size_t> top;
  Bm25Flags bm25;
  unsigned warmup_passes = 0;
  double warmup_seconds = 0;
  // Which options the user gave (defaults cannot tell).
  const CLI::Option *limit_opt = nullptr, *offset_opt = nullptr, *warmup_opt = nullptr,
                    *warmup_s_opt = nullptr;
};

// Flag combinations that would be ignored or would not mean what they say.
Status CheckQueryArgs(const QueryArgs& a) {
  if (a.query.empty() == a.queries.empty()) return Status::InvalidArgument("query: give a QUERY or --queries FILE");
  const bool limit = a.limit_opt->count() > 0, offset = a.offset_opt->count() > 0;
  if (a.top && a.count) return Status::InvalidArgument("--count prints the exact total; --top ranks: give one");
  if (a.top && limit) return Status::InvalidArgument("--top K is the number of results; --limit does not apply");
  DPS_RETURN_IF_ERROR(CheckBm25Flags(a.bm25, a.top.has_value()));
  if (!a.queries.empty()) {
    const char* refused = limit ? "--limit" : offset ? "--offset" : a.stats ? "--stats" : nullptr;
    if (refused) {
      return Status::InvalidArgument(std::string(refused) +
                                     " does not apply to --queries (batch mode counts every query)");
    }
    if (a.format == "text") return Status::InvalidArgument("--queries prints tsv or jsonl, not text");
    return Status::OK();
  }
  if (a.warmup_opt->count() > 0 || a.warmup_s_opt->count() > 0) {
    return Status::InvalidArgument("--warmup-passes and --warmup-seconds apply to --queries only");
  }
  if (a.count && (limit || offset)) {
    return Status::InvalidArgument(std::string("--count prints the exact total; ") +
                                   (limit ? "--limit" : "--offset") + " does not apply to it");
  }
  return Status::OK();
}

// Batch mode: one line (tsv) or object (jsonl) per query, in file order.
void RunBatchQueries(const QueryArgs& a, Searcher* searcher, Analyzer* analyzer) {
  auto queries = ReadQueryFile(a.queries);
  if (!queries.ok()) return (void)Fail(queries.status());
  std::vector<BatchResult> results;
  unsigned passes = 0;
  const WarmupOptions run{a.warmup_passes, a.warmup_seconds, a.top.value_or(0), a.bm25.params,
                          a.search.max_expansions};
  Status s = RunBatch(searcher, analyzer, *queries, run, &results, &passes);
  if (!s.ok()) return (void)Fail(s);
  const bool jsonl = a.format == "jsonl";
  uint64_t total = 0;
  size_t bad_queries = 0, index_errors = 0, partial = 0;
  for (const auto& r : results) {
    const std::string id = jsonl ? JsonEscape(r.id) : FieldEscape(r.id);
    if (!r.error.empty()) {
      (r.index_error ? index_errors : bad_queries)++;
      std::fprintf(stderr, "dpsearch: query %s failed: %s\n", FieldEscape(r.id).c_str(), FieldEscape(r.error).c_str());
      if (jsonl) {
        std::printf("{\"id\":\"%s\",\"error\":\"%s\"}\n", id.c_str(), JsonEscape(r.error).c_str());
      } else {
        std::printf("%s\terror\t%s\n", id.c_str(), FieldEscape(r.error).c_str());
      }
      continue;
    }
    if (r.partial) {
      ++partial;
      std::fprintf(stderr, "dpsearch: query %s: partial answer, tablets %s missing\n", FieldEscape(r.id).c_str(),
                   MissingList(r.missing).c_str());
    }
    std::string top;  // --top: the K best ids, best first
    for (const auto& t : r.top_ids) {
      if (jsonl) {
        top += (top.empty() ? "\"" : ",\"") + JsonEscape(t) + "\"";
      } else {
        std::string field = FieldEscape(t);
        for (size_t c; (c = field.find(',')) != std::string::npos;) field.replace(c, 1, "\\x2c");
        top += (top.empty() ? "" : ",") + field;
      }
    }
    char top_micros[48] = "";
    if (a.top) std::snprintf(top_micros, sizeof top_micros, jsonl ? ",\"top_micros\":%.1f" : "\t%.1f", r.top_micros);
    if (jsonl) {
      std::printf("{\"id\":\"%s\",\"matches\":%llu,\"micros\":%.1f%s%s%s%s%s%s}\n", id.c_str(),
                  static_cast<unsigned long long>(r.matches), r.micros, top_micros, a.top ? ",\"top\":[" : "",
                  top.c_str(), a.top ? "]" : "", r.partial ? ",\"partial\":true,\"missing_tablets\":\"" : "",
                  (r.partial ? MissingList(r.missing) + "\"" : std::string()).c_str());
    } else if (r.partial) {
      // A count missing tablets is not the query's count: never in the count column.
      std::printf("%s\tpartial\t%llu\t%s\n", id.c_str(), static_cast<unsigned long long>(r.matches),
                  MissingList(r.missing).c_str());
    } else {
      std::printf("%s\t%llu\t%.1f%s%s%s\n", id.c_str(), static_cast<unsigned long long>(r.matches), r.micros,
                  top_micros, a.top ? "\t" : "", top.c_str());
    }
    total += r.matches;
  }
  if (bad_queries + index_errors > 0) {
    std::fprintf(stderr, "dpsearch: %zu of %zu queries failed\n", bad_queries + index_errors, results.size());
    return SetExitCode(index_errors > 0 ? kExitIndex : kExitUsage);
  }
  if (partial > 0) return SetExitCode(kExitPartial);
  if (total == 0) SetExitCode(kExitNoMatch);
}

// Says that an answer stopped part-way (an unreadable page, a server
// error): jsonl gets a last line, every format a line on stderr.
void ReportIncomplete(const std::string& format, uint64_t printed, const Status& s) {
  if (format == "jsonl") {
    std::printf("{\"incomplete\":true,\"results_printed\":%llu,\"error\":\"%s\"}\n",
                static_cast<unsigned long long>(printed), JsonEscape(s.ToString()).c_str());
    std::fflush(stdout);
  }
  std::fprintf(stderr, "dpsearch: incomplete answer: %llu results printed before an error\n",
               static_cast<unsigned long long>(printed));
}

// One query. On a terminal in text format (or with --offset) a page: the
// exact total first, then results in (bin, docid) order from --offset, at
// most --limit (default 10) of them. Otherwise every result (or the first
// --limit), streamed as bins finish.
void RunOneQuery(const QueryArgs& a, Searcher* searcher, Analyzer* analyzer) {
  auto root = ParseQuery(a.query, analyzer, &searcher->fields());
  if (!root.ok()) return (void)Fail(root.status());
  const std::string format = ResolveFormat(a.format);
  const bool tty = isatty(STDOUT_FILENO);
  SearchStats stats;
  if (a.count) {
    uint64_t matches = 0;
    SearchOptions options;
    options.count_only = true;
    options.max_expansions = a.search.max_expansions;
    Status s = searcher->Run(std::move(root).value(), options, [&](const BinResult& b) {
      matches += b.count;
      return true;
    }, &stats);
    if (!s.ok()) return (void)Fail(s);
    if (format == "jsonl") {
      std::printf("{\"matches\":%llu%s}\n", static_cast<unsigned long long>(matches),
                  stats.partial ? ",\"partial\":true" : "");
    } else {
      std::printf("%llu\n", static_cast<unsigned long long>(matches));
    }
    if (a.stats) PrintStats(stats);
    if (a.stats && format == "jsonl") PrintJsonStats(stats);
    PrintClusterSummary(stats);
    if (stats.partial) {
      std::fprintf(stderr, "dpsearch: partial count: tablets %s missing (not answered or not in the cluster file)\n",
                   MissingList(stats.missing).c_str());
      return SetExitCode(kExitPartial);
    }
    if (matches == 0) SetExitCode(kExitNoMatch);
    return;
  }
  const bool page = (format == "text" && tty) || a.offset_opt->count() > 0;
  std::optional<uint64_t> total;
  double total_ms = 0;
  std::string count_missing;  // tablets the total lacks
  if (page && format == "text") {
    // The total from the count path (cheap), shown before the page.
    SearchOptions count;
    count.count_only = true;
    count.max_expansions = a.search.max_expansions;
    uint64_t n = 0;
    SearchStats count_stats;
    Status s = searcher->Run(*root, count, [&](const BinResult& b) { n += b.count; return true; }, &count_stats);
    if (!s.ok()) return (void)Fail(s);
    total = n;
    total_ms = count_stats.total_us / 1000;
    if (count_stats.partial) count_missing = MissingList(count_stats.missing);
  }
  // Snippets come from stored text, which only in-process searchers return.
  const bool snippets = format != "tsv" && searcher->returns_text();
  ResultPrinter printer(format, snippets, format == "text" && tty && ColorAllowed());
  SearchOptions options;
  options.max_expansions = a.search.max_expansions;
  // A terminal shows a page; piped output stays whole unless --limit says.
  options.limit = a.limit_opt->count() > 0 ? a.limit : (page && format == "text") ? kDefaultPage : 0;
  options.ordered = page;
  options.offset = a.offset;
  if (a.top) {  // ranked: the K best from --offset on, best first
    options.top_k = *a.top;
    options.bm25 = a.bm25.params;
    options.limit = 0;
    options.ordered = false;
  }
  options.fetch = snippets ? Fetch::kSnippet : Fetch::kIdsAndTitles;
  if (total) {
    char took[32];
    if (total_ms < 1) std::snprintf(took, sizeof took, "%.0f us", total_ms * 1000);
    else std::snprintf(took, sizeof took, "%.1f ms", total_ms);
    std::printf("%s %s (%s)%s%s\n\n", GroupedCount(*total).c_str(), *total == 1 ? "match" : "matches", took,
                count_missing.empty() ? "" : ", partial: tablets missing ", count_missing.c_str());
  }
  Status s = searcher->Run(std::move(root).value(), options, [&](const BinResult& b) {
    printer.Print(b);
    return true;
  }, &stats);
  if (!count_missing.empty() && !stats.partial) {  // the total lacked tablets the page did not
    stats.partial = true;
    stats.missing.push_back(count_missing);
  }
  if (!s.ok()) {
    if (printer.printed() > 0 || total) ReportIncomplete(format, printer.printed(), s);
    return (void)Fail(s);
  }
  if (total) {
    if (printer.printed() == 0 && *total > 0) {
      std::printf("\nno results from %s on: there are %s\n", GroupedCount(a.offset + 1).c_str(),
                  GroupedCount(*total).c_str());
    } else if (printer.printed() > 0) {
      std::printf("\nshowing %s-%s of %s%s\n", GroupedCount(a.offset + 1).c_str(),
                  GroupedCount(a.offset + printer.printed()).c_str(), GroupedCount(*total).c_str(),
                  a.top ? ", best first (BM25)" : "");
    }
  }
  if (stats.partial && format == "jsonl") {
    std::printf("{\"partial\":true,\"missing_tablets\":\"%s\"}\n", MissingList(stats.missing).c_str());
  }
  if (a.stats) PrintStats(stats);
  if (a.stats && format == "jsonl") PrintJsonStats(stats);
  PrintClusterSummary(stats);
  if (stats.partial) {
    std::fprintf(stderr, "dpsearch: partial result: tablets %s missing (not answered or not in the cluster file)\n",
                 MissingList(stats.missing).c_str());
    return SetExitCode(kExitPartial);
  }
  // No match means none at all, not none on this page.
  if ((total ? *total : printer.printed() + stats.skipped) == 0) SetExitCode(kExitNoMatch);
}

}  // namespace

void RegisterQuery(CLI::App& app) {
  auto a = std::make_shared<QueryArgs>();
  CLI::App* cmd = app.add_subcommand("query", "Run a boolean query (AND by default; OR, NOT, -term, parentheses)");
  AddSearchFlags(cmd, &a->search);
  cmd->add_option("query", a->query, "The query, e.g. 'white house -senate' (grammar: README, man page)");
  cmd->add_option("--queries", a->queries,
                  "Batch: a file of id<TAB>query lines; prints id<TAB>matches<TAB>micros (or id<TAB>error<TAB>why)")
      ->type_name("FILE");
  cmd->add_flag("--count", a->count, "Print only the exact number of matches");
  a->limit_opt = cmd->add_option("--limit", a->limit, "At most N results (a page on a terminal: 10)")
                     ->check(WholeNumber(1, UINT64_MAX / 2))
                     ->default_str("all; 10 on a terminal");
  a->offset_opt = cmd->add_option("--offset", a->offset, "Page on: skip the first N results, in (bin, docid) order")
                      ->check(WholeNumber(0, UINT64_MAX / 2));
  cmd->add_option("--top", a->top, "The K best by BM25, best first, each with its score (--offset pages on)")
      ->type_name("K")->check(WholeNumber(1, 1000000));
  AddBm25Flags(cmd, &a->bm25);
  AddFormatFlag(cmd, &a->format);
  cmd->add_flag("--stats", a->stats,
                "Per-bin timing table on stderr (over servers, the index generations that answered); jsonl: a last "
                "{\"stats\":...} line");
  a->warmup_opt = cmd->add_option("--warmup-passes", a->warmup_passes, "Batch: warm-up passes before measuring")
                      ->check(WholeNumber(0, 1000000));
  a->warmup_s_opt = cmd->add_option("--warmup-seconds", a->warmup_seconds, "Batch: minimum warm-up time in seconds")
                        ->check(CLI::NonNegativeNumber);
  cmd->callback([a] {
    if (Status s = CheckQueryArgs(*a); !s.ok()) return (void)Fail(s);
    auto backend = OpenBackend(a->search);
    if (!backend.ok()) return (void)Fail(backend.status());
    auto searcher = (*backend)->NewSearcher();
    if (!searcher.ok()) return (void)Fail(searcher.status());
    // Words are analyzed as the index's documents were.
    auto analyzer = Analyzer::Create((*searcher)->analyzer_spec());
    if (!analyzer.ok()) return (void)Fail(analyzer.status());
    if (!a->queries.empty()) return RunBatchQueries(*a, searcher->get(), analyzer->get());
    RunOneQuery(*a, searcher->get(), analyzer->get());
  });
}

}  // namespace dps::cli
