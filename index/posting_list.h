// A posting list: the docids of one term in one bin with their weights,
// stored as blocks of kBlockSize docids (see posting_codec.h) and, when
// there is more than one block, a skip table holding each block's last docid,
// the last docid of each of its first three 32-docid parts, and its end,
// so that Seek binary-searches blocks instead of scanning and then decodes
// only the quarter block holding its target.
// Layout: docs/FORMAT.md ("Posting list").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/coding.h"
#include "common/status.h"
#include "index/block_impacts.h"
#include "index/posting_codec.h"
#include "index/types.h"

namespace dps {

// A skip table's columns: last_doc, three part lasts, doc_end per block,
// then the weight marks; its first byte (the layout) says how wide each is.
// Each flag halves a column when its values allow (docs/FORMAT.md "Posting
// list").
inline constexpr uint8_t kSkipNarrowParts = 1;  // parts: u16 distances back from last_doc (else u32 docids)
inline constexpr uint8_t kSkipShortLast = 2;    // last_doc: u16 (every docid < 65,536; else u32)
inline constexpr uint8_t kSkipShortEnds = 4;    // doc_end: u16 (doc blocks < 65,536 bytes; else u32)
inline constexpr uint8_t kSkipShortMarks = 8;   // weight marks: u16 (the last weight block starts < 65,536 bytes in; else u32)
inline constexpr uint8_t kSkipKnownFlags = 15;
// A list of two blocks or more keeps the offset of each weight block k >= 1
// from weight block 0 (its weight mark), so a cursor that lands anywhere in
// a list finds the block's weights with one load. (Tablet versions before
// 11 marked every 16th block and walked up to 15 headers from the mark: a
// chain of dependent cache misses in a phrase's position checks and a
// sparse ranking's weights; bench/RESULTS.md, session 30.)
constexpr size_t WeightMarks(size_t blocks) { return blocks > 1 ? blocks - 1 : 0; }
// Bytes of the skip table of a list of `blocks` blocks (none for one block).
size_t SkipTableSize(size_t blocks, uint8_t layout);

// Where the bytes of encoded posting lists go (index size reports).
struct PostingSizes {
  uint64_t lists = 0;         // lists encoded here (df > kMaxInlineDf as written)
  uint64_t postings = 0;      // postings in those lists
  uint64_t doc_bytes = 0;     // doc blocks
  uint64_t weight_bytes = 0;  // weight blocks
  uint64_t skip_bytes = 0;    // skip tables
  uint64_t impact_bytes = 0;  // block impacts (with their length prefix)
  void Add(const PostingSizes& o) {
    lists += o.lists;
    postings += o.postings;
    doc_bytes += o.doc_bytes;
    weight_bytes += o.weight_bytes;
    skip_bytes += o.skip_bytes;
    impact_bytes += o.impact_bytes;
  }
};

// Appends the encoding of a list. `lengths`: each posting's document
// length (BM25's dl), and `score_avgdl` the reference avgdl, for the block
// impacts (index/block_impacts.h). REQUIRES: docs, weights and lengths of
// one size >= 1, docs strictly increasing and <= kMaxDocId, every weight
// >= 1, every length >= its weight, score_avgdl > 0. Adds the list's byte
// counts to *sizes when given. Returns the largest of its block scores.
uint32_t EncodePostingList(std::span<const DocId> docs, std::span<const uint32_t> weights,
                       std::span<const uint32_t> lengths, double score_avgdl, std::string* out,
                       PostingSizes* sizes = nullptr);

// Iterates one posting list: a term source in the sense of PISA's cursors
// and tantivy's DocSet. doc() is kEndDoc once exhausted; Seek never moves
// backwards. Views nothing after Init: the decoded block lives in the cursor.
// On corruption the cursor is exhausted and status() says why, so a corrupt
// block yields an error, never a wrong answer. Not thread-safe; cheap to
// create (no allocation).
class PostingCursor {
 public:
  PostingCursor() = default;
  PostingCursor(const PostingCursor&) = delete;
  PostingCursor& operator=(const PostingCursor&) = delete;

