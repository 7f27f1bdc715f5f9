// The checksummed container every dpsearch data file uses (tablet files,
// global index): a body cut into fixed-size pages, a table holding one XXH3
// checksum per page, and a fixed 56-byte footer. Layout in docs/FORMAT.md
// ("Paged container").
//
// A reader verifies a page the first time any byte of it is read and records
// that in an atomic bitset, so corruption is always an error naming the file,
// page and offset (never a wrong answer) while a long-running process pays
// for each page once. Thread-safety: PagedFileReader is safe for concurrent
// use after Open (verification races only repeat work); the writer belongs to
// one thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/file.h"
#include "common/status.h"

namespace dps {

inline constexpr uint32_t kPageSize = 32 * 1024;
inline constexpr size_t kFooterSize = 56;
inline constexpr uint64_t kFooterMagic = 0x31474150535044ULL;  // "DPSPAG1\0" little-endian

// Streams a body to disk, checksumming each page as it fills.
class PagedFileWriter {
 public:
  // Creates `path` (truncating). Nothing is valid on disk until Finish.
  static Result<std::unique_ptr<PagedFileWriter>> Create(const std::string& path);

  Status Append(std::string_view data);
  uint64_t offset() const { return offset_; }

  // Writes the page table and footer, fsyncs and closes. `directory_offset`
  // and `directory_size` locate the file kind's directory inside the body.
  Status Finish(uint64_t directory_offset, uint64_t directory_size, uint32_t format_version);

 private:
  explicit PagedFileWriter(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {}
  std::unique_ptr<WritableFile> file_;
  uint64_t offset_ = 0;
  std::string page_;  // bytes of the page being filled
  std::vector<uint64_t> checksums_;
};

class PagedFileReader {
 public:
  // Maps the file and validates footer and page table (not the pages).
  static Result<std::unique_ptr<PagedFileReader>> Open(const std::string& path);

  // Verifies every page overlapping [offset, offset + len) and returns a view
  // of those bytes, valid as long as the reader lives. Corruption names the
  // file, the page and its offset; a range past the body is Corruption too.
  Result<std::string_view> Read(uint64_t offset, uint64_t len) const;

  // As Read, without returning the view (a hot-path form: no Result).
  Status Verify(uint64_t offset, uint64_t len) const;

  // Base pointer for callers that already verified a range with Verify.
  const uint8_t* data() const { return file_->data(); }
  uint64_t body_size() const { return body_size_; }
  uint64_t directory_offset() const { return directory_offset_; }
  uint64_t directory_size() const { return directory_size_; }
  uint32_t format_version() const { return format_version_; }
  const std::string& path() const { return file_->path(); }
  uint64_t file_size() const { return file_->size(); }
  size_t verified_pages() const;
  size_t page_count() const { return page_count_; }
  void DropResidentPages() const { file_->DropResidentPages(); }

 private:
  PagedFileReader() = default;
  Status VerifyPage(uint64_t page) const;
  std::unique_ptr<MappedFile> file_;
  uint64_t body_size_ = 0;
  uint64_t directory_offset_ = 0;
  uint64_t directory_size_ = 0;
  uint32_t format_version_ = 0;
  uint64_t page_count_ = 0;
  const uint8_t* table_ = nullptr;
  mutable std::unique_ptr<std::atomic<uint64_t>[]> verified_;
};

}  // namespace dps
