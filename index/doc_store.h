// The stored documents of one bin: external id, title and (optionally) text
// per docid, in blocks of about kDocBlockTarget raw bytes. A block is two
// zstd frames: its ids and titles as columns (decimal ids as deltas, titles
// front-coded), then its texts, so that reading ids never decompresses
// text. A block index ends the region so a lookup decompresses one block.
// Layout: docs/FORMAT.md ("Doc store").
//
// Writer: one thread. Reader: immutable, shareable; callers pass a
// DocBlockCache to keep the last decoded block.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "index/paged_file.h"
#include "index/types.h"

namespace dps {

inline constexpr size_t kDocBlockTarget = 64 * 1024;
// first_docid, offset, meta_comp, meta_raw, text_comp, text_raw.
inline constexpr size_t kDocBlockIndexEntrySize = 24;
// A corrupt raw length must not make us allocate gigabytes.
inline constexpr uint32_t kMaxDocBlockRaw = 256u << 20;
// Records per block: the writer cuts a block at kDocBlockTarget record
// bytes, each record counting at least 3, so it writes at most 21,846;
// readers refuse more than this.
inline constexpr uint64_t kMaxDocBlockRecords = 65536;
// Ids and titles are a few percent of a block's bytes, read whenever a
// result is shown or an id is looked for: worth a slower, tighter level
// (gcide: 725 KB at level 3, 682 KB at 9).
inline constexpr int kDocMetaZstdLevel = 9;

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
  uint32_t blocks_ = 0;
  // The block being filled.
  std::vector<DocId> docids_;
  std::vector<std::string> ids_;
  std::vector<std::string> titles_;
  std::string texts_;  // length-prefixed, in docid order
  bool any_text_ = false;
  size_t raw_bytes_ = 0;
};

// The last decoded block of one caller (results of a bin arrive in docid
// order, so consecutive lookups mostly hit the same block). Its text frame
// is decompressed only when a lookup asks for text. One per thread; cheap
// to create.
struct DocBlockCache {
  const void* reader = nullptr;
  uint32_t block = UINT32_MAX;
  std::vector<DocId> docids;
  std::string strings;                                    // ids and titles
  std::vector<std::pair<uint32_t, uint32_t>> ids, titles;  // offset, length in strings
  bool titles_loaded = false;  // titles are parsed only when asked for (ids alone: a ranked id list)
  bool text_loaded = false;
  std::string text;
  std::vector<std::pair<uint32_t, uint32_t>> texts;  // offset, length in text
};

// What the bin directory says of a doc store, checked against it: the
// stored ids are what replacement and deletion search, so a doc store must
// hold exactly the bin's documents.
struct DocStoreShape {
  uint32_t num_docs = 0;
  DocId min_docid = 0;
  DocId max_docid = 0;
  bool stores_text = false;  // else no block may have a text frame
};

class DocStoreReader {
 public:
  Status Open(const PagedFileReader* file, uint64_t offset, uint64_t len, const DocStoreShape& shape);
  // NotFound if docid is not stored here. With a cache, a lookup in the
  // block of the previous one decompresses nothing. Without `with_text`,
  // doc->text is left empty and no text is decompressed; without
  // `with_titles`, doc->title too, and the block's titles are not parsed.
  Status Get(DocId docid, StoredDoc* doc, DocBlockCache* cache = nullptr,
             bool with_text = true, bool with_titles = true) const;
  // Every document in docid order (scan, compaction).
  Status ReadAll(std::vector<StoredDoc>* docs) const;
  // Every (docid, external id) in docid order, decompressing no text.
  Status ForEachId(const std::function<void(DocId, std::string_view)>& fn) const;

 private:
  // Decompresses and validates one block's ids and titles into `cache`.
  // Without titles the meta frame is parsed up to the ids column: titles
  // are front-coded, so one title costs the parse of every one before it.
  Status ReadMeta(uint32_t block, DocBlockCache* cache, bool with_titles = true) const;
  // Decompresses and validates the cached block's texts.
  Status ReadText(DocBlockCache* cache) const;
  // After a scan of every block: were they the bin's documents?
  Status CheckWhole(uint64_t records, DocId last) const;
  std::string Where(uint64_t rel) const;
  const PagedFileReader* file_ = nullptr;
  uint64_t offset_ = 0;
  uint32_t blocks_ = 0;
  const uint8_t* index_ = nullptr;
  DocStoreShape shape_;
};

}  // namespace dps
