#include "ingest/dir_reader.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "common/file.h"
#include "ingest/byte_source.h"
#include "ingest/decompress.h"
#include "ingest/utf8.h"

namespace dps {

namespace {

// The binary-file test reads like git's and grep's: a NUL early on means
// binary. Text in a legacy 8-bit encoding has some invalid UTF-8 but rarely
// a third of its bytes, while compressed or executable data has about half.
constexpr size_t kNulProbeBytes = 8 * 1024;
constexpr uint64_t kMaxInvalidPercent = 30;

bool HasEarlyNul(std::string_view content) {
  return std::memchr(content.data(), '\0', std::min(content.size(), kNulProbeBytes)) != nullptr;
}

bool LooksBinary(std::string_view content) {
  if (HasEarlyNul(content)) return true;
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
        DPS_RETURN_IF_ERROR(SkipOrFail(ErrnoError(path, "lstat")));
        continue;
      }
      if (S_ISLNK(st.st_mode)) {
        // stat fails with ENOENT for a dangling link and ELOOP for a link
        // cycle, both of which name a file we were asked to index.
        if (stat(path.c_str(), &st) != 0) {
          DPS_RETURN_IF_ERROR(SkipOrFail(ErrnoError(path, "following symbolic link")));
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
      doc->fields.clear();
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
    if (dir == nullptr) return ErrnoError(path, "opendir");
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
      return ErrnoError(path, "readdir");
    }
    std::sort(frame.names.begin(), frame.names.end());
    stack_.push_back(std::move(frame));
    return Status::OK();
  }

  // Reads the file at `path` into *text (reusing its capacity), decompressed
  // when its name ends in .gz or .zst, and repairs its UTF-8. Returns false
  // for a binary file. At most max_record_bytes (+1 to detect the excess)
  // are held, so a decompression bomb costs no more memory than a large
  // plain file.
  Result<bool> ReadFile(const std::string& path, std::string* text) {
    DPS_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> in, OpenByteSource(path));
    Result<bool> read = ReadText(in.get(), CompressionFromName(path) != Compression::kNone, text);
    bytes_read_ += in->bytes_read();  // file bytes: compressed ones for .gz/.zst
    if (!read.ok() || !*read) return read;
    SanitizeUtf8InPlace(text, &stats_.utf8_replacements);
    return true;
  }

  // The reading loop of ReadFile: false as soon as the content is known to
  // be binary (a NUL in the first kNulProbeBytes, so a large binary file,
  // compressed or not, is not read through), or at the end of a binary one.
  Result<bool> ReadText(ByteSource* in, bool compressed, std::string* text) {
    const size_t limit = options_.max_record_bytes;
    // One byte more than the size, so a plain file read whole sees EOF at
    // once; the loop also copes with a file that grows while we read it,
    // and with compressed text, which is rarely more than 4x its file.
    const uint64_t guess = in->total_bytes().value_or(0) * (compressed ? 4 : 1);
    text->resize(static_cast<size_t>(std::min<uint64_t>(guess, limit)) + 1);
    size_t len = 0;
    bool probed = false;
    for (;;) {
      if (len == text->size()) {
        if (len > limit) {
          return Status::InvalidArgument(in->name() + ": file larger than " +
                                         std::to_string(limit) + " bytes" +
                                         (compressed ? " decompressed" : ""));
        }
        text->resize(std::min(len * 2, limit + 1));
      }
      DPS_ASSIGN_OR_RETURN(size_t got, in->Read(text->data() + len, text->size() - len));
      if (got == 0) break;
      len += got;
      if (!probed && len >= kNulProbeBytes) {
        probed = true;
        if (HasEarlyNul(std::string_view(text->data(), len))) return false;
      }
    }
    text->resize(len);
    return !LooksBinary(*text);
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
  if (stat(normalized.c_str(), &st) != 0) return ErrnoError(root, "stat");
  if (!S_ISDIR(st.st_mode)) return Status::InvalidArgument(root + ": not a directory");
  auto reader = std::make_unique<DirReader>(std::move(normalized), options);
  DPS_RETURN_IF_ERROR(reader->Start(st));
  return std::unique_ptr<DocumentReader>(std::move(reader));
}

}  // namespace dps
