// EntryCursor: every live entry of a tablet in Accumulo key order
// (bin, term, docid) with the weight as value — the SortedKeyValueIterator
// view of the index, used by `dpsearch scan`, compaction and the cursor
// conformance tests. Merges the dictionaries of the tablet's files per bin
// and skips tombstoned docids.
//
// Contract (leveldb Iterator): Seek may be called at any time, also in the
// middle of a bin; key()/term() views stay valid until the next move; on an
// error the cursor becomes invalid and status() says why.
// Single-threaded; the Tablet must outlive the cursor.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/tablet.h"
#include "index/term_dict.h"
#include "index/term_iterator.h"

namespace dps {

struct EntryKey {
  uint32_t bin = 0;
  std::string_view term;
  DocId docid = 0;
};

class EntryCursor {
 public:
  explicit EntryCursor(const Tablet* tablet) : tablet_(tablet) {}

  void SeekToFirst() { Seek(tablet_->first_bin(), "", 0); }
  // First entry >= (bin, term, docid) in Accumulo order.
  void Seek(uint32_t bin, std::string_view term, DocId docid);
  void Next();
  bool Valid() const { return valid_; }
  EntryKey key() const { return EntryKey{bin_, term_, docs_->doc()}; }
  uint32_t weight() const { return weight_; }
  const Status& status() const { return status_; }

 private:
  // Positions the dictionary cursors of `bin_` at the first term >= term.
  void SeekTerms(std::string_view term);
  // Makes term_ the smallest current dictionary key; false when the bin has
  // no more terms.
  bool PickTerm();
  // Moves to the first live entry at or after the current dictionary state
  // with docid >= docid, crossing terms and bins.
  void Settle(DocId docid);
  void AdvanceTerm();
  bool Fail(const Status& s);

  const Tablet* tablet_;
  uint32_t bin_ = 0;
  // Builds docs_ for term_ from the dictionary cursors positioned on it (no
  // second dictionary lookup); files in tablet order so docids ascend.
  Status OpenCurrentTerm();

  struct Dict {
    const TabletReader* file;
    size_t bin_index;
    std::unique_ptr<TermDictCursor> cursor;
  };
  std::vector<Dict> dicts_;  // one per file holding bin_, in file order
  std::string term_;
  std::unique_ptr<TermIterator> docs_;
  uint32_t weight_ = 0;
  bool valid_ = false;
  Status status_;
};

}  // namespace dps
