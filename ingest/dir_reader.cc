#include "ingest/dir_reader.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "ingest/utf8.h"

namespace dps {

namespace {

// The binary-file test reads like git's and grep's: a NUL early on means
// binary. Text in a legacy 8-bit encoding has some invalid UTF-8 but rarely
// a third of its bytes, while compressed or executable data has about half.
constexpr size_t kNulProbeBytes = 8 * 1024;
constexpr uint64_t kMaxInvalidPercent = 30;

Status Errno(const std::string& path, const char* call) {
  return Status::IOError(path + ": " + call + ": " + std::strerror(errno));
}

bool LooksBinary(std::string_view content) {
  if (std::memchr(content.data(), '\0', std::min(content.size(), kNulProbeBytes)) != nullptr) {
    return true;
  }
  if (IsValidUtf8(content)) return false;
  return CountInvalidUtf8Bytes(content) * 100 > content.size() * kMaxInvalidPercent;
}

class DirReader final : public DocumentReader {
 public:
  DirReader(std::string root, const ReaderOptions& options)
      : DocumentReader(options), root_(std::move(root)) {}

  // Lists the root. REQUIRES: `st` is the root's stat.
  Status Start(const struct stat& st) { return PushDir("", root_, st); }

  uint64_t bytes_read() const override { return bytes_read_; }
  std::optional<uint64_t> total_bytes() const override { return std::nullopt; }

 protected:
  Result<bool> ReadNext(RawDocument* doc) override {
    while (!stack_.empty()) {
      Frame& top = stack_.back();
      if (top.next == top.names.size()) {
        stack_.pop_back();
        continue;
      }
      const std::string& name = top.names[top.next++];
      std::string rel = top.rel + name;
      std::string path = root_ == "/" ? "/" + rel : root_ + "/" + rel;
      struct stat st;
      if (lstat(path.c_str(), &st) != 0) {
        DPS_RETURN_IF_ERROR(SkipOrFail(Errno(path, "lstat")));
        continue;
      }
      if (S_ISLNK(st.st_mode)) {
        // stat fails with ENOENT for a dangling link and ELOOP for a link
        // cycle, both of which name a file we were asked to index.
        if (stat(path.c_str(), &st) != 0) {
          DPS_RETURN_IF_ERROR(SkipOrFail(Errno(path, "following symbolic link")));
          continue;
        }
        if (S_ISDIR(st.st_mode) && !options_.follow_dir_symlinks) {
          ++stats_.skipped_entries;
          continue;
        }
      }
      if (S_ISDIR(st.st_mode)) {
        DPS_RETURN_IF_ERROR(SkipOrFail(PushDir(rel + "/", path, st)));  // invalidates `top`
        continue;
      }
      if (!S_ISREG(st.st_mode)) {
        ++stats_.skipped_entries;  // never open a fifo: it would block
        continue;
      }
      Result<bool> text = ReadFile(path, &doc->text);
      if (!text.ok()) {
        DPS_RETURN_IF_ERROR(SkipOrFail(text.status()));
        continue;
      }
      if (!*text) {
        ++stats_.binary_files;
        continue;
      }
      // File names are bytes; ids and titles must be text.
      doc->id = SanitizeUtf8(rel, &stats_.utf8_replacements);
      doc->title = SanitizeUtf8(name, &stats_.utf8_replacements);
      doc->source = std::move(path);
      return true;
    }
    return false;
  }

 private:
  struct Frame {
    std::string rel;                 // the directory relative to the root, "" or ending in '/'
    std::vector<std::string> names;  // its entries, sorted
    size_t next = 0;
  };

  Status PushDir(std::string rel, const std::string& path, const struct stat& st) {
    if (!visited_.emplace(st.st_dev, st.st_ino).second) {
      ++stats_.skipped_entries;
      return Status::OK();
    }
    DIR* dir = opendir(path.c_str());
    if (dir == nullptr) return Errno(path, "opendir");
    Frame frame;
    frame.rel = std::move(rel);
    errno = 0;
    while (struct dirent* entry = readdir(dir)) {
      std::string_view name = entry->d_name;
      if (name != "." && name != "..") frame.names.emplace_back(name);
    }
    const int read_errno = errno;
    closedir(dir);
    if (read_errno != 0) {
      errno = read_errno;
      return Errno(path, "readdir");
    }
    std::sort(frame.names.begin(), frame.names.end());
    stack_.push_back(std::move(frame));
    return Status::OK();
  }

  // Reads the file at `path` into *text (reusing its capacity) and repairs
  // its UTF-8. Returns false for a binary file.
  Result<bool> ReadFile(const std::string& path, std::string* text) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return Errno(path, "open");
    struct stat st;
    if (fstat(fd, &st) != 0) {
      Status s = Errno(path, "fstat");
      ::close(fd);
      return s;
    }
    const size_t limit = options_.max_record_bytes;
    // One byte more than the size, so a file read whole sees EOF at once;
    // the loop also copes with a file that grows while we read it.
    text->resize(std::min(static_cast<size_t>(st.st_size), limit) + 1);
    size_t len = 0;
    for (;;) {
      if (len == text->size()) {
        if (len > limit) {
          ::close(fd);
          return Status::InvalidArgument(path + ": file larger than " + std::to_string(limit) +
                                         " bytes");
        }
        text->resize(std::min(len * 2, limit + 1));
      }
      ssize_t got = ::read(fd, text->data() + len, text->size() - len);
      if (got < 0) {
        if (errno == EINTR) continue;
        Status s = Errno(path, "read");
        ::close(fd);
        return s;
      }
      if (got == 0) break;
      len += static_cast<size_t>(got);
    }
    ::close(fd);
    text->resize(len);
    bytes_read_ += len;
    if (LooksBinary(*text)) return false;
    SanitizeUtf8InPlace(text, &stats_.utf8_replacements);
    return true;
  }

  const std::string root_;
  std::vector<Frame> stack_;
  std::set<std::pair<dev_t, ino_t>> visited_;
  uint64_t bytes_read_ = 0;
};

}  // namespace

Result<std::unique_ptr<DocumentReader>> OpenDirReader(const std::string& root,
                                                      const ReaderOptions& options) {
  std::string normalized = root;
  while (normalized.size() > 1 && normalized.back() == '/') normalized.pop_back();
  struct stat st;
  if (stat(normalized.c_str(), &st) != 0) return Errno(root, "stat");
  if (!S_ISDIR(st.st_mode)) return Status::InvalidArgument(root + ": not a directory");
  auto reader = std::make_unique<DirReader>(std::move(normalized), options);
  DPS_RETURN_IF_ERROR(reader->Start(st));
  return std::unique_ptr<DocumentReader>(std::move(reader));
}

}  // namespace dps
