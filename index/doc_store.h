// The stored documents of one bin: external id, title and (optionally) text
// per docid. Ids live in the bin's id column (index/id_column.h: one id
// costs a load, no decompression); titles and texts in blocks of about
// kDocBlockTarget raw bytes, each two zstd frames: its docids and titles
// (the meta frame, titles front-coded), then its texts, so that reading
// titles never decompresses text. A block index ends the region so a
// lookup decompresses one block. Layout: docs/FORMAT.md ("Doc store",
// "Id column").
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
#include "index/id_column.h"
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
// Docids and titles are a few percent of a block's bytes, read whenever a
// result is shown with its title: worth a slower, tighter level.
inline constexpr int kDocMetaZstdLevel = 9;

struct StoredDoc {
  DocId docid = 0;
  std::string id;
  std::string title;
  std::string text;
};

// Builds one bin's doc store region and id column. Compressed blocks are
// handed to `sink` as soon as they fill (so a bin's stored text never sits
// in memory whole); Finish hands over the block index and count that end
// the region, and returns the id column (written after the region).
class DocStoreWriter {
 public:
  using Sink = std::function<Status(std::string_view bytes)>;
  DocStoreWriter(int zstd_level, Sink sink) : zstd_level_(zstd_level), sink_(std::move(sink)) {}
  // REQUIRES: docid strictly greater than the previous one. An empty id
  // is InvalidArgument.
  Status Add(DocId docid, std::string_view id, std::string_view title, std::string_view text);
  // Writes the last block, the index and the count, appends the bin's id
  // column region to *id_column; resets for the next bin.
  Status Finish(std::string* id_column);
  // Bytes handed to the sink since the last Finish.
  uint64_t region_bytes() const { return region_bytes_; }

 private:
  Status FlushBlock();
  int zstd_level_;
  Sink sink_;
  uint64_t region_bytes_ = 0;
  std::string index_;
  uint32_t blocks_ = 0;
  IdColumnWriter ids_;
  std::string last_id_;  // for errors
  // The block being filled.
  std::vector<DocId> docids_;
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
  std::string strings;                                // titles
  std::vector<std::pair<uint32_t, uint32_t>> titles;  // offset, length in strings
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

// Where a bin's doc store region and id column are in the file.
struct DocStoreRegions {
  uint64_t docs_offset = 0, docs_len = 0;
  uint64_t ids_offset = 0, ids_len = 0;
};

class DocStoreReader {
 public:
  Status Open(const PagedFileReader* file, const DocStoreRegions& regions, const DocStoreShape& shape);
  // NotFound if docid is not stored here. The id comes from the id column.
  // Without `with_titles` and `with_text` nothing else is read (no block is
  // decompressed, `cache` is untouched); doc->title and doc->text are left
  // empty. With titles, a lookup in the cached block of the previous one
  // decompresses nothing; text is decompressed only `with_text`.
  Status Get(DocId docid, StoredDoc* doc, DocBlockCache* cache = nullptr,
             bool with_text = true, bool with_titles = true) const;
  // Every document in docid order (scan, compaction, check), checking that
  // the id column holds exactly the meta frames' docids.
  Status ReadAll(std::vector<StoredDoc>* docs) const;
  // Every (docid, external id) in docid order, from the id column alone.
  Status ForEachId(const std::function<void(DocId, std::string_view)>& fn) const;

 private:
  // Decompresses and validates one block's docids and titles into `cache`.
  Status ReadMeta(uint32_t block, DocBlockCache* cache) const;
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
  IdColumnReader ids_;
};

}  // namespace dps
