// The global index (wikisearch's "global index table"): for every term, its
// total document frequency and the bins that hold it. The planner answers an
// AND with an absent term without touching a shard, visits only bins in the
// intersection of the terms' bin sets, and orders terms rarest first.
// One paged file per commit; layout in docs/FORMAT.md ("Global index").
// Frequencies count documents as written: deleted documents stay counted
// until their tablet is compacted (the bin set stays a superset, so
// planning remains correct).
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

inline constexpr uint64_t kGlobalIndexMagic = 0x0031584947535044ULL;  // "DPSGIX1\0"
inline constexpr uint32_t kGlobalIndexVersion = 1;

struct GlobalTermInfo {
  uint64_t df = 0;
  std::vector<uint32_t> bins;  // ascending
};

class GlobalIndexWriter {
 public:
  static Result<std::unique_ptr<GlobalIndexWriter>> Create(const std::string& path);
  // REQUIRES: terms strictly ascending; bins ascending and non-empty.
  Status Add(std::string_view term, const GlobalTermInfo& info);
  Status Finish(uint64_t total_docs);
  uint64_t bytes_written() const { return file_->offset(); }

 private:
  explicit GlobalIndexWriter(std::unique_ptr<PagedFileWriter> file) : file_(std::move(file)) {}
  std::unique_ptr<PagedFileWriter> file_;
  TermDictBuilder dict_;
  std::string last_;
  std::string scratch_;
};

class GlobalIndexReader {
 public:
  static Result<std::unique_ptr<GlobalIndexReader>> Open(const std::string& path);
  // *found false for a term no document contains.
  Status Lookup(std::string_view term, bool* found, GlobalTermInfo* info) const;
  uint64_t num_terms() const { return num_terms_; }
  uint64_t total_docs() const { return total_docs_; }
  const TermDictReader& dict() const { return dict_; }
  Status ParseValue(std::string_view value, GlobalTermInfo* info) const;

 private:
  GlobalIndexReader() = default;
  std::unique_ptr<PagedFileReader> file_;
  TermDictReader dict_;
  uint64_t num_terms_ = 0;
  uint64_t total_docs_ = 0;
};

}  // namespace dps
