// Term dictionary: a sorted table of (key, value) byte strings with shared-
// prefix (front) coding in blocks and a sparse index of each block's first
// key. Term lists keep one per bin (value = document frequency and where
// the postings are); the global index keeps one for the whole index (value
// = the term's refs per bin and file). Byte layout in docs/FORMAT.md ("Term
// dictionary").
//
// Looking up an absent key reads the sparse index and one block; it never
// touches postings. The sparse index, decoded into memory at Open, holds
// each block's first 8 key bytes as a big-endian integer, so the binary
// search compares integers; inside a block, Find walks the front coding without
// rebuilding keys (an entry sharing fewer bytes with its predecessor than
// the probe did has passed it). Reader thread-safety: TermDictReader is immutable and
// shareable; a TermDictCursor belongs to one thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/paged_file.h"

namespace dps {

// Entries per front-coded block: a lookup decodes at most this many. The
// global index, searched once per query term, uses smaller blocks (a
// shorter walk for about 5 more index bytes per 16 terms); readers accept
// any.
inline constexpr size_t kTermDictBlockEntries = 32;
inline constexpr size_t kGlobalDictBlockEntries = 16;
// Bytes of a key in its block's index entry (a block's first entry stores
// only the rest).
inline constexpr size_t kKeyPrefixBytes = 8;

// The first 8 bytes of `key`, zero-padded, as a big-endian integer: keys
// compare like their prefixes unless the prefixes are equal.
uint64_t TermDictKeyPrefix(std::string_view key);

// Builds dictionary regions, streaming each block to `sink` as it fills:
// memory holds one block and the sparse index (~5 bytes per block), never
// the region, so a commit merging millions of terms stays small. A region
// starts at the sink's offset when its first key is added; nothing else may
// be appended to the sink until Finish. The builder is reusable: after
// Finish the next Add starts a new region. REQUIRES: keys strictly
// increasing within a region.
class TermDictBuilder {
 public:
  explicit TermDictBuilder(PagedFileWriter* sink, size_t block_entries = kTermDictBlockEntries)
      : sink_(sink), block_entries_(block_entries) {}
  Status Add(std::string_view key, std::string_view value);
  // Appends the rest of the region (last block, index, trailer) and returns
  // its [offset, offset + len); len 0 (nothing written) when no key was added.
  Status Finish(uint64_t* offset, uint64_t* len);
  size_t entries() const { return entries_; }

 private:
  PagedFileWriter* sink_;
  uint64_t start_ = 0;     // the region's offset in the sink
  Status FlushBlock();
  std::string block_;      // the unfinished block
  uint64_t block_prefix_ = 0;  // its first key's prefix
  uint64_t last_prefix_ = 0;   // the previous block's, for the index entry
  uint32_t blocks_ = 0;
  std::string index_;
  std::string last_key_;
  size_t entries_ = 0;
  size_t in_block_ = 0;
  size_t block_entries_;
};

class TermDictCursor;

// Reads a dictionary region [offset, offset + len) of a paged file.
class TermDictReader {
 public:
  TermDictReader() = default;
  // Verifies and parses the trailer and sparse index.
  Status Open(const PagedFileReader* file, uint64_t offset, uint64_t len);

  // Finds `key`. On success *found says whether it exists; *value then views
  // the file's bytes (valid while the file is open).
  Status Find(std::string_view key, bool* found, std::string_view* value) const;
  // Find in two steps, so that a caller with several keys can locate all
  // their blocks (Locate also prefetches the block's first bytes) before
  // walking any: the blocks' cache misses then overlap. Locate returns the
  // block to pass to FindInBlock (-1: the key sorts before every entry).
  Result<int64_t> Locate(std::string_view key) const;
  Status FindInBlock(int64_t block, std::string_view key, bool* found,
                     std::string_view* value) const;

  size_t block_count() const { return block_count_; }
  bool empty() const { return block_count_ == 0; }

 private:
  friend class TermDictCursor;
  // Index of the last block whose first key <= key, or -1.
  Result<int64_t> FindBlock(std::string_view key) const;
  uint64_t KeyPrefix(size_t block) const { return block_prefix_[block]; }
  uint32_t BlockOffset(size_t block) const { return block_offset_[block]; }
  // The block's first key (index prefix bytes + its first entry's suffix).
  Status FirstKey(size_t block, std::string* key) const;
  // Verifies the block's bytes; [begin, end) relative to the region.
  Status BlockRange(size_t block, uint64_t* begin, uint64_t* end) const;
  std::string Where(uint64_t rel) const;

  const PagedFileReader* file_ = nullptr;
  uint64_t offset_ = 0;  // absolute offset of the region in the file
  uint32_t block_count_ = 0;
  const uint8_t* base_ = nullptr;
  struct TreeSlot {
    uint64_t prefix = 0;
    uint32_t block = 0;
    uint32_t offset = 0;  // BlockOffset(block)
  };
  void BuildEytzinger();
  // The slot of the last block whose prefix <= prefix, or null.
  const TreeSlot* LastSlotAtOrBelow(uint64_t prefix) const;
  // FindBlock's answer from the LastSlotAtOrBelow slot of the key's prefix:
  // that block, or an earlier one when blocks share the key's prefix.
  Result<int64_t> BlockOf(const TreeSlot* slot, uint64_t prefix, std::string_view key) const;
  // The sparse index, decoded at Open: each block's key prefix and offset
  // (block_offset_ has one more: the end of the last block).
  std::vector<uint64_t> block_prefix_;
  std::vector<uint32_t> block_offset_;
  // For FindBlock: the blocks in Eytzinger order (slot 0 unused).
  std::vector<TreeSlot> tree_;
};

// Iterates the entries in key order, with Seek. Views are valid until the
// next move. On error the cursor becomes invalid and status() says why.
class TermDictCursor {
 public:
  explicit TermDictCursor(const TermDictReader* dict) : dict_(dict) {}
  void SeekToFirst();
  void Seek(std::string_view key);  // first entry with key >= `key`
  void Next();
  bool Valid() const { return valid_; }
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }
  const Status& status() const { return status_; }

 private:
  void LoadBlock(size_t block);
  bool ParseEntry();  // parses at p_, false at block end or error
  const TermDictReader* dict_;
  size_t block_ = 0;
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  bool first_in_block_ = false;  // the next entry is its block's first
  std::string key_;
  std::string_view value_;
  bool valid_ = false;
  Status status_;
};

}  // namespace dps
