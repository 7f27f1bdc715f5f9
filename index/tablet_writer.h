// Writes one immutable tablet file: for each bin (ascending) its posting
// lists (term ascending), its stored documents (docid ascending), the
// docids it deletes from older files of the tablet, then the bin directory.
// Layout: docs/FORMAT.md ("Tablet file"). The file is complete only after
// Finish() (which fsyncs); an unfinished file has no valid footer and is
// rejected by the reader. One thread.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/doc_lengths.h"
#include "index/doc_store.h"
#include "index/field_key.h"
#include "index/paged_file.h"
#include "index/posting_list.h"
#include "index/spill_buffer.h"
#include "index/tablet_format.h"
#include "index/term_dict.h"
#include "index/term_list.h"
#include "index/types.h"

namespace dps {

struct TabletWriterOptions {
  // Keep document text in the doc store. Off: ids and titles only (smaller
  // index; results show no snippets). The peers harness compares sizes
  // without stored text.
  bool store_text = true;
  // zstd level of doc store blocks: 3 is zstd's default, a good balance of
  // ingest speed and size; 19 is ~30% smaller and ~10x slower to write.
  int zstd_level = 3;
  // Word positions: every list comes with its postings' positions, kept in
  // each bin's positions region (docs/FORMAT.md "Positions").
  bool positions = false;
  // The index's fields (MANIFEST `fields`): a field key's list (field_key.h)
  // counts into its field's length column, and a key naming another field
  // is refused.
  FieldSet fields;
};

class TabletWriter {
 public:
  static Result<std::unique_ptr<TabletWriter>> Create(const std::string& path,
                                                      const TabletWriterOptions& options);

  // REQUIRES: bins strictly ascending across calls.
  Status StartBin(BinId bin);
  // The lengths of the bin's documents in `column` (each the sum of its
  // weights in the bin's lists of that column: 0 the default field, 1 + f
  // field f of options.fields), which the lists' block impacts need: set
  // before the bin's lists; `lengths` outlives the bin. AddDocument checks
  // them. A column never set counts as all zero lengths given.
  void SetDocLengths(const BinLengthTable* lengths, size_t column = 0) {
    if (column < given_lengths_.size()) given_lengths_[column] = lengths;
  }
  // REQUIRES: terms strictly ascending within the bin, before any document;
  // docs strictly ascending, <= kMaxDocId; weights >= 1; same sizes, >= 1.
  // With options.positions, `positions` holds each posting's weight's
  // ascending positions, one posting after another; else it is ignored.
  Status AddPostingList(std::string_view term, std::span<const DocId> docs,
                        std::span<const uint32_t> weights, std::span<const uint32_t> positions = {});

  // AddPostingList in two steps, for builders that encode a bin's lists in
  // parallel: EncodeList checks and encodes a list (postings, block
  // impacts, positions) from the list and the bin's lengths alone, and may
  // run concurrently for lists of the current bin (after its
  // SetDocLengths, while nothing else changes the writer); AddEncodedList
  // then adds it, in term order, with the postings it was encoded from.
  // The bytes are AddPostingList's, which is these two calls.
  struct EncodedList {
    std::string term;
    size_t column = 0;
    uint32_t df = 0;
    bool is_inline = false;
    std::string inline_value;    // is_inline: the dictionary value whole
    std::string postings;        // else: the list in the postings region
    std::string positions;       // else, with positions: its positions list
    uint32_t max_score = 0;      // else: its largest block score
    uint32_t score_avgdl = 0;    // else: the column's reference it was scored with
    PostingSizes sizes;
  };
  Status EncodeList(std::string_view term, std::span<const DocId> docs, std::span<const uint32_t> weights,
                    std::span<const uint32_t> positions, EncodedList* out) const;
  // REQUIRES: `docs` and `weights` those `list` was encoded from.
  Status AddEncodedList(const EncodedList& list, std::span<const DocId> docs, std::span<const uint32_t> weights);

  // REQUIRES: docid strictly ascending within the bin. Its length (for
  // BM25) is the sum of its weights in this bin's posting lists.
  Status AddDocument(DocId docid, std::string_view id, std::string_view title,
                     std::string_view text);
  // Docids of older files in this tablet that this file deletes. Any order.
  Status AddTombstones(std::span<const DocId> docids);
  Status FinishBin();
  // Writes the directory, page table and footer; fsyncs.
  Status Finish();

  uint64_t bytes_written() const { return file_->offset(); }
  // Byte counts of the posting lists written so far (df >= 2), and the
  // number of postings stored inline in the dictionary (lists of df <= kMaxInlineDf).
  const PostingSizes& posting_sizes() const { return sizes_; }
  uint64_t inline_postings() const { return inline_postings_; }

 private:
  TabletWriter(std::unique_ptr<PagedFileWriter> file, const std::string& path, const TabletWriterOptions& options);
  Status Append(std::string_view bytes) { return file_->Append(bytes); }
  Status CheckPositions(std::string_view term, std::span<const uint32_t> weights,
                        std::span<const uint32_t> positions) const;
  Status WritePositionsRegion();

  std::unique_ptr<PagedFileWriter> file_;
  // Each bin's dictionary goes to the term list beside the file
  // (TermListPathFor): the commit merges it into the global index, and the
  // tablet file itself keeps none.
  std::unique_ptr<TermListWriter> term_list_;
  TabletWriterOptions options_;
  bool in_bin_ = false;
  bool have_bin_ = false;
  BinInfo bin_;
  std::string last_term_;
  bool docs_started_ = false;
  DocId last_doc_ = 0;
  DocStoreWriter docs_;
  std::vector<DocId> tombstones_;
  // By column (0: the default field, 1 + f: field f).
  std::vector<DocLengthCounter> lengths_;           // the bin's weights summed by docid
  std::vector<std::vector<uint32_t>> doc_lengths_;  // the bin's documents' lengths, min_docid on
  std::vector<const BinLengthTable*> given_lengths_;  // SetDocLengths
  std::vector<uint32_t> field_score_avgdl_;  // by column: its block scores' reference, 0 until a list needs it
  EncodedList encoded_;  // AddPostingList's
  std::string directory_;
  uint32_t bins_ = 0;
  std::string scratch_;
  SpillBuffer positions_region_;  // the bin's, written after its postings (to a temporary file past 1 MiB)
  PostingSizes sizes_;
  uint64_t inline_postings_ = 0;
};

}  // namespace dps
