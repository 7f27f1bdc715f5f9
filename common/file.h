// File-system helpers: read-only memory maps, sequential writers that fsync,
// and the atomic-replace protocol the MANIFEST relies on.
//
// Every error is an IOError naming the path and the failing call (and the
// offset, for reads and writes). Every write, fsync, rename and read goes
// through the fault-injection hooks of common/fault_injection.h.
// Thread-safety: a MappedFile is immutable after Open and may be shared;
// a WritableFile belongs to one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/fault_injection.h"
#include "common/status.h"

namespace dps {

// The IOError for a failed system call: "PATH: CALL: strerror(errno)".
Status ErrnoError(const std::string& path, const std::string& call);

class MappedFile {
 public:
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Maps the whole file read-only. An empty file maps to size() == 0.
  static Result<std::unique_ptr<MappedFile>> Open(const std::string& path);

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // A mapping has no read call that can fail: readers call this where they
  // check a range before using it, so that a test can make that read fail
  // (an IOError naming the file and offset). OK unless a fault is armed;
  // hot paths test faults::Armed() first.
  Status CheckRead(uint64_t offset, uint64_t len) const {
    return faults::Armed() ? InjectedReadFault(offset, len) : Status::OK();
  }
  // Releases the mapping's resident pages (they fault back in from the page
  // cache when read again): keeps a merge over large files within its
  // memory budget, since touched file pages count as the process's RSS.
  void DropResidentPages() const;

 private:
  MappedFile(std::string path, const uint8_t* data, size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  Status InjectedReadFault(uint64_t offset, uint64_t len) const;
  std::string path_;
  const uint8_t* data_;
  size_t size_;
};

// Appends to a new file; Sync() flushes and fsyncs. Close() is implied by
// the destructor but only an explicit Close() reports errors.
class WritableFile {
 public:
  ~WritableFile();
  WritableFile(const WritableFile&) = delete;
  WritableFile& operator=(const WritableFile&) = delete;

  // Creates (truncating) `path`.
  static Result<std::unique_ptr<WritableFile>> Create(const std::string& path);

  Status Append(std::string_view data);
  Status Sync();
  Status Close();
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  WritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  Status FlushBuffer();
  Status WriteAll(std::string_view data);
  std::string path_;
  int fd_;
  uint64_t size_ = 0;     // bytes appended
  uint64_t written_ = 0;  // of them, written to the file
  std::string buffer_;
};

// Writes all of `data` at `offset` of the open file `fd` (`path` in errors).
Status WriteAt(int fd, const std::string& path, uint64_t offset, std::string_view data);
// Reads exactly `len` bytes at `offset`; a file ending sooner is an error.
Status ReadAt(int fd, const std::string& path, uint64_t offset, size_t len, char* out);

// Writes `contents` to `path` so that readers see either the old file or the
// new one: write `path`.tmp, fsync it, rename over `path`, fsync the
// directory. On any error `path` is left as it was: the temporary file is
// removed, and if the directory's fsync fails after the rename (the new
// name may or may not be durable) the old file is put back, so a failure
// is never half a success.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

// fsyncs a directory so that renames and creations in it are durable.
Status SyncDir(const std::string& dir);
// The directory holding `path` ("." for a bare name).
std::string ParentDir(const std::string& path);

Result<std::string> ReadFileToString(const std::string& path);
Result<std::vector<std::string>> ListDir(const std::string& dir);  // names, no "." / ".."
Status CreateDirIfMissing(const std::string& dir);
Status RemoveFile(const std::string& path);
bool FileExists(const std::string& path);

}  // namespace dps
