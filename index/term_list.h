// The term list of a freshly written tablet file (`NNNNNN.dic` beside
// `NNNNNN.tab`): per bin, the tablet dictionary (term -> where its postings
// are), kept outside the tablet file because the global index copies every
// entry as a ref and queries read only the global index. The commit merges
// the term lists into the new global index and deletes them once the
// MANIFEST names it: an index holds no .dic files between commits.
// Layout: docs/FORMAT.md ("Term list").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/paged_file.h"
#include "index/term_dict.h"

namespace dps {

inline constexpr uint64_t kTermListMagic = 0x0031434944535044ULL;  // "DPSDIC1\0"
inline constexpr uint32_t kTermListVersion = 6;
// Header flag: values carry positions (inline ones after inline postings,
// a list's positions offset after form 0's fields).
inline constexpr uint32_t kTermListFlagPositions = 1u << 0;

// "000007.tab" -> "000007.dic" (same directory).
std::string TermListPathFor(const std::string& tablet_path);

class TermListWriter {
 public:
  static Result<std::unique_ptr<TermListWriter>> Create(const std::string& path, bool positions);
  // One bin's dictionary, streamed to the file: BeginBin, Add for each of
  // its terms (ascending), EndBin. REQUIRES: bins strictly ascending. A bin
  // without terms is left out.
  Status BeginBin(uint32_t bin);
  Status Add(std::string_view term, std::string_view value) { return dict_.Add(term, value); }
  Status EndBin();
  Status Finish();  // fsyncs

 private:
  explicit TermListWriter(std::unique_ptr<PagedFileWriter> file)
      : file_(std::move(file)), dict_(file_.get()) {}
  std::unique_ptr<PagedFileWriter> file_;
  TermDictBuilder dict_;
  uint32_t bin_ = 0;
  bool in_bin_ = false;
  std::string directory_;
  uint32_t bins_ = 0;
  int64_t last_bin_ = -1;
};

class TermListReader {
 public:
  static Result<std::unique_ptr<TermListReader>> Open(const std::string& path);
  size_t bin_count() const { return bins_.size(); }
  uint32_t bin(size_t i) const { return bins_[i]; }
  const TermDictReader& dict(size_t i) const { return dicts_[i]; }
  const std::string& path() const { return file_->path(); }
  bool positions() const { return positions_; }
  // Its mapped pages stop counting in RSS (they are read again on use).
  void DropResidentPages() const { file_->DropResidentPages(); }

 private:
  TermListReader() = default;
  bool positions_ = false;
  std::unique_ptr<PagedFileReader> file_;
  std::vector<uint32_t> bins_;
  std::vector<TermDictReader> dicts_;
};

}  // namespace dps
