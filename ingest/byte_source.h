// ByteSource: the raw bytes of one input (a file, standard input, a memory
// buffer, or a decompressor wrapped around one of those), read front to back.
//
// Readers pull from a ByteSource so the line splitter, the JSONL parser and
// the progress report do not care where bytes come from or whether they were
// compressed. A ByteSource belongs to one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dps {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // Reads up to n (> 0) bytes into buf. Returns the count, 0 only at the end
  // of the input. Errors are IOError (the file) or InvalidArgument (corrupt
  // or truncated compressed data) and name the input.
  virtual Result<size_t> Read(char* buf, size_t n) = 0;

  // Bytes taken from the underlying file so far, for progress. For a
  // decompressor these are compressed bytes, so they compare with
  // total_bytes().
  virtual uint64_t bytes_read() const = 0;

  // The size of the underlying file when known (regular files, also behind
  // stdin redirection); nullopt for pipes and terminals.
  virtual std::optional<uint64_t> total_bytes() const = 0;

  // The input as the user named it ("corpus.jsonl.gz", "<stdin>"), for
  // messages.
  const std::string& name() const { return name_; }

 protected:
  explicit ByteSource(std::string name) : name_(std::move(name)) {}

 private:
  std::string name_;
};

// Reads a file descriptor with read(2). When `owns_fd`, closes it on
// destruction. Used for files and for standard input.
std::unique_ptr<ByteSource> NewFdSource(int fd, std::string name, bool owns_fd);

// Serves `data`, which must outlive the source (tests, the fuzz entry point).
std::unique_ptr<ByteSource> NewMemorySource(std::string_view data, std::string name);

// Opens `input` for reading: "-" is standard input (named "<stdin>"); a name
// ending in ".gz" or ".zst" is decompressed on the fly (see decompress.h).
// A missing or unreadable file is an IOError naming it.
Result<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& input);

}  // namespace dps
