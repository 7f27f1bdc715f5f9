// Spill runs of an ingest (`NNNNNN.run.tmp`): one tablet's posting lists
// from one buffer flush, in (bin, term) order, written front to back and
// read back front to back by the final merge. Reading goes through pread
// into one small buffer per run, not mmap: a mapping of a freshly written
// file can map whole large page-cache folios on a single touch, so the
// merge of many runs held all of them resident (synthetic 1M, 200 MB
// budget: 300 MB of file pages). Layout: docs/FORMAT.md ("Spill run").
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/file.h"
#include "common/status.h"
#include "index/posting_list.h"
#include "index/types.h"

namespace dps {

inline constexpr uint64_t kRunMagic = 0x00314e5552535044ULL;  // "DPSRUN1\0"
inline constexpr uint32_t kRunVersion = 5;

// Encodes records into whole blocks (header and payload) in memory. A
// record never spans blocks and a block carries no state from the one
// before, so encoders given consecutive ranges of (bin, term) may run in
// parallel and their blocks be written one after another (a one-bin
// flush: tablet_build.cc).
class RunBlockEncoder {
 public:
  // REQUIRES: as RunWriter::Add.
  Status Add(uint32_t bin, std::string_view term, std::span<const DocId> docs,
             std::span<const uint32_t> weights, std::span<const uint32_t> positions = {});
  // Closes the block being filled, if any.
  void Flush();
  // The blocks closed so far; the caller may write and clear them.
  std::string* blocks() { return &blocks_; }

 private:
  std::string block_;  // the payload being filled
  std::string list_;
  std::string blocks_;
};

class RunWriter {
 public:
  static Result<std::unique_ptr<RunWriter>> Create(const std::string& path);
  // REQUIRES: (bin, term) strictly ascending across calls; docs ascending,
  // weights >= 1, same sizes >= 1; positions empty or the postings' (as
  // many as the weights sum to, ascending within each posting).
  Status Add(uint32_t bin, std::string_view term, std::span<const DocId> docs,
             std::span<const uint32_t> weights, std::span<const uint32_t> positions = {});
  // Whole blocks of a RunBlockEncoder, whose records follow every record
  // written so far (the encoder of one range, Flushed).
  Status AppendBlocks(std::string_view blocks);
  Status Finish();  // the end block, then fsync

 private:
  explicit RunWriter(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {}
  Status WriteClosedBlocks();
  std::unique_ptr<WritableFile> file_;
  RunBlockEncoder encoder_;
};

// Reads one run sequentially. Views (term, list) stay valid until Next().
class RunReader {
 public:
  static Result<std::unique_ptr<RunReader>> Open(const std::string& path);
  ~RunReader();

  bool Valid() const { return valid_; }
  uint32_t bin() const { return bin_; }
  std::string_view term() const { return term_; }
  // Positions `cursor` on the current record's list.
  Status OpenList(PostingCursor* cursor) const;
  // Appends the current record's positions, given its postings' weights in
  // list order (none when the run has none).
  Status ReadPositions(std::span<const uint32_t> weights, std::vector<uint32_t>* out) const;
  bool has_positions() const { return !positions_.empty(); }
  // Moves to the next record; at the end Valid() turns false.
  Status Next();
  const std::string& path() const { return path_; }

 private:
  RunReader() = default;
  Status ReadBlock();
  Status ReadExact(uint64_t offset, size_t len, char* out);
  std::string Where(uint64_t offset) const;

  std::string path_;
  int fd_ = -1;
  uint64_t file_size_ = 0;
  uint64_t next_block_ = 0;   // file offset of the next block header
  uint64_t block_offset_ = 0; // file offset of the current block's payload
  std::string block_;
  size_t pos_ = 0;            // in block_
  bool valid_ = false;
  bool ended_ = false;
  uint32_t bin_ = 0;
  std::string_view term_;
  uint32_t df_ = 0;
  std::string_view list_;     // df >= 2: the encoded list
  std::string_view positions_;  // inline positions form; empty: none
  DocId single_doc_ = 0;
  uint32_t single_weight_ = 0;
  uint64_t list_offset_ = 0;  // file offset of list_, for messages
};

}  // namespace dps
