// SpillBuffer: bytes appended front to back and read back once, front to
// back: held in memory up to a limit, the rest in a temporary file. The
// tablet writer keeps a bin's positions region in one, because the region
// goes after the bin's postings and is about as large as the bin's text
// (synthetic 95k documents: some 20 MB a bin, two bins at once, grown by
// doubling: most of the ingest's peak at small --memory budgets).
//
// The file (`temp_path`) is created on the first overflow and unlinked at
// once: it never outlives the process, and its pages are page cache, not
// the writer's memory. One thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dps {

class SpillBuffer {
 public:
  // Memory held at most (plus one append) before bytes go to the file.
  static constexpr size_t kDefaultMemoryLimit = 1 << 20;

  SpillBuffer(std::string temp_path, size_t memory_limit = kDefaultMemoryLimit)
      : path_(std::move(temp_path)), limit_(memory_limit) {}
  ~SpillBuffer();
  SpillBuffer(const SpillBuffer&) = delete;
  SpillBuffer& operator=(const SpillBuffer&) = delete;

  // The in-memory tail to append to; call Spill after appending.
  std::string* tail() { return &tail_; }
  // Moves the tail to the file once it passes the limit.
  Status Spill();
  uint64_t size() const { return spilled_ + tail_.size(); }
  bool empty() const { return size() == 0; }
  uint64_t spilled_bytes() const { return spilled_; }

  // Hands every byte to `sink` in order, in pieces of at most the limit
  // (at least 64 KiB), then empties the buffer (the file is kept for reuse).
  Status Drain(const std::function<Status(std::string_view)>& sink);

 private:
  std::string path_;
  size_t limit_;
  int fd_ = -1;
  uint64_t spilled_ = 0;
  std::string tail_;
};

}  // namespace dps