  // Positions on the first docid of the encoded list [data, data + len)
  // holding `df` postings. REQUIRES: the bytes were checksum-verified and
  // outlive the cursor. `where` names the list in error messages.
  Status Init(const uint8_t* data, size_t len, uint32_t df, const std::string* file,
              uint64_t file_offset);
  // Init for a cursor whose first move is a Seek to `target` or beyond,
  // or (target kEndDoc) a SeekBlock: when target lies past the list's
  // first block, only the 32-docid part holding it is decoded (kEndDoc:
  // nothing), where Init decodes the first block whole; else it is
  // positioned as by Init. Every Seek(t >= target), and any SeekBlock,
  // then answers as after Init. A single term ranked best first
  // (shards/best_first_term.cc) opens its lists at kEndDoc: the first
  // block it scores is seldom block 0.
  Status InitAt(const uint8_t* data, size_t len, uint32_t df, const std::string* file,
                uint64_t file_offset, DocId target);
  // A list of one posting (stored inline in the term dictionary).
  void InitSingleton(DocId doc, uint32_t weight);
  // A short list stored inline in the dictionary: `df` (2 to
  // kMaxInlineDfRead) postings encoded as docs/FORMAT.md "Inline postings".
  Status InitInline(std::string_view payload, uint32_t df, bool has_weights);

  DocId doc() const { return docs_[pos_]; }
  DocId Next() {
    if (++pos_ < block_len_) return docs_[pos_];
    return NextBlock();
  }
  // Moves to the first docid >= target (no-op if already there). The common
  // cases (already there, or inside the decoded block) are inline.
  DocId Seek(DocId target) {
    if (docs_[pos_] >= target) return docs_[pos_];
    if (block_len_ > 0 && docs_[block_len_ - 1] >= target) {
      pos_ += static_cast<uint32_t>(LowerBoundNear(docs_ + pos_, block_len_ - pos_, target));
      return docs_[pos_];
    }
    return SeekSlow(target);
  }
  // Seek for a target most likely a few docids ahead (a phrase's
  // candidates in its word's list): a short scan before the search.
  DocId SeekNear(DocId target) {
    for (uint32_t k = 0; k < 4 && pos_ + k < block_len_; ++k) {
      if (docs_[pos_ + k] >= target) {
        pos_ += k;
        return docs_[pos_];
      }
    }
    return Seek(target);
  }
  // The decoded docids from the current one on (all ascending, at least one
  // unless exhausted); NextRun() moves past them to the next decoded run.
  // Lets a kernel consume whole blocks without a call per docid.
  const DocId* run() const { return docs_ + pos_; }
  size_t run_size() const { return block_len_ - pos_; }
  DocId NextRun() {
    pos_ = block_len_ - 1;
    return Next();
  }
  // The weights of run(), one per docid (decodes the block's weights on
  // first use); nullptr on corruption (status() says why).
  const uint32_t* run_weights() { return weight() != 0 && status_.ok() ? weights_ + pos_ : nullptr; }
  // The list's last docid (kEndDoc if the cursor failed).
  DocId last_doc() const;
  // Weight (term frequency) of the current posting; decodes its weight
  // block on first use. REQUIRES: doc() != kEndDoc.
  uint32_t weight();
  // The same weight, read alone when the block's weights are not decoded
  // yet (ValueBlockView: a few loads, where a block's decode costs
  // hundreds of instructions); a second ask in the block decodes it
  // whole. For a sparse ranking, which scores a posting or two a block of
  // its long lists. 0 on corruption (status() says why).
  uint32_t weight_alone();
  uint32_t df() const { return df_; }
  const Status& status() const { return status_; }
  // Where the current posting's positions are (index/positions.h): its
  // doc block, the weights of the block's earlier postings summed, and its
  // own weight. False on corruption (status() says why). REQUIRES: doc()
  // != kEndDoc.
  // Phrases ask in docid order: the sum carries on from the last one asked
  // in the block (a fresh sum after a backward step).
  bool PositionsAt(uint32_t* block, uint64_t* in_block, uint32_t* tf) {
    *tf = weight();
    if (*tf == 0 || !status_.ok()) return false;
    if (pos_ < summed_) summed_ = 0, sum_ = 0;
    // Locals, so the compiler vectorizes the sum (a phrase's sparse
    // candidates add up half a block's weights each).
    uint64_t sum = 0;
    for (uint32_t i = summed_; i < pos_; ++i) sum += weights_[i];
    sum_ += sum;
    summed_ = pos_;
    *block = block_;
    *in_block = sum_;
    return true;
  }

