#include "index/spill_buffer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/file.h"

namespace dps {

SpillBuffer::~SpillBuffer() {
  if (fd_ >= 0) ::close(fd_);
}

Status SpillBuffer::Spill() {
  if (tail_.size() <= limit_) return Status::OK();
  if (fd_ < 0) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd_ < 0) return ErrnoError(path_, "open");
    ::unlink(path_.c_str());  // the descriptor keeps it; nothing is left after a crash
  }
  DPS_RETURN_IF_ERROR(WriteAt(fd_, path_, spilled_, tail_));
  spilled_ += tail_.size();
  tail_.clear();
  return Status::OK();
}

Status SpillBuffer::Drain(const std::function<Status(std::string_view)>& sink) {
  if (spilled_ > 0) {
    std::string piece(std::max<size_t>(limit_, 64 << 10), '\0');
    for (uint64_t at = 0; at < spilled_;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(piece.size(), spilled_ - at));
      DPS_RETURN_IF_ERROR(ReadAt(fd_, path_, at, n, piece.data()));
      DPS_RETURN_IF_ERROR(sink(std::string_view(piece.data(), n)));
      at += n;
    }
    // Read once: its page cache can go, and the file's blocks with it.
    (void)posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED);
    if (::ftruncate(fd_, 0) != 0) return ErrnoError(path_, "truncate");
    spilled_ = 0;
  }
  if (!tail_.empty()) DPS_RETURN_IF_ERROR(sink(tail_));
  std::string().swap(tail_);
  return Status::OK();
}

}  // namespace dps
