// Reads a tablet file written by TabletWriter: the bin directory, and per bin
// its posting lists, doc store and tombstones (the term
// dictionaries are in the global index).
// Memory-mapped; every byte is checksum-verified on first touch (see
// paged_file.h). Immutable after Open and safe to share between threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/doc_lengths.h"
#include "index/doc_store.h"
#include "index/field_lengths.h"
#include "index/paged_file.h"
#include "index/posting_list.h"
#include "index/positions.h"
#include "index/tablet_format.h"
#include "index/types.h"

namespace dps {

// Where a term's postings are: inline in the dictionary (a singleton, or a
// short list's encoded bytes) or a byte range of the file.
struct PostingRef {
  uint32_t df = 0;
  DocId inline_doc = 0;  // df == 1
  uint32_t inline_weight = 0;
  std::string_view inline_postings;  // df >= 2 inline (docs/FORMAT.md "Inline postings")
  bool inline_weights = false;
  uint64_t offset = 0;  // a list in the file: absolute file offset
  uint64_t len = 0;
  // A list in the file of more than one block: the largest of its block
  // scores (index/block_impacts.h), the term's bound in the bin; else 0.
  uint32_t max_score = 0;
  // Positions (a file with kTabletFlagPositions): an inline list's inline
  // positions ("Inline positions"), or the absolute offset of a list's
  // positions list in its bin's positions region.
  std::string_view inline_positions;
  uint64_t positions_offset = 0;
  bool in_file() const { return df >= 2 && inline_postings.empty(); }
};

class TabletReader {
 public:
  static Result<std::unique_ptr<TabletReader>> Open(const std::string& path);

  size_t bin_count() const { return bins_.size(); }
  const BinInfo& bin(size_t i) const { return bins_[i].info; }
  // Index of `bin` in this file, or -1 when the file holds nothing for it.
  int FindBin(BinId bin) const;
  bool stores_text() const { return stores_text_; }
  bool positions() const { return positions_; }
  const std::string& path() const { return file_->path(); }
  uint64_t file_size() const { return file_->file_size(); }
  const PagedFileReader& file() const { return *file_; }

  // Decodes a dictionary value of bin i (from the file's term list).
  Status ParsePostingRef(size_t i, std::string_view value, PostingRef* ref) const;
  // Verifies the list's bytes and positions `cursor` on its first docid.
  Status OpenCursor(const PostingRef& ref, PostingCursor* cursor) const;
  // OpenCursor for a cursor whose first move is a Seek to `target` or
  // beyond, or a SeekBlock (target kEndDoc): PostingCursor::InitAt.
  Status OpenCursorAt(const PostingRef& ref, DocId target, PostingCursor* cursor) const;
  // The positions of the list `ref` names (index/positions.h).
  // Unsupported when the file has none.
  Status OpenPositions(const PostingRef& ref, PostingPositions* out) const;

  const DocStoreReader& docs(size_t i) const { return bins_[i].docs; }
  // Bin i's document lengths (BM25's dl), REQUIRES: bin(i).num_docs > 0.
  const DocLengthsReader& lengths(size_t i) const { return bins_[i].lengths; }
  // Bin i's lengths in `column`: 0 is the default field (lengths(i)),
  // 1 + f field f of the index (index/field_key.h). REQUIRES: num_docs > 0,
  // column < field_columns(i) + 1.
  const DocLengthsReader& lengths(size_t i, size_t column) const {
    return column == 0 ? bins_[i].lengths : bins_[i].fields[column - 1].lengths;
  }
  // Bin i's field length columns (empty when the bin stores no documents).
  const std::vector<FieldLengthColumn>& field_columns(size_t i) const { return bins_[i].fields; }
  // Docids this file deletes from older files of the tablet, ascending.
  const std::vector<DocId>& tombstones(size_t i) const { return bins_[i].tombstones; }

 private:
  struct Bin {
    BinInfo info;
    DocStoreReader docs;
    DocLengthsReader lengths;  // empty when the bin stores no documents
    std::vector<FieldLengthColumn> fields;  // likewise
    std::vector<DocId> tombstones;
  };
  TabletReader() = default;
  Status OpenBin(Bin* bin);
  std::string Where(uint64_t offset) const;

  std::unique_ptr<PagedFileReader> file_;
  bool stores_text_ = false;
  bool positions_ = false;
  static const uint8_t* InlinePositionsOf(const uint8_t* p, const uint8_t* end, uint64_t values, std::string_view* out);
  std::vector<Bin> bins_;
};

}  // namespace dps
