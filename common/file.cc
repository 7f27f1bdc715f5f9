#include "common/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dps {

Status ErrnoError(const std::string& path, const std::string& call) {
  return Status::IOError(path + ": " + call + ": " + std::strerror(errno));
}

namespace {
// What a real failure of the call would say (a test cannot tell them apart).
Status Injected(const std::string& path, const std::string& call, int error) {
  return Status::IOError(path + ": " + call + ": " + std::strerror(error));
}
constexpr size_t kWriteBufferSize = 1 << 20;
}  // namespace

MappedFile::~MappedFile() {
  if (size_ > 0) munmap(const_cast<uint8_t*>(data_), size_);
}

Result<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, "open");
  struct stat st;
  if (fstat(fd, &st) != 0) {
    Status s = ErrnoError(path, "fstat");
    ::close(fd);
    return s;
  }
  size_t size = static_cast<size_t>(st.st_size);
  const uint8_t* data = nullptr;
  if (size > 0) {
    void* p = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      Status s = ErrnoError(path, "mmap");
      ::close(fd);
      return s;
    }
    data = static_cast<const uint8_t*>(p);
  }
  ::close(fd);  // the mapping keeps the file alive
  return std::unique_ptr<MappedFile>(new MappedFile(path, data, size));
}

Status MappedFile::InjectedReadFault(uint64_t offset, uint64_t len) const {
  if (int e = faults::Before(faults::Op::kRead, path_, offset, len)) {
    return Injected(path_, "read at offset " + std::to_string(offset), e);
  }
  return Status::OK();
}

void MappedFile::DropResidentPages() const {
  if (size_ > 0) madvise(const_cast<uint8_t*>(data_), size_, MADV_DONTNEED);
}

WritableFile::~WritableFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<WritableFile>> WritableFile::Create(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError(path, "open");
  return std::unique_ptr<WritableFile>(new WritableFile(path, fd));
}

Status WritableFile::Append(std::string_view data) {
  size_ += data.size();
  if (buffer_.size() + data.size() > kWriteBufferSize) {
    DPS_RETURN_IF_ERROR(FlushBuffer());
    if (data.size() >= kWriteBufferSize) return WriteAll(data);  // not copied: the buffer stays small
  }
  buffer_.append(data.data(), data.size());
  return Status::OK();
}

Status WritableFile::FlushBuffer() {
  if (buffer_.empty()) return Status::OK();
  DPS_RETURN_IF_ERROR(WriteAll(buffer_));
  buffer_.clear();
  return Status::OK();
}

Status WritableFile::WriteAll(std::string_view data) {
  DPS_RETURN_IF_ERROR(WriteAt(fd_, path_, written_, data));
  written_ += data.size();
  return Status::OK();
}

Status WritableFile::Sync() {
  DPS_RETURN_IF_ERROR(FlushBuffer());
  if (faults::Armed()) {
    if (int e = faults::Before(faults::Op::kSync, path_)) return Injected(path_, "fsync", e);
  }
  // Never retried: after a failed fsync the kernel may have dropped the
  // dirty pages, and a second fsync can succeed without them (PostgreSQL's
  // fsync lesson). The caller's commit fails instead.
  if (::fsync(fd_) != 0) return ErrnoError(path_, "fsync");
  return Status::OK();
}

Status WritableFile::Close() {
  if (fd_ < 0) return Status::OK();
  Status s = FlushBuffer();
  if (::close(fd_) != 0 && s.ok()) s = ErrnoError(path_, "close");
  fd_ = -1;
  return s;
}

Status WriteAt(int fd, const std::string& path, uint64_t offset, std::string_view data) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    size_t len = left;
    if (faults::Armed()) {
      if (int e = faults::BeforeWrite(path, &len)) return Injected(path, "write at offset " + std::to_string(offset), e);
    }
    const ssize_t n = ::pwrite(fd, p, len, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(path, "write at offset " + std::to_string(offset));
    }
    p += n;
    left -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return Status::OK();
}

Status ReadAt(int fd, const std::string& path, uint64_t offset, size_t len, char* out) {
  if (faults::Armed()) {
    if (int e = faults::Before(faults::Op::kRead, path, offset, len)) {
      return Injected(path, "read at offset " + std::to_string(offset), e);
    }
  }
  size_t got = 0;
  while (got < len) {
    const ssize_t n = ::pread(fd, out + got, len - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError(path, "read at offset " + std::to_string(offset + got));
    if (n == 0) {
      return Status::IOError(path + ": read at offset " + std::to_string(offset + got) + ": unexpected end of file");
    }
    got += static_cast<size_t>(n);
  }
  return Status::OK();
}

Status SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(dir, "open");
  Status s;
  if (faults::Armed()) {
    if (int e = faults::Before(faults::Op::kSyncDir, dir)) s = Injected(dir, "fsync", e);
  }
  if (s.ok() && ::fsync(fd) != 0) s = ErrnoError(dir, "fsync");
  ::close(fd);  // read-only: nothing to lose
  return s;
}

std::string ParentDir(const std::string& path) {
  size_t end = path.size();
  while (end > 1 && path[end - 1] == '/') --end;  // "idx/" is "idx"
  const size_t slash = path.rfind('/', end - 1);
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  const std::string tmp = path + ".tmp";
  Status s = [&]() -> Status {
    DPS_ASSIGN_OR_RETURN(auto file, WritableFile::Create(tmp));
    DPS_RETURN_IF_ERROR(file->Append(contents));
    DPS_RETURN_IF_ERROR(file->Sync());
    return file->Close();
  }();
  if (s.ok() && faults::Armed()) {
    if (int e = faults::Before(faults::Op::kRename, path)) s = Injected(path, "rename", e);
  }
  // The old file under a second name, to put back if the directory's fsync
  // fails: the rename is then visible but not known to be durable. A hard
  // link takes no data blocks, so it works on a full disk too.
  const std::string old = path + ".prev.tmp";
  (void)::unlink(old.c_str());
  enum { kAbsent, kKept, kLost } before = kKept;
  if (s.ok() && ::link(path.c_str(), old.c_str()) != 0) before = errno == ENOENT ? kAbsent : kLost;
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) s = ErrnoError(path, "rename");
  if (!s.ok()) {
    // Best effort: the next writer removes *.tmp strays anyway.
    (void)::unlink(tmp.c_str());
    (void)::unlink(old.c_str());
    return s;
  }
  s = SyncDir(ParentDir(path));
  if (!s.ok()) {
    // Undo what readers can see; nothing can be said of the disk beyond it.
    if (before == kKept) (void)::rename(old.c_str(), path.c_str());
    if (before == kAbsent) (void)::unlink(path.c_str());
    return s;
  }
  if (before == kKept) (void)::unlink(old.c_str());
  return Status::OK();
}

Result<std::string> ReadFileToString(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, "open");
  std::string out;
  char buf[1 << 16];
  if (faults::Armed()) {
    if (int e = faults::Before(faults::Op::kRead, path, 0, 1)) {
      ::close(fd);
      return Injected(path, "read at offset 0", e);
    }
  }
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      Status s = ErrnoError(path, "read at offset " + std::to_string(out.size()));
      ::close(fd);
      return s;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

Result<std::vector<std::string>> ListDir(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return ErrnoError(dir, "opendir");
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d)) {
    std::string_view name(e->d_name);
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  ::closedir(d);
  return names;
}

Status CreateDirIfMissing(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoError(dir, "mkdir");
  return Status::OK();
}

Status RemoveFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0) return ErrnoError(path, "unlink");
  return Status::OK();
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace dps
