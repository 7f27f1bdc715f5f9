// EntryCursor: every live entry of a tablet in Accumulo key order
// (bin, term, docid) with the weight as value — the SortedKeyValueIterator
// view of the index, used by `dpsearch scan`, compaction and the cursor
// conformance tests. Walks the global index's terms, takes each term's refs
// in the current bin, and skips tombstoned docids.
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
#include "index/global_index.h"
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
  // `global` may be null (an index without terms). `first_file`: the tablet
  // is files [first_file, ...) of the MANIFEST's tablet (compaction's run):
  // refs to earlier files are skipped, later ones shifted.
  // with_positions: positions() reads each entry's word positions.
  EntryCursor(const GlobalIndexReader* global, const Tablet* tablet, uint32_t first_file = 0,
              bool with_positions = false);

  void SeekToFirst() { Seek(tablet_->first_bin(), "", 0); }
  // First entry >= (bin, term, docid) in Accumulo order.
  void Seek(uint32_t bin, std::string_view term, DocId docid);
  void Next();
  bool Valid() const { return valid_; }
  EntryKey key() const { return EntryKey{bin_, term_, docs_->doc()}; }
  uint32_t weight() const { return weight_; }
  // The current entry's positions (REQUIRES: with_positions, Valid()).
  Status positions(std::vector<uint32_t>* out) { return docs_->Positions(out); }
  const Status& status() const { return status_; }

 private:
  // Positions the term cursor at the first term >= term with refs in bin_.
  void SeekTerms(std::string_view term);
  // Moves the term cursor until its term has refs in bin_ (kept in refs_).
  void SkipToTermInBin();
  // Makes term_ the current term; false when the bin has no more terms.
  bool PickTerm();
  // Moves to the first live entry at or after the current term state with
  // docid >= docid, crossing terms and bins.
  void Settle(DocId docid);
  void AdvanceTerm();
  bool Fail(const Status& s);
  Status OpenCurrentTerm();

  const GlobalIndexReader* global_;
  const Tablet* tablet_;
  uint32_t first_file_;
  bool with_positions_;
  uint32_t bin_ = 0;
  std::unique_ptr<TermDictCursor> terms_;
  GlobalTermInfo info_;
  std::vector<TermRef> refs_;  // the current term's refs in bin_, shifted
  std::string term_;
  std::unique_ptr<TermIterator> docs_;
  uint32_t weight_ = 0;
  bool valid_ = false;
  Status status_;
};

}  // namespace dps
