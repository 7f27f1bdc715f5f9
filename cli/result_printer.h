// Prints result lines of `dpsearch query` in its three formats:
//   tsv:   id<TAB>title<TAB>bin<TAB>docid (fields backslash-escaped)
//   jsonl: {"id","title","bin","docid","snippet"}
//   text:  id  title / indented snippet (escaped; matches highlighted on a tty)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "query/searcher.h"
#include "query/snippet.h"

namespace dps::cli {

class ResultPrinter {
 public:
  // `terms`: the query's positive terms, highlighted in snippets.
  ResultPrinter(std::string format, bool snippets, bool color, std::vector<std::string> terms);

  // Prints one bin's results and flushes (results show while slow bins work).
  void Print(const BinResult& bin);
  uint64_t printed() const { return printed_; }

 private:
  std::string format_;
  bool snippets_;
  SnippetStyle style_;
  std::vector<std::string> terms_;
  uint64_t printed_ = 0;
};

}  // namespace dps::cli
