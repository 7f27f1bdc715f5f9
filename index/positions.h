// Word positions of a posting list's documents, kept apart from its docids
// and weights (as Lucene keeps .pos apart from .doc) so that a count or an
// AND never reads them: only a phrase's candidates do. A posting's
// positions are as many as its weight (tf), ascending; a list's positions
// are one stream of values, each posting's first position then each gap
// minus one, cut into value blocks of 128 (posting_codec's PFOR layout).
// Tables at the head find the values of a doc block and the bytes of a
// value block. Bytes: docs/FORMAT.md ("Positions").
//
// Lists kept inline (in a term list or the global index) keep theirs
// inline too, as varints after the postings ("Inline positions").
//
// Thread-safety: a PositionReader is one cursor's (it caches the last
// value block it decoded); the encoders are pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/posting_codec.h"

namespace dps {

class PagedFileReader;

// The largest position: documents are at most kMaxDocLength (2^32 - 1)
// tokens, numbered from 0.
inline constexpr uint32_t kMaxPosition = UINT32_MAX - 1;

// Appends the positions list of a posting list in a file: weights[j] is
// posting j's tf and its positions are the next weights[j] values of
// `positions` (ascending within each posting). REQUIRES: the sizes agree
// (sum of weights = positions.size()), every weight >= 1.
void EncodePositionList(std::span<const uint32_t> weights, std::span<const uint32_t> positions,
                        std::string* out);

// Appends a list's positions in the inline form (varints).
void AppendInlinePositions(std::span<const uint32_t> weights, std::span<const uint32_t> positions,
                           std::string* out);

// Reads inline positions for `weights` at p into *positions (appended);
// the byte after them, or nullptr when they are malformed (truncated, a
// position past kMaxPosition).
const uint8_t* ParseInlinePositions(const uint8_t* p, const uint8_t* end, std::span<const uint32_t> weights,
                                    std::vector<uint32_t>* positions);

// The byte after inline positions of `values` varints at p, nullptr if
// truncated: how a dictionary lookup steps over them without decoding.
const uint8_t* SkipInlinePositions(const uint8_t* p, const uint8_t* end, uint64_t values);

// One positions list in a file, read a posting at a time.
class PositionReader {
 public:
  // `list` starts at the list and may run on past it (to the region's end);
  // df: the posting list's length. Checks the head and tables; `where`
  // names the list in errors.
  Status Open(std::string_view list, uint64_t df, std::string where);
  // The same over a paged file (a tablet's positions region), the list at
  // `offset`, the region ending at `end`: each range is checksum-verified
  // (PagedFileReader::Verify) before it is read, so a phrase reads only
  // the pages of the value blocks it decodes. Errors name the list as
  // "*path: positions list at offset N", composed only on an error (a
  // phrase opens a reader per word per bin: the name cost an allocation
  // each). REQUIRES: *path outlives the reader.
  Status Open(const PagedFileReader* file, uint64_t offset, uint64_t end, uint64_t df, const std::string* path);

  // The positions of the posting of doc block `block` whose values start
  // `in_block` values into the block's (the tfs of the block's earlier
  // postings summed), `tf` of them, into out[0..tf).
  // A posting of a few values is read in place (ValueBlockView) unless its
  // block is decoded already.
  Status Get(size_t block, uint64_t in_block, uint32_t tf, uint32_t* out);

  // The positions of many postings at once: posting i is at (blocks[i],
  // in_blocks[i]) with weight tfs[i], as Get takes them, in list order
  // (each after the one before). Their positions go to out, in order
  // (room for the tfs' sum, which is at most values()). A value block asked for a few values is read in place
  // (ValueBlockView), one asked for more is decoded whole: which one is
  // known here, as the batch says how many values each block serves.
  Status GetMany(const uint32_t* blocks, const uint64_t* in_blocks, const uint32_t* tfs, size_t m,
                 uint32_t* out);

  // GetMany for postings of one doc block that are dense in it (a
  // phrase's candidates are most of a frequent word's postings): every
  // value block they touch is decoded whole, once, and each posting's
  // positions come out of it with no per-posting lookup of its block.
  Status GetRun(uint32_t block, const uint64_t* in_blocks, const uint32_t* tfs, size_t m, uint32_t* out);

  // Every value block decoded and the whole list checked against its
  // postings' weights (in list order): what `dpsearch check` runs. *end_out:
  // the byte after the list.
  Status CheckWhole(std::span<const uint32_t> weights, const uint8_t** end_out);

  uint64_t values() const { return values_; }

