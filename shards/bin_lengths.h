// A bin's document lengths (BM25's dl) for ranking: shared by the
// exhaustive rankings (shards/ranking.cc, shards/term_at_a_time.cc).
#pragma once

#include <vector>

#include "index/tablet.h"

namespace dps {

// Where a bin's document lengths are: the files storing documents of the
// bin, looked up once per bin instead of once per scored document.
class BinLengths {
 public:
  // `column`: 0 the default field, 1 + f field f (index/field_key.h).
  BinLengths(const Tablet& tablet, BinId bin, size_t column = 0) {
    for (const auto& file : tablet.files()) {
      const int i = file->FindBin(bin);
      if (i < 0 || file->bin(static_cast<size_t>(i)).num_docs == 0) continue;
      const BinInfo& b = file->bin(static_cast<size_t>(i));
      ranges_.push_back({b.min_docid, b.max_docid, &file->lengths(static_cast<size_t>(i), column)});
    }
  }
  // The length of `docid` from the file storing it (0 when none does: it
  // cannot match then).
  uint32_t Of(DocId docid) const {
    for (const Range& r : ranges_) {
      if (docid >= r.min && docid <= r.max) return r.lengths->Get(docid);
    }
    return 0;
  }

 private:
  struct Range {
    DocId min, max;
    const DocLengthsReader* lengths;
  };
  std::vector<Range> ranges_;
};

}  // namespace dps
