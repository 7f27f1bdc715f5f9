// `dpsearch stats`, `delete` and `compact`.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/validators.h"
#include "index/compaction.h"
#include "index/index_stats.h"
#include "index/index_writer.h"

namespace dps::cli {

namespace {
IndexOptions ExistingIndex() {
  IndexOptions o;
  o.create_if_missing = false;
  return o;
}
double MB(uint64_t bytes) { return static_cast<double>(bytes) / 1e6; }
unsigned long long U(uint64_t v) { return static_cast<unsigned long long>(v); }
}  // namespace

void RegisterStats(CLI::App& app) {
  struct Args {
    std::string index;
    size_t top = 20;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("stats", "Documents, terms, postings, bytes, bin skew, top terms");
  cmd->add_option("--index", a->index, "Index directory")
      ->type_name("DIR")->required();
  cmd->add_option("--top", a->top, "How many of the most frequent terms to list")->check(WholeNumber(0, 1000000));
  cmd->callback([a] {
    auto index = IndexReader::Open(a->index);
    if (!index.ok()) return (void)Fail(index.status());
    IndexStats s;
    Status st = ComputeIndexStats(**index, a->top, &s);
    if (!st.ok()) return (void)Fail(st);
    std::printf("documents   %llu live (%llu stored)\n", U(s.live_documents), U(s.stored_documents));
    std::printf("terms       %llu\n", U(s.terms));
    std::printf("postings    %llu\n", U(s.postings));
    std::printf("bytes       %llu (%.1f MB; global index %.1f MB)\n", U(s.bytes), MB(s.bytes),
                MB(s.global_index_bytes));
    std::printf("bins        %zu, skew %.2f (largest / median bin)\n", s.bin_documents.size(), s.bin_skew);
    std::printf("analyzer    %s\n", (*index)->manifest().analyzer.ToString().c_str());
    if (!s.fields.empty()) std::printf("\nfield       documents       tokens        terms     postings\n");
    for (const auto& f : s.fields) {
      std::printf("%-10s  %9llu  %11llu  %11llu  %11llu\n", f.name.c_str(), U(f.documents), U(f.tokens), U(f.terms),
                  U(f.postings));
    }
    std::printf("\ntablet  bins        documents        bytes  file         documents     postings  tombstones\n");
    for (size_t t = 0; t < s.tablets.size(); ++t) {
      const TabletStats& ts = s.tablets[t];
      std::printf("%6zu  %4u-%-5u  %9llu  %11llu\n", t, ts.first_bin, ts.last_bin,
                  U(ts.live_documents), U(ts.bytes));
      for (const auto& f : ts.files) {
        std::printf("%39s  %-11s  %9llu  %11llu  %10llu\n", "", f.name.c_str(), U(f.documents),
                    U(f.postings), U(f.tombstones));
      }
    }
    std::printf("\ntop terms (document frequency)\n");
    for (const auto& [term, df] : s.top_terms) std::printf("%12llu  %s\n", U(df), term.c_str());
  });
}

void RegisterDelete(CLI::App& app) {
  struct Args {
    std::string index;
    std::vector<std::string> ids;
    std::string ids_from;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("delete", "Delete documents by external id");
  cmd->add_option("--index", a->index, "Index directory")
      ->type_name("DIR")->required();
  cmd->add_option("--id", a->ids, "External id (repeatable)")
      ->type_name("ID");
  cmd->add_option("--ids-from", a->ids_from, "File with one id per line")
      ->type_name("FILE");
  cmd->callback([a] {
    std::vector<std::string> ids = a->ids;
    if (!a->ids_from.empty()) {
      std::ifstream in(a->ids_from);
      if (!in) return (void)Fail(Status::InvalidArgument(a->ids_from + ": cannot open"));
      for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty()) ids.push_back(line);
      }
    }
    if (ids.empty()) return (void)Fail(Status::InvalidArgument("delete: give --id or --ids-from"));
    auto writer = IndexWriter::Open(a->index, ExistingIndex());
    if (!writer.ok()) return (void)Fail(writer.status());
    CommitStats stats;
    Status s = (*writer)->Delete(ids, &stats);
    if (!s.ok()) return (void)Fail(s);
    std::fprintf(stderr, "deleted %llu of %zu ids (%zu not found)\n", U(stats.deleted), ids.size(),
                 ids.size() - static_cast<size_t>(stats.deleted));
    if (stats.deleted == 0) SetExitCode(kExitNoMatch);
  });
}

void RegisterCompact(CLI::App& app) {
  struct Args {
    std::string index;
    std::optional<size_t> tablet;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("compact", "Rewrite tablets into one file each, dropping deleted documents");
  cmd->add_option("--index", a->index, "Index directory")
      ->type_name("DIR")->required();
  cmd->add_option("--tablet", a->tablet, "Only this tablet (0-based)")->check(WholeNumber(0))->default_str("all");
  cmd->callback([a] {
    auto writer = IndexWriter::Open(a->index, ExistingIndex());
    if (!writer.ok()) return (void)Fail(writer.status());
    const size_t tablets = (*writer)->manifest().tablets.size();
    if (a->tablet && *a->tablet >= tablets) {
      return (void)Fail(Status::InvalidArgument("--tablet " + std::to_string(*a->tablet) +
                                                ": the index has " + std::to_string(tablets) + " tablets"));
    }
    CompactionStats stats;
    for (size_t t = a->tablet.value_or(0); t < (a->tablet ? *a->tablet + 1 : tablets); ++t) {
      Status s = CompactTablet(writer->get(), t, &stats);
      if (!s.ok()) return (void)Fail(s);
    }
    std::fprintf(stderr, "compacted %llu tablets: %llu files, %.1f MB -> %.1f MB, %llu deleted documents dropped\n",
                 U(stats.tablets), U(stats.files_in), MB(stats.bytes_in), MB(stats.bytes_out),
                 U(stats.documents_dropped));
  });
}

}  // namespace dps::cli
