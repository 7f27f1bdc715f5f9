// Prints result lines of `dpsearch query` in its three formats:
//   tsv:   id<TAB>title<TAB>bin<TAB>docid[<TAB>score] (fields backslash-escaped)
//   jsonl: {"id","title","bin","docid"[,"score"],"snippet"}
//   text:  id  title[  [score]] / indented snippet (escaped; matches highlighted on a tty)
// Ranked results (BinResult::scores) carry their BM25 score, written as the
// shortest decimal that reads back as the same double.
#pragma once

#include <cstdint>
#include <string>

#include "query/searcher.h"
#include "shards/snippet.h"

namespace dps::cli {

std::string ScoreText(double score);

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
