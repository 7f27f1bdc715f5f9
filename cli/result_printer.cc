#include "cli/result_printer.h"

#include <cstdio>

#include "query/result_format.h"

namespace dps::cli {

ResultPrinter::ResultPrinter(std::string format, bool snippets, bool color)
    : format_(std::move(format)), snippets_(snippets) {
  if (color) {
    style_.before = "\033[1;31m";
    style_.after = "\033[0m";
  }
}

void ResultPrinter::Print(const BinResult& b) {
  for (size_t i = 0; i < b.stored.size(); ++i) {
    const StoredDoc& d = b.stored[i];
    const DocId docid = b.docs[i];
    if (format_ == "tsv") {
      std::printf("%s\t%s\t%u\t%u\n", FieldEscape(d.id).c_str(), FieldEscape(d.title).c_str(), b.bin.value, docid);
    } else if (format_ == "jsonl") {
      const std::string snippet = snippets_ ? RenderSnippet(d.text, SnippetStyle()) : "";
      std::printf("{\"id\":\"%s\",\"title\":\"%s\",\"bin\":%u,\"docid\":%u,\"snippet\":\"%s\"}\n",
                  JsonEscape(d.id).c_str(), JsonEscape(d.title).c_str(), b.bin.value, docid,
                  JsonEscape(snippet).c_str());
    } else if (snippets_) {
      std::printf("%s  %s\n    %s\n", FieldEscape(d.id).c_str(), FieldEscape(d.title).c_str(),
                  RenderSnippet(d.text, style_).c_str());
    } else {
      std::printf("%s  %s\n", FieldEscape(d.id).c_str(), FieldEscape(d.title).c_str());
    }
  }
  printed_ += b.stored.size();
  std::fflush(stdout);
}

}  // namespace dps::cli