  // Block-max pruning (shards/ranking): the list's blocks, their last
  // docids and impacts (index/block_impacts.h), read from the skip table
  // and the impacts without decoding a block. Lists kept in the dictionary
  // (inline, singletons) have no stored impacts: has_impacts() is false and
  // the caller bounds them from their few postings.
  bool has_impacts() const { return data_ != nullptr; }
  uint32_t num_blocks() const { return num_blocks_; }
  DocId block_last(size_t b) const;
  // The first block at or after `from` whose last docid is >= target;
  // num_blocks() when none is.
  size_t BlockFor(DocId target, size_t from) const;
  // Warms the cache for Seeks to `targets` (ascending, none below doc()),
  // so that their misses overlap: a short lead's candidates land in far
  // blocks of a long list, each seek a chain of misses otherwise (bench/
  // RESULTS.md "Seeks in flight together"). The blocks it finds are kept
  // as hints for those seeks, which check a hint against the skip table
  // before they use it: nothing a seek returns changes. At most
  // kMaxPrefetchTargets are warmed.
  static constexpr size_t kMaxPrefetchTargets = 128;
  void PrefetchSeeks(const DocId* targets, size_t count);
  // Times a block or part was decoded: a kernel sees its lead move on.
  uint32_t loads() const { return loads_; }
  // Positions on the first docid of block b, forwards or backwards, with
  // the whole block decoded (run() is the block): for a ranking that
  // visits a list's blocks out of docid order, best first. Every check of
  // a forward walk still applies (a block must agree with the skip table;
  // weights are found from b's weight mark). kEndDoc
  // when b >= num_blocks(), or once the cursor has failed (it stays failed).
  // REQUIRES has_impacts() (a list kept inline is never rewound).
  DocId SeekBlock(size_t b);
  // Block b's score (index/block_impacts.h). REQUIRES has_impacts(),
  // b < num_blocks().
  // A score is at least 1: a reader that finds 0 reports it through
  // BadBlockScore(b), which fails the cursor (Corruption naming the list).
  uint32_t block_score(size_t b) const { return DecodeFixed16(scores_at_ + 2 * b); }
  // All num_blocks() scores, for index/score_scan.h. REQUIRES has_impacts().
  const uint8_t* block_scores() const { return scores_at_; }
  Status BadBlockScore(size_t b) {
    Fail("block score 0", b);
    return status_;
  }
  // Block b's corner. Cheapest asked in ascending b (corners are read
  // forward from the last one asked). False on corruption (status() says
  // why; the cursor is then exhausted).
  bool ReadCorner(size_t b, Impact* out);

 private:
  // Init's checks and pointers, no block decoded; false when it failed.
  bool Setup(const uint8_t* data, size_t len, uint32_t df, const std::string* file,
             uint64_t file_offset);
  DocId NextBlock();
  DocId SeekSlow(DocId target);
  // BlockFor(target, block_ + 1), from PrefetchSeeks' hints when one holds.
  size_t HintedBlockFor(DocId target);
  // A target's block as if the list's docids were spread evenly between
  // its first and last block ends: where BlockFor starts a far search.
  size_t GuessBlock(DocId target) const;
  // A far search (past this many blocks) starts at GuessBlock.
  static constexpr size_t kNearBlocks = 8;
  // Shorter lists are not warmed: their skip tables are a line or two.
  static constexpr size_t kPrefetchMinBlocks = 16;
  // Decodes the part of block `b` holding `target` (or all of a partial
  // block) and positions on the first docid >= target.
  DocId LoadBlockFor(size_t b, DocId target);
  // Decodes part `part` of the current (full) block; false on corruption.
  bool LoadPart(size_t part);
  // The last docid of part `part` of block b (part 3: the block's last).
  uint32_t PartLast(size_t b, size_t part) const {
    if (part == 3) return SkipLastDoc(b);
    if (narrow_) return SkipLastDoc(b) - DecodeFixed16(parts_at_ + 6 * b + 2 * part);
    return DecodeFixed32(parts_at_ + 12 * b + 4 * part);
  }
  // Decodes block `b`, positions on its first docid. Returns doc().
  DocId LoadBlock(size_t b);
  // u16 or u32 columns read alike: a 4-byte load masked (a u16 column's
  // last load reads 2 bytes of the next column or of the doc blocks).
  uint32_t SkipLastDoc(size_t b) const { return DecodeFixed32(data_ + 1 + last_width_ * b) & last_mask_; }
  uint32_t BlockPostings(size_t b) const {
    return static_cast<uint32_t>(std::min<size_t>(kBlockSize, df_ - b * kBlockSize));
  }
  uint32_t DocEnd(size_t b) const { return DecodeFixed32(ends_at_ + end_width_ * b) & end_mask_; }
  DocId Fail(const char* what, size_t block);
  // Weight block `block`'s offset from weight block 0 (block >= 1).
  uint32_t WeightMark(size_t block) const {
    return DecodeFixed32(marks_at_ + mark_width_ * (block - 1)) & mark_mask_;
  }
  // A decoded weight block ending at `start`, where block `block` begins:
  // they must agree with its mark, or with the list's end past the last
  // block (else the cursor fails).
  bool MarkAgrees(size_t block, const uint8_t* start);
  // Points weight_next_ at block_'s weights, from its mark unless the
  // previous block's decode left it there; false on corruption.
  bool FindBlockWeights();

