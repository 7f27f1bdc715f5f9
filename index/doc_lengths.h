// Document lengths (issue 18: BM25's dl): each tablet file keeps, per bin,
// the token count of every document it stores, so a posting's document
// length is read from the same file the posting came from (a commit writes
// both, a compaction rewrites both). A document's length is the sum of its
// postings' weights (title and text tokens), counted by the writer itself
// as the posting lists go by: it cannot disagree with the postings.
//
// Region (docs/FORMAT.md "Document lengths"; the frame table and packing of
// index/packed_frames.h), for docids min..max of the bin record (absent
// docids have length 0):
//   total_tokens (u64) | frame offsets (u32 x F) | F frames | 8 zero bytes
//   frame = width (u8, 0-32) | ceil(n * width / 8) bytes: n lengths (128,
//   the last frame the rest), LSB first.
// One frame's width follows its own longest document, so a few long
// documents cost only their frames; any length is one unaligned load.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "index/packed_frames.h"
#include "index/types.h"

namespace dps {

inline constexpr uint32_t kLengthsPerFrame = kPackedFrameSlots;
// A document's length is a u32 (the 64 MiB document limit keeps real ones
// far below).
inline constexpr uint64_t kMaxDocLength = UINT32_MAX;

// Sums weights by docid as posting lists are added (term after term, each
// in docid order: consecutive postings mostly fall in one chunk).
class DocLengthCounter {
 public:
  void Add(DocId docid, uint32_t weight) {
    const uint32_t chunk = docid >> kChunkBits;
    if (chunk != last_chunk_ || last_ == nullptr) {
      auto& slot = chunks_[chunk];
      if (!slot) slot = std::make_unique<Chunk>();
      last_ = slot.get();
      last_chunk_ = chunk;
    }
    (*last_)[docid & kChunkMask] += weight;
  }
  uint32_t Get(DocId docid) const {
    auto it = chunks_.find(docid >> kChunkBits);
    return it == chunks_.end() ? 0 : (*it->second)[docid & kChunkMask];
  }
  void Clear() {
    chunks_.clear();
    last_ = nullptr;
  }

 private:
  static constexpr uint32_t kChunkBits = 12, kChunkMask = (1u << kChunkBits) - 1;
  using Chunk = std::array<uint32_t, 1u << kChunkBits>;
  std::unordered_map<uint32_t, std::unique_ptr<Chunk>> chunks_;
  Chunk* last_ = nullptr;
  uint32_t last_chunk_ = 0;
};

// The lengths of one bin's documents, known before its posting lists are
// written (an ingest counts each document's tokens as it analyzes it; a
// compaction reads them from the files it merges), so each list's block
// impacts (index/block_impacts.h) are written with the list. Dense from the
// first docid set.
class BinLengthTable {
 public:
  // REQUIRES: docids strictly ascending across calls.
  void Set(DocId docid, uint32_t length) {
    if (lengths_.empty()) first_ = docid;
    lengths_.resize(docid - first_, 0);  // docids skipped in between: none
    lengths_.push_back(length);
    ++count_;
    nonzero_ += length != 0;
    total_ += length;
  }
  // The mean length of the documents set (0 when none is): the block
  // impacts' reference avgdl.
  double mean() const { return count_ == 0 ? 0.0 : static_cast<double>(total_) / static_cast<double>(count_); }
  // 0 for a docid not set.
  uint32_t Of(DocId docid) const {
    return docid >= first_ && docid - first_ < lengths_.size() ? lengths_[docid - first_] : 0;
  }
  // The documents set with a length above 0, and the lengths' sum.
  uint64_t nonzero() const { return nonzero_; }
  uint64_t total() const { return total_; }
  size_t memory_bytes() const { return lengths_.capacity() * sizeof(uint32_t); }
  void Clear() {
    lengths_.clear();
    count_ = nonzero_ = total_ = 0;
  }

 private:
  DocId first_ = 0;
  uint64_t count_ = 0, nonzero_ = 0, total_ = 0;
  std::vector<uint32_t> lengths_;
};

// Appends the region for `lengths` (docids min_docid, min_docid + 1, ...).
void EncodeDocLengths(const std::vector<uint32_t>& lengths, std::string* out);

class DocLengthsReader {
 public:
  // Checks the whole region (layout, padding, the total) against the bin
  // record's docid range; `where` names the file and offset in errors.
  Status Open(std::string_view region, DocId min_docid, DocId max_docid, const std::string& where);
  // REQUIRES: min_docid <= docid <= max_docid. Inline: ranking reads a
  // length per scored posting.
  uint32_t Get(DocId docid) const {
    const uint64_t i = docid - min_docid_;
    const uint8_t* frame = data_ + frame_offsets_[i / kLengthsPerFrame];
    const unsigned width = frame[0];  // <= 32 (Open checks): never a ninth byte
    const uint64_t bit = (i % kLengthsPerFrame) * width;
    uint64_t word;
    std::memcpy(&word, frame + 1 + bit / 8, 8);  // little-endian hosts (coding.h)
    return static_cast<uint32_t>((word >> (bit % 8)) & ((uint64_t{1} << width) - 1));
  }
  uint64_t total_tokens() const { return total_; }

 private:
  const uint8_t* data_ = nullptr;
  DocId min_docid_ = 0;
  uint64_t total_ = 0;
  std::vector<uint32_t> frame_offsets_;
};

}  // namespace dps