  // For a phrase's merge straight out of the value blocks
  // (index/phrase_merge.cc): where doc block `block`'s values start in the
  // list's value stream, or UINT64_MAX when the list has no such block.
  uint64_t BlockValueStart(uint32_t block) const { return block < blocks_ ? BlockStart(block) : UINT64_MAX; }
  // The raw values [start, start + tf) (a posting's first position, then
  // its gaps minus one) where they lie in the value block decoded last, or
  // nullptr: the merge's common case, with no call and no Status.
  const uint32_t* Decoded(uint64_t start, uint32_t tf) const {
    const uint64_t chunk = start / kBlockSize;
    return chunk == loaded_ && (start + tf - 1) / kBlockSize == chunk ? buf_ + start % kBlockSize : nullptr;
  }
  // The raw values [start, start + tf), wherever they lie: their value
  // block decoded whole when `whole` (then *out points into it), else read
  // in place, and values spanning blocks, into scratch (room for tf).
  // REQUIRES: tf >= 1, start + tf <= values().
  Status Values(uint64_t start, uint32_t tf, bool whole, uint32_t* scratch, const uint32_t** out);

 private:
  Status Corrupt(const std::string& what) const;
  std::string Where() const;
  Status PastMaxPosition() const;
  Status Verify(const uint8_t* from, uint64_t len) const;
  Status OpenVerified(uint64_t df);
  Status ChunkBytes(uint64_t chunk, const uint8_t** from, size_t* n) const;
  Status EndsOnTable(uint64_t chunk, const uint8_t* after) const;
  // Value block `chunk` decoded whole into buf_, or opened in place in view_.
  Status ReadChunk(uint64_t chunk, bool whole);
  // The raw values [start, start + tf) into out, through whole blocks.
  Status CopyValues(uint64_t start, uint32_t tf, uint32_t* out);
  uint64_t BlockStart(size_t block) const;

  const PagedFileReader* file_ = nullptr;  // null: bytes given whole, already verified
  const uint8_t* base_ = nullptr;    // the list's first byte
  const uint8_t* end_ = nullptr;     // the region's end
  const uint8_t* starts_ = nullptr;  // block_start table (u32 each)
  const uint8_t* ends_ = nullptr;    // chunk_end table (u32 each)
  const uint8_t* chunks_ = nullptr;  // value block 0
  uint64_t df_ = 0, values_ = 0, blocks_ = 0, nchunks_ = 0;
  std::string where_;                // the list's name when opened with one
  const std::string* path_ = nullptr;  // else its file's path, and its offset in the file
  uint64_t offset_ = 0;
  // A batch asking at most this many values of a value block that is not
  // decoded reads them in place (GetMany); more, and it is decoded whole.
  static constexpr uint32_t kMaxValuesInPlace = 8;
  uint64_t loaded_ = UINT64_MAX;     // the chunk in buf_
  uint64_t viewed_ = UINT64_MAX;     // the chunk view_ reads in place
  ValueBlockView view_;
  uint32_t buf_[kBlockSize];
};

// The positions of one opened posting list, read at its cursor's posting:
// a positions list in the file, or a list kept inline (decoded whole when
// opened: at most kMaxInlineDfRead postings).
class PostingPositions {
 public:
  Status OpenInFile(const PagedFileReader* file, uint64_t offset, uint64_t end, uint64_t df, const std::string* path) {
    inline_ = false;
    df_ = df;
    return reader_.Open(file, offset, end, df, path);
  }
  // A positions list given whole as bytes (PositionReader::Open's).
  Status OpenBytes(std::string_view list, uint64_t df, std::string where) {
    inline_ = false;
    df_ = df;
    return reader_.Open(list, df, std::move(where));
  }
  // `weights`: the inline list's, in list order.
  Status OpenInline(std::string_view bytes, std::span<const uint32_t> weights, const std::string& where);
  // The positions of the posting at (block, in_block) with weight tf
  // (PostingCursor::PositionsAt) into out[0..tf).
  Status Get(uint32_t block, uint64_t in_block, uint32_t tf, uint32_t* out);
  // How many postings the list has.
  uint64_t df() const { return df_; }
  // How many values the list has (the most GetMany can give).
  uint64_t values() const { return inline_ ? inline_values_.size() : reader_.values(); }
  // PositionReader::GetMany's batch.
  Status GetMany(const uint32_t* blocks, const uint64_t* in_blocks, const uint32_t* tfs, size_t m,
                 uint32_t* out);
  // PositionReader::GetRun's: postings of one doc block, dense in it.
  Status GetRun(uint32_t block, const uint64_t* in_blocks, const uint32_t* tfs, size_t m, uint32_t* out);
  // The list's reader when its positions are in a file (what a phrase's
  // merge reads values from), nullptr when they are kept inline.
  PositionReader* in_file() { return inline_ ? nullptr : &reader_; }
  // The whole list against its postings' weights (PositionReader::CheckWhole;
  // inline positions were checked whole when opened).
  Status CheckWhole(std::span<const uint32_t> weights) {
    const uint8_t* end = nullptr;
    return inline_ ? Status::OK() : reader_.CheckWhole(weights, &end);
  }

 private:
  // An inline posting's positions to *out, which moves past them.
  Status CopyInline(uint32_t block, uint64_t in_block, uint32_t tf, uint32_t** out) const;

  bool inline_ = false;
  uint64_t df_ = 0;
  PositionReader reader_;
  std::vector<uint32_t> inline_values_;  // every posting's positions, in list order
};

}  // namespace dps
