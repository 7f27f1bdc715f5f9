// `dpsearch ingest`: argument handling, the progress bar and the summary.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/size_arg.h"
#include "cli/validators.h"
#include "ingest/ingest.h"
#include "ingest/ingest_request.h"
#include "ingest/ingest_summary.h"
#include "ingest/memory_plan.h"

namespace dps::cli {

namespace {

void DrawProgress(const IngestProgress& p) {
  const double mb = static_cast<double>(p.bytes_read) / 1e6;
  const double rate = p.seconds > 0 ? mb / p.seconds : 0;
  if (p.total_bytes && *p.total_bytes > 0) {
    const double frac = std::min(1.0, static_cast<double>(p.bytes_read) / static_cast<double>(*p.total_bytes));
    const int width = 30;
    const int filled = static_cast<int>(frac * width);
    const double eta = rate > 0 ? (static_cast<double>(*p.total_bytes) / 1e6 - mb) / rate : 0;
    std::fprintf(stderr, "\r[%-*s] %5.1f%%  %llu docs  %.1f MB  %.1f MB/s  ETA %.0fs   ", width,
                 std::string(static_cast<size_t>(filled), '#').c_str(), 100 * frac,
                 static_cast<unsigned long long>(p.documents), mb, rate, eta);
  } else {
    std::fprintf(stderr, "\r%llu docs  %.1f MB  %.1f MB/s   ",
                 static_cast<unsigned long long>(p.documents), mb, rate);
  }
}

}  // namespace

void RegisterIngest(CLI::App& app) {
  struct Args {
    std::string index;
    std::vector<std::string> inputs;
    uint32_t bins = IndexOptions().bins;
    uint32_t tablets = IndexOptions().tablets;
    std::string memory = "1G";
    unsigned threads = 0;
    std::string format;
    std::string id_field = "id", text_field = "text", title_field = "title";
    bool skip_bad = false;
    bool no_text = false;
    bool no_positions = false;
    std::string analyzer = "icu", stem;
    bool fold_accents = false;
    std::vector<std::string> fields;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("ingest", "Index documents (JSONL, a directory tree, or lines)");
  cmd->add_option("--index", a->index, "Index directory (created if missing)")
      ->type_name("DIR")->required();
  cmd->add_option("inputs", a->inputs, "Input files or directories; - reads standard input")->required();
  auto* bins = cmd->add_option("--bins", a->bins, "Bins of a new index (given --tablets alone: as many as the tablets, if more)")
                   ->check(WholeNumber(1, kMaxBins));
  auto* tablets = cmd->add_option("--tablets", a->tablets, "Tablets of a new index, at most the bins (given --bins alone: at most the bins)")
                      ->check(WholeNumber(1, kMaxBins));
  cmd->add_option("--memory", a->memory, "Memory budget of the whole ingest process (peak RSS), e.g. 512M, 2G; refused below a floor that grows with the threads (47M with 2); covers documents up to a sixteenth of it (longer ones warn)")
      ->type_name("SIZE")->capture_default_str();
  cmd->add_option("--threads", a->threads, "Worker threads")->check(WholeNumber(1, 1024))->default_str("all cores");
  cmd->add_option("--format", a->format, "jsonl, dir or lines (default: from each input's name)")
      ->check(CLI::IsMember({"jsonl", "dir", "lines"}));
  cmd->add_option("--id-field", a->id_field, "JSONL field holding the id")
      ->type_name("FIELD")->capture_default_str();
  cmd->add_option("--text-field", a->text_field, "JSONL field holding the text")
      ->type_name("FIELD")->capture_default_str();
  cmd->add_option("--title-field", a->title_field, "JSONL field holding the title")
      ->type_name("FIELD")->capture_default_str();
  auto* fields = cmd->add_option("--field", a->fields,
                                 "New index: a field searchable as NAME:word: title (the titles), or a JSONL field (string or array of strings); repeatable")
                     ->type_name("NAME");
  cmd->add_flag("--skip-bad", a->skip_bad, "Skip and count malformed records instead of failing");
  auto* no_text = cmd->add_flag("--no-store-text", a->no_text, "New index: do not store document text (no snippets)");
  auto* no_positions =
      cmd->add_flag("--no-positions", a->no_positions, "New index: no word positions (smaller; phrases refused)");
  // The analyzer flags describe one analyzer together (index/analyzer_spec.h).
  std::vector<const CLI::Option*> analyzer_flags = {
      cmd->add_option("--analyzer", a->analyzer,
                      "New index: icu (Unicode words, case-folded) or whitespace (pre-tokenized text, kept as given)")
          ->check(CLI::IsMember({"icu", "whitespace"}))
          ->capture_default_str(),
      cmd->add_option("--stem", a->stem, "New index, icu: Snowball stemmer, e.g. english (dpsearch -V lists them)")
          ->type_name("LANG"),
      cmd->add_flag("--fold-accents", a->fold_accents, "New index, icu: fold accents after case folding (cafe = café)")};
  cmd->callback([a, bins, tablets, no_text, no_positions, analyzer_flags, fields] {
    IngestOptions options;
    auto budget = ParseSize(a->memory);
    if (!budget.ok()) return (void)Fail(budget.status().WithContext("--memory"));
    // Below the floor the process's fixed costs leave too little for the
    // buffers, and the peak would pass the budget (ingest/memory_plan.h).
    const unsigned threads = a->threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : a->threads;
    const uint64_t floor = MinMemoryBudget(threads);
    // DPS_INGEST_BELOW_FLOOR (a test hook, README "Testing failures") lets
    // tests force spills on small corpora with a tiny budget.
    const char* below = std::getenv("DPS_INGEST_BELOW_FLOOR");
    const bool floor_waived = below != nullptr && std::string_view(below) == "1";
    if (*budget < floor && !floor_waived) {
      return (void)Fail(Status::InvalidArgument(
          "--memory " + a->memory + ": below " + std::to_string(floor >> 20) + "M, the smallest budget that holds with " +
          std::to_string(threads) + (threads == 1 ? " thread" : " threads")));
    }
    options.memory_budget = *budget;
    options.bins_set = bins->count() > 0;
    options.tablets_set = tablets->count() > 0;
    options.store_text_set = no_text->count() > 0;
    options.positions_set = no_positions->count() > 0;
    options.index.positions = !a->no_positions;
    if (options.bins_set) options.index.bins = a->bins;
    if (options.tablets_set) options.index.tablets = a->tablets;
    if (options.tablets_set && !options.bins_set) options.index.bins = std::max(options.index.bins, a->tablets);
    if (options.bins_set && !options.tablets_set) options.index.tablets = std::min(options.index.tablets, a->bins);
    options.index.store_text = !a->no_text;
    options.analyzer_set = std::any_of(analyzer_flags.begin(), analyzer_flags.end(),
                                       [](const CLI::Option* o) { return o->count() > 0; });
    options.index.analyzer.tokenizer =
        a->analyzer == "whitespace" ? AnalyzerSpec::Tokenizer::kWhitespace : AnalyzerSpec::Tokenizer::kIcu;
    options.index.analyzer.stem = a->stem;
    options.index.analyzer.fold_accents = a->fold_accents;
    options.fields_set = fields->count() > 0;
    std::vector<std::string> names = a->fields;
    if (Status valid = FieldSet::Validate(names); !valid.ok()) {
      return (void)Fail(valid.WithContext("--field"));
    }
    options.index.fields = FieldSet(std::move(names));
    options.threads = a->threads;
    options.format = a->format;
    options.id_field = a->id_field;
    options.text_field = a->text_field;
    options.title_field = a->title_field;
    options.skip_bad = a->skip_bad;
    // The budget bounds resident memory: large buffers come from and go
    // straight back to the kernel, and a freed heap top is returned early
    // (glibc's adaptive thresholds kept freed buffers resident: on 30,000
    // synthetic documents at --memory 32M, 34.5 MB peak, 30.4 MB with these).
    mallopt(M_MMAP_THRESHOLD, 256 << 10);
    mallopt(M_TRIM_THRESHOLD, 1 << 20);
    const bool tty = isatty(STDERR_FILENO);
    IngestStats stats;
    Status s = Ingest(a->index, a->inputs, options, &stats,
                      tty ? ProgressFn(DrawProgress) : ProgressFn());
    if (tty) std::fprintf(stderr, "\r\033[K");
    if (!s.ok()) return (void)Fail(s);
    for (const auto& m : stats.skipped_examples) std::fprintf(stderr, "dpsearch: skipped: %s\n", m.c_str());
    if (!stats.compaction_error.empty()) {
      std::fprintf(stderr, "dpsearch: warning: documents committed, compaction put off: %s\n",
                   stats.compaction_error.c_str());
    }
    if (stats.oversized_documents > 0) {
      const uint64_t cover = stats.largest_document_bytes * kBudgetPerDocumentByte;
      const bool one = stats.oversized_documents == 1;
      std::fprintf(stderr,
                   "dpsearch: warning: %llu %s longer than the %.1f MB --memory %s covers (the longest, %s, "
                   "%.1f MB): the peak may pass the budget; --memory %lluM covers %s\n",
                   static_cast<unsigned long long>(stats.oversized_documents), one ? "document" : "documents",
                   static_cast<double>(stats.covered_document_bytes) / 1e6, a->memory.c_str(),
                   stats.largest_document.c_str(), static_cast<double>(stats.largest_document_bytes) / 1e6,
                   static_cast<unsigned long long>((cover + (1 << 20) - 1) >> 20), one ? "it" : "them");
    }
    std::fprintf(stderr, "%s\n", FormatIngestSummary(stats).c_str());
  });
}

}  // namespace dps::cli
