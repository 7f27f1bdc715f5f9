#include "common/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dps {

namespace {
Status Errno(const std::string& path, const char* call) {
  return Status::IOError(path + ": " + call + ": " + std::strerror(errno));
}
constexpr size_t kWriteBufferSize = 1 << 20;
}  // namespace

MappedFile::~MappedFile() {
  if (size_ > 0) munmap(const_cast<uint8_t*>(data_), size_);
}

Result<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno(path, "open");
  struct stat st;
  if (fstat(fd, &st) != 0) {
    Status s = Errno(path, "fstat");
    ::close(fd);
    return s;
  }
  size_t size = static_cast<size_t>(st.st_size);
  const uint8_t* data = nullptr;
  if (size > 0) {
    void* p = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      Status s = Errno(path, "mmap");
      ::close(fd);
      return s;
    }
    data = static_cast<const uint8_t*>(p);
  }
  ::close(fd);  // the mapping keeps the file alive
  return std::unique_ptr<MappedFile>(new MappedFile(path, data, size));
}

void MappedFile::DropResidentPages() const {
  if (size_ > 0) madvise(const_cast<uint8_t*>(data_), size_, MADV_DONTNEED);
}

WritableFile::~WritableFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<WritableFile>> WritableFile::Create(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(path, "open");
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
  DPS_RETURN_IF_ERROR(WriteAll(buffer_));
  buffer_.clear();
  return Status::OK();
}

Status WritableFile::WriteAll(std::string_view data) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno(path_, "write");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return Status::OK();
}

Status WritableFile::Sync() {
  DPS_RETURN_IF_ERROR(FlushBuffer());
  if (::fsync(fd_) != 0) return Errno(path_, "fsync");
  return Status::OK();
}

Status WritableFile::Close() {
  if (fd_ < 0) return Status::OK();
  Status s = FlushBuffer();
  if (::close(fd_) != 0 && s.ok()) s = Errno(path_, "close");
  fd_ = -1;
  return s;
}

Status SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno(dir, "open");
  Status s;
  if (::fsync(fd) != 0) s = Errno(dir, "fsync");
  ::close(fd);
  return s;
}

static std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  std::string tmp = path + ".tmp";
  {
    DPS_ASSIGN_OR_RETURN(auto file, WritableFile::Create(tmp));
    DPS_RETURN_IF_ERROR(file->Append(contents));
    DPS_RETURN_IF_ERROR(file->Sync());
    DPS_RETURN_IF_ERROR(file->Close());
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Errno(path, "rename");
  return SyncDir(DirName(path));
}

Result<std::string> ReadFileToString(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno(path, "open");
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      Status s = Errno(path, "read");
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
  if (d == nullptr) return Errno(dir, "opendir");
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
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return Errno(dir, "mkdir");
  return Status::OK();
}

Status RemoveFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0) return Errno(path, "unlink");
  return Status::OK();
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace dps
