// libFuzzer target for the dir reader (ingest/dir_reader.h): a tree of
// files, directories and symbolic links described by the input is created
// in a scratch directory on tmpfs and read with OpenDirReader. The walk
// must end (link cycles included, with and without following links to
// directories), every document must have a valid UTF-8 id (its path) and
// text, its title the path's last name, a document at the root an entry
// there (names of invalid UTF-8 repaired), .gz and .zst files decompressed
// or refused, and every error an InvalidArgument or IOError.
// Input: flags (u8; bit 0: follow_dir_symlinks; bit 1: skip_bad; bit 2:
// a 64-byte record limit) | entries, each `kind (u8: 0 file, 1 enter a
// directory, 2 leave it, 3 a link to a name, 4 a link to "..") |
// name_len (u8) | name | [content_len (u16) | content, for files; the
// target's name for links]`. Names are made safe for the file system
// ('/' and NUL become '_'; "." and ".." become "_"). Seeds in
// tests/fuzz/corpus/dir_reader_fuzz/ describe small trees: text files,
// nested directories, a binary file, a .gz and a .zst file, link cycles
// (tests/fuzz/make_seeds.cc).
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include "ingest/dir_reader.h"
#include "ingest/utf8.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using dps::fuzz::TakeLE;

std::string SafeName(std::string_view raw) {
  std::string name(raw.substr(0, 40));
  for (char& c : name) {
    if (c == '/' || c == '\0') c = '_';
  }
  return name.empty() || name == "." || name == ".." ? std::string(1, '_') : name;
}

// Creates the tree the input describes under `root`.
void MakeTree(std::string_view in, const std::string& root) {
  std::string rel;  // the current directory, relative to root ("" or "a/b/")
  for (int entries = 0; in.size() >= 2 && entries < 64; ++entries) {
    const uint64_t kind = TakeLE(&in, 1) % 5;
    const std::string name = SafeName(in.substr(0, TakeLE(&in, 1)));
    in.remove_prefix(std::min(in.size(), static_cast<size_t>(name.size())));
    const std::string path = root + "/" + rel + name;
    if (kind == 0) {
      const std::string_view content = in.substr(0, TakeLE(&in, 2));
      in.remove_prefix(content.size());
      if (std::filesystem::exists(std::filesystem::symlink_status(path))) continue;
      dps::fuzz::WriteFileOrDie(path, content);
    } else if (kind == 1) {
      if (std::filesystem::exists(std::filesystem::symlink_status(path))) continue;
      if (mkdir(path.c_str(), 0755) != 0 || rel.size() > 400) continue;
      rel += name + "/";
    } else if (kind == 2) {
      if (rel.empty()) continue;
      rel.resize(rel.rfind('/', rel.size() - 2) == std::string::npos ? 0 : rel.rfind('/', rel.size() - 2) + 1);
    } else {
      const std::string target = kind == 4 ? ".." : SafeName(in.substr(0, TakeLE(&in, 1)));
      if (kind == 3) in.remove_prefix(std::min(in.size(), target.size()));
      (void)!symlink(target.c_str(), path.c_str());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string root = dps::fuzz::ScratchPath("tree");
  std::error_code ignored;
  std::filesystem::remove_all(root, ignored);
  if (mkdir(root.c_str(), 0755) != 0) abort();
  MakeTree(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), root);
  dps::ReaderOptions options;
  options.follow_dir_symlinks = data[0] & 1;
  options.skip_bad = data[0] & 2;
  if (data[0] & 4) options.max_record_bytes = 64;
  auto reader = dps::OpenDirReader(root, options);
  if (!reader.ok()) abort();  // the root is a directory
  // What a document at the root may be named: a file, or a link to one
  // (names of invalid UTF-8 repaired, as every id is).
  std::set<std::string> named;
  for (const auto& e : std::filesystem::directory_iterator(root)) {
    uint64_t replaced = 0;
    named.insert(dps::SanitizeUtf8(e.path().filename().string(), &replaced));
  }
  dps::RawDocument doc;
  size_t docs = 0;
  for (;;) {
    auto more = reader.value()->Next(&doc);
    if (!more.ok()) {
      if (!more.status().IsInvalidArgument() && more.status().code() != dps::Status::Code::kIOError) abort();
      break;
    }
    if (!more.value()) break;
    // Links to files are followed: a document is a created file, or a path through links.
    if (doc.id.empty() || !dps::IsValidUtf8(doc.text) || ++docs > 10000) abort();
    if (doc.title != doc.id.substr(doc.id.rfind('/') + 1)) abort();
    if (!dps::IsValidUtf8(doc.id) || (doc.id.find('/') == std::string::npos && !named.count(doc.id))) abort();
  }
  return 0;
}
