// `dpsearch scan` and `dpsearch check`.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/validators.h"
#include "index/check.h"
#include "index/index_reader.h"
#include "index/scan.h"
#include "index/field_key.h"
#include "ingest/analyzer.h"
#include "query/result_format.h"

namespace dps::cli {

namespace {

// --term goes through the index's analyzer, as a query word does, and must
// give one term; `title:word` names the field's term (its key).
Result<std::string> AnalyzeOneTerm(const std::string& text, const AnalyzerSpec& spec, const FieldSet& fields) {
  DPS_ASSIGN_OR_RETURN(auto analyzer, Analyzer::Create(spec));
  std::string field;
  std::string_view word = text;
  if (const size_t colon = text.find(':'); colon != std::string::npos && ValidFieldName(text.substr(0, colon))) {
    field = text.substr(0, colon);
    if (fields.ColumnOfField(field) < 0) {
      return Status::InvalidArgument("--term '" + text + "': unknown field '" + field + "': the index's fields are " +
                                     fields.List());
    }
    word = std::string_view(text).substr(colon + 1);
  }
  std::vector<std::string> terms;
  analyzer->Analyze(word, &terms, nullptr);
  if (terms.size() == 1) return field.empty() ? terms[0] : FieldKey(field, terms[0]);
  std::string list;
  for (const auto& t : terms) list += (list.empty() ? "" : " ") + t;
  return Status::InvalidArgument("--term '" + text + "' analyzes to " + std::to_string(terms.size()) +
                                 " terms" + (terms.empty() ? "" : " (" + list + ")") + "; scan takes one");
}

}  // namespace

void RegisterScan(CLI::App& app) {
  struct Args {
    std::string index;
    std::optional<uint32_t> bin;
    std::optional<std::string> term;
    bool docs = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "scan", "Print entries in Accumulo key order: bin<TAB>term<TAB>docid<TAB>weight");
  cmd->add_option("--index", args->index, "Index directory")
      ->type_name("DIR")->required();
  cmd->add_option("--bin", args->bin, "Only this bin")->check(WholeNumber(0))->default_str("all");
  cmd->add_option("--term", args->term, "Only this term, analyzed as a query word is (Straße: strasse); title:word for a field's")
      ->type_name("WORD");  // or FIELD:WORD
  cmd->add_flag("--docs", args->docs, "Print stored documents instead: bin<TAB>docid<TAB>id<TAB>title (fields backslash-escaped)");
  cmd->callback([args] {
    auto index = IndexReader::Open(args->index);
    if (!index.ok()) return (void)Fail(index.status());
    if (args->term) {
      auto term = AnalyzeOneTerm(*args->term, (*index)->manifest().analyzer, (*index)->manifest().fields);
      if (!term.ok()) return (void)Fail(term.status());
      args->term = *term;
    }
    Status s;
    if (args->docs) {
      s = ScanDocuments(**index, args->bin, [](uint32_t bin, const StoredDoc& d) {
        std::printf("%u\t%u\t%s\t%s\n", bin, d.docid, FieldEscape(d.id).c_str(), FieldEscape(d.title).c_str());
        return true;
      });
    } else {
      ScanOptions options{args->bin, args->term};
      s = ScanEntries(**index, options, [](uint32_t bin, std::string_view term, DocId d, uint32_t w) {
        // A field's key shows as title:word (its 0xFF marker is no text).
        const std::string shown = DisplayKey(term);
        std::printf("%u\t%s\t%u\t%u\n", bin, shown.c_str(), d, w);
        return true;
      });
    }
    if (!s.ok()) Fail(s);
  });
}

void RegisterCheck(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("check", "Verify every checksum and structure of an index");
  cmd->add_option("--index", *dir, "Index directory")
      ->type_name("DIR")->required();
  cmd->callback([dir] {
    CheckReport r;
    Status s = CheckIndex(*dir, &r);
    if (!s.ok()) return (void)Fail(s);
    std::printf("ok: %llu files, %llu bytes, %llu pages, %llu entries, %llu documents, %llu terms\n",
                static_cast<unsigned long long>(r.files), static_cast<unsigned long long>(r.bytes),
                static_cast<unsigned long long>(r.pages), static_cast<unsigned long long>(r.entries),
                static_cast<unsigned long long>(r.documents),
                static_cast<unsigned long long>(r.terms));
  });
}

}  // namespace dps::cli