  // docs_[block_len_] is kEndDoc so doc() after exhaustion needs no branch.
  alignas(16) uint32_t docs_[kBlockSize + 4] = {kEndDoc};
  alignas(16) uint32_t weights_[kBlockSize + 4];
  uint32_t pos_ = 0;
  uint32_t block_len_ = 0;
  uint32_t df_ = 0;
  uint32_t num_blocks_ = 0;
  uint32_t block_ = 0;  // index of the decoded block
  uint32_t loads_ = 0;
  // GuessBlock's line: the first block's last docid and blocks per docid
  // after it (guess_scale_ < 0: not read yet).
  mutable uint32_t guess_first_ = 0;
  mutable double guess_scale_ = -1;
  // PrefetchSeeks' blocks, ascending; the next seek tries hint_next_ on.
  uint32_t hint_count_ = 0, hint_next_ = 0;
  uint32_t hints_[kMaxPrefetchTargets];
  // weight_alone: the block whose weights were read alone (its start
  // alone_start_), UINT32_MAX: none.
  uint32_t alone_block_ = UINT32_MAX;
  const uint8_t* alone_start_ = nullptr;
  bool weights_loaded_ = false;
  uint32_t summed_ = 0;  // PositionsAt: weights_[0, summed_) add up to sum_
  uint64_t sum_ = 0;
  uint32_t block_size_ = 0;  // postings in block_; block_len_ < it while parts are pending
  bool narrow_ = false;  // skip table parts are u16 distances
  uint32_t last_width_ = 4, last_mask_ = UINT32_MAX;  // the last_doc column
  uint32_t end_width_ = 4, end_mask_ = UINT32_MAX;    // the doc_end column
  uint32_t mark_width_ = 4, mark_mask_ = UINT32_MAX;  // the weight marks
  uint32_t weight_block_ = 0;  // the block whose weights start at weight_next_
  const uint8_t* data_ = nullptr;   // start of the list
  const uint8_t* parts_at_ = nullptr;  // skip table: part lasts
  const uint8_t* ends_at_ = nullptr;   // skip table: doc_end
  const uint8_t* marks_at_ = nullptr;  // skip table: weight marks
  const uint8_t* scores_at_ = nullptr;   // block impacts: the block scores (u16)
  const uint8_t* corners_at_ = nullptr;  // block impacts: the first corner
  const uint8_t* corner_next_ = nullptr;  // corner of block corner_block_
  uint32_t corner_block_ = 0;
  Impact first_corner_;  // a one-block list's, parsed by Init
  const uint8_t* docs_at_ = nullptr;   // start of doc blocks
  const uint8_t* weights_at_ = nullptr;  // start of weight blocks
  const uint8_t* weight_next_ = nullptr;  // start of block weight_block_'s weights
  const uint8_t* end_ = nullptr;
  const std::string* file_ = nullptr;
  uint64_t file_offset_ = 0;
  Status status_;
};

}  // namespace dps
