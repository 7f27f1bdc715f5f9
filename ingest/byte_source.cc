#include "ingest/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/file.h"
#include "ingest/decompress.h"

namespace dps {

namespace {

class FdSource final : public ByteSource {
 public:
  FdSource(int fd, std::string name, bool owns_fd)
      : ByteSource(std::move(name)), fd_(fd), owns_fd_(owns_fd) {
    struct stat st;
    if (fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
      // Stdin may be a redirected file that someone already read from.
      off_t pos = lseek(fd_, 0, SEEK_CUR);
      uint64_t start = pos > 0 ? static_cast<uint64_t>(pos) : 0;
      uint64_t size = static_cast<uint64_t>(st.st_size);
      total_ = size > start ? size - start : 0;
      // The readers stream each file once; tell the kernel to read ahead.
      posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
  }
  ~FdSource() override {
    if (owns_fd_) ::close(fd_);
  }

  Result<size_t> Read(char* buf, size_t n) override {
    for (;;) {
      ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) {
        bytes_read_ += static_cast<uint64_t>(got);
        return static_cast<size_t>(got);
      }
      if (errno != EINTR) return ErrnoError(name(), "read");
    }
  }
  uint64_t bytes_read() const override { return bytes_read_; }
  std::optional<uint64_t> total_bytes() const override { return total_; }

 private:
  int fd_;
  bool owns_fd_;
  uint64_t bytes_read_ = 0;
  std::optional<uint64_t> total_;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string_view data, std::string name)
      : ByteSource(std::move(name)), data_(data) {}

  Result<size_t> Read(char* buf, size_t n) override {
    size_t take = std::min(n, data_.size() - pos_);
    std::memcpy(buf, data_.data() + pos_, take);
    pos_ += take;
    return take;
  }
  uint64_t bytes_read() const override { return pos_; }
  std::optional<uint64_t> total_bytes() const override { return data_.size(); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

}  // namespace

std::unique_ptr<ByteSource> NewFdSource(int fd, std::string name, bool owns_fd) {
  return std::make_unique<FdSource>(fd, std::move(name), owns_fd);
}

std::unique_ptr<ByteSource> NewMemorySource(std::string_view data, std::string name) {
  return std::make_unique<MemorySource>(data, std::move(name));
}

Result<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& input) {
  std::unique_ptr<ByteSource> raw;
  if (input == "-") {
    raw = NewFdSource(STDIN_FILENO, "<stdin>", /*owns_fd=*/false);
  } else {
    int fd = ::open(input.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoError(input, "open");
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
      ::close(fd);
      return Status::InvalidArgument(input + ": is a directory (use --format dir)");
    }
    raw = NewFdSource(fd, input, /*owns_fd=*/true);
  }
  Compression c = CompressionFromName(input);
  if (c == Compression::kNone) return raw;
  return NewDecompressor(c, std::move(raw));
}

}  // namespace dps
