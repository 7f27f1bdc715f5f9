#include "cli/result_printer.h"

#include <charconv>
#include <cstdio>

#include "query/result_format.h"

namespace dps::cli {

// The shortest text that reads back as the same double: a score printed is
// the score computed.
std::string ScoreText(double score) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, score).ptr;
  return std::string(buf, end);
}

ResultPrinter::ResultPrinter(std::string format, bool snippets, bool color)
    : format_(std::move(format)), snippets_(snippets) {
  if (color) {
    style_.before = "\033[1;31m";
    style_.after = "\033[0m";
  }
}

void ResultPrinter::Print(const BinResult& b) {
  const bool ranked = !b.scores.empty();
  for (size_t i = 0; i < b.stored.size(); ++i) {
    const StoredDoc& d = b.stored[i];
    const DocId docid = b.docs[i];
    const std::string score = ranked ? ScoreText(b.scores[i]) : "";
    if (format_ == "tsv") {
      std::printf("%s\t%s\t%u\t%u%s%s\n", FieldEscape(d.id).c_str(), FieldEscape(d.title).c_str(), b.bin.value,
                  docid, ranked ? "\t" : "", score.c_str());
    } else if (format_ == "jsonl") {
      const std::string snippet = snippets_ ? RenderSnippet(d.text, SnippetStyle()) : "";
      std::printf("{\"id\":\"%s\",\"title\":\"%s\",\"bin\":%u,\"docid\":%u,%s%s%s\"snippet\":\"%s\"}\n",
                  JsonEscape(d.id).c_str(), JsonEscape(d.title).c_str(), b.bin.value, docid,
                  ranked ? "\"score\":" : "", score.c_str(), ranked ? "," : "", JsonEscape(snippet).c_str());
    } else {
      std::printf("%s  %s%s%s%s\n", FieldEscape(d.id).c_str(), FieldEscape(d.title).c_str(), ranked ? "  [" : "",
                  score.c_str(), ranked ? "]" : "");
      if (snippets_) std::printf("    %s\n", RenderSnippet(d.text, style_).c_str());
    }
  }
  printed_ += b.stored.size();
  std::fflush(stdout);
}

}  // namespace dps::cli
