// DocSpill: stored documents of an ingest, parked in a temporary file until
// the tablet files are written (their doc stores come after the postings, and
// the corpus may be far larger than memory). Records are buffered per bin
// and appended in chunks tagged with their bin; reading a bin back visits its
// chunks in order, so docids come back ascending.
//
// Add: one thread. ReadBin: thread-safe (pread) after Finish.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/doc_lengths.h"
#include "index/types.h"

namespace dps {

class DocSpill {
 public:
  // Buffered bytes per bin before its chunk is written out.
  static constexpr size_t kChunkBytes = 64 * 1024;

  // `columns`: length columns per document (1 + the index's fields).
  DocSpill(std::string path, uint32_t bins, size_t columns = 1);
  ~DocSpill();
  DocSpill(const DocSpill&) = delete;
  DocSpill& operator=(const DocSpill&) = delete;

  Status Open();
  // `lengths`: the document's token count in each column (BM25's dl: the
  // default field's, then each field's), kept in memory for the tablet
  // writer, which needs them before the bin's postings.
  Status Add(uint32_t bin, DocId docid, std::string_view id, std::string_view title,
             std::string_view text, std::span<const uint32_t> lengths);
  // Writes every partial chunk.
  Status Finish();
  size_t memory_bytes() const { return buffered_ + bins_ * sizeof(Bin); }
  uint64_t docs(uint32_t bin) const { return bins_data_[bin].docs; }
  const BinLengthTable& lengths(uint32_t bin, size_t column = 0) const { return bins_data_[bin].lengths[column]; }
  size_t columns() const { return columns_; }

  using DocSink = std::function<Status(DocId docid, std::string_view id, std::string_view title,
                                       std::string_view text)>;
  Status ReadBin(uint32_t bin, const DocSink& emit) const;

 private:
  struct Chunk {
    uint64_t offset;
    uint32_t len;
  };
  struct Bin {
    std::string buffer;
    std::vector<Chunk> chunks;
    DocId last = 0;
    uint64_t docs = 0;
    std::vector<BinLengthTable> lengths;  // by column
  };
  Status FlushBin(uint32_t bin);

  std::string path_;
  uint32_t bins_;
  size_t columns_;
  int fd_ = -1;
  uint64_t size_ = 0;
  size_t buffered_ = 0;
  std::vector<Bin> bins_data_;
};

}  // namespace dps
