// The stored documents of one bin: external id, title and (optionally) text
// per docid, in zstd-compressed blocks of about kDocBlockTarget raw bytes,
// followed by a block index so a lookup decompresses one block. Layout:
// docs/FORMAT.md ("Doc store").
//
// Writer: one thread. Reader: immutable, shareable; callers pass a
// DocBlockCache to keep the last decompressed block.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/paged_file.h"
#include "index/types.h"

namespace dps {

inline constexpr size_t kDocBlockTarget = 64 * 1024;
inline constexpr size_t kDocBlockIndexEntrySize = 16;  // first_docid, offset, comp_len, raw_len
// A corrupt raw_len must not make us allocate gigabytes.
inline constexpr uint32_t kMaxDocBlockRaw = 256u << 20;

struct StoredDoc {
  DocId docid = 0;
  std::string id;
  std::string title;
  std::string text;
};

// Builds one bin's doc store region. Compressed blocks are handed to `sink`
// as soon as they fill (so a bin's stored text never sits in memory whole);
// Finish hands over the block index and count that end the region.
class DocStoreWriter {
 public:
  using Sink = std::function<Status(std::string_view bytes)>;
  DocStoreWriter(int zstd_level, Sink sink) : zstd_level_(zstd_level), sink_(std::move(sink)) {}
  // REQUIRES: docid strictly greater than the previous one.
  Status Add(DocId docid, std::string_view id, std::string_view title, std::string_view text);
  // Writes the last block, the index and the count; resets for the next bin.
  Status Finish();
  // Bytes handed to the sink since the last Finish.
  uint64_t region_bytes() const { return region_bytes_; }

 private:
  Status FlushBlock();
  int zstd_level_;
  Sink sink_;
  uint64_t region_bytes_ = 0;
  std::string index_;
  std::string raw_;
  uint32_t block_first_ = 0;
  uint32_t blocks_ = 0;
  DocId last_ = 0;
};

// The last decompressed block of one caller (results of a bin arrive in
// docid order, so consecutive lookups mostly hit the same 64 KiB block):
// the raw bytes and where each record starts, so a lookup copies only the
// document asked for. One per thread; cheap to create.
struct DocBlockCache {
  const void* reader = nullptr;
  uint32_t block = UINT32_MAX;
  std::string raw;
  std::vector<std::pair<DocId, uint32_t>> records;  // docid, offset of its id in raw
};

class DocStoreReader {
 public:
  Status Open(const PagedFileReader* file, uint64_t offset, uint64_t len);
  // NotFound if docid is not stored here. With a cache, a lookup in the
  // block of the previous one decompresses nothing.
  Status Get(DocId docid, StoredDoc* doc, DocBlockCache* cache = nullptr) const;
  // Every document in docid order (scan, compaction).
  Status ReadAll(std::vector<StoredDoc>* docs) const;

 private:
  // Decompresses and validates one block into cache->raw / cache->records.
  Status ReadBlock(uint32_t block, DocBlockCache* cache) const;
  std::string Where(uint64_t rel) const;
  const PagedFileReader* file_ = nullptr;
  uint64_t offset_ = 0;
  uint64_t len_ = 0;
  uint32_t blocks_ = 0;
  const uint8_t* index_ = nullptr;
};

}  // namespace dps
