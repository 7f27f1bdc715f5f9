// A Tablet: a contiguous range of bins and the immutable files holding them
// (oldest first, so docids grow along the file list). Presents one term
// source per (bin, term) over all files, with tombstoned docids filtered.
// Immutable after Open; safe to share between threads.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/doc_iterator.h"
#include "index/global_index.h"
#include "index/manifest.h"
#include "index/tablet_reader.h"
#include "index/term_iterator.h"
#include "index/types.h"

namespace dps {

class Tablet {
 public:
  static Result<std::unique_ptr<Tablet>> Open(const std::string& dir, const TabletEntry& entry);

  uint32_t first_bin() const { return first_bin_; }
  uint32_t last_bin() const { return last_bin_; }
  bool HoldsBin(BinId bin) const { return bin.value >= first_bin_ && bin.value <= last_bin_; }
  const std::vector<std::unique_ptr<TabletReader>>& files() const { return files_; }

  // The live docids (with weights) of a term in `bin`, from the global
  // index's refs of that bin (the tablet's files keep no dictionary): null
  // when `refs` is empty. A ref naming a file or bin this tablet does
  // not have, or a range outside the bin's postings, is Corruption.
  // with_positions: the iterator can read each posting's positions
  // (TermIterator::Positions); Unsupported when a file has none.
  Result<std::unique_ptr<TermIterator>> OpenRefs(BinId bin, std::span<const TermRef> refs,
                                                 bool with_positions = false) const;
  // Resolves one ref to its file and absolute posting location.
  Status ResolveRef(const TermRef& ref, const TabletReader** file, PostingRef* out) const;
  // Deleted docids of `bin` (union of all files' tombstones), ascending.
  std::span<const DocId> deleted(BinId bin) const;
  bool IsDeleted(BinId bin, DocId docid) const;

  // The stored document; NotFound if absent or deleted.
  // Without `with_text`, doc->text stays empty and no text is decompressed.
  Status GetDocument(BinId bin, DocId docid, StoredDoc* doc, DocBlockCache* cache = nullptr,
                     bool with_text = true, bool with_titles = true) const;

 private:
  Tablet() = default;
  uint32_t first_bin_ = 0;
  uint32_t last_bin_ = 0;
  std::vector<std::unique_ptr<TabletReader>> files_;
  std::vector<std::vector<DocId>> deleted_;  // by bin - first_bin_
};

}  // namespace dps
