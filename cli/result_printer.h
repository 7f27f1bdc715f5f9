// Prints result lines of `dpsearch query` in its three formats:
//   tsv:   id<TAB>title<TAB>bin<TAB>docid (fields backslash-escaped)
//   jsonl: {"id","title","bin","docid","snippet"}
//   text:  id  title / indented snippet (escaped; matches highlighted on a tty)
#pragma once

#include <cstdint>
#include <string>

#include "query/searcher.h"
#include "shards/snippet.h"

namespace dps::cli {

class ResultPrinter {
 public:
  // `snippets`: results carry marked snippets (Fetch::kSnippet) to render.
  ResultPrinter(std::string format, bool snippets, bool color);

  // Prints one bin's results and flushes (results show while slow bins work).
  void Print(const BinResult& bin);
  uint64_t printed() const { return printed_; }

 private:
  std::string format_;
  bool snippets_;
  SnippetStyle style_;
  uint64_t printed_ = 0;
};

}  // namespace dps::cli
