// The global index (wikisearch's "global index table"): for every term, its
// total document frequency, the bins that hold it, and where its postings
// are in each (bin, file) — so a query looks each term up once, here, and
// never searches a tablet's own dictionaries. The planner answers an AND
// with an absent term without touching a shard, visits only bins in the
// intersection of the terms' bin sets, and orders terms rarest first.
// One paged file per commit; layout in docs/FORMAT.md ("Global index").
// Frequencies count documents as written: deleted documents stay counted
// until their tablet is compacted (the bin set stays a superset, so
// planning remains correct).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "index/paged_file.h"
#include "index/term_dict.h"
#include "index/types.h"

namespace dps {

inline constexpr uint64_t kGlobalIndexMagic = 0x0031584947535044ULL;  // "DPSGIX1\0"
inline constexpr uint32_t kGlobalIndexVersion = 8;
// Header flag: every ref carries its list's positions (docs/FORMAT.md "Global index").
inline constexpr uint32_t kGlobalFlagPositions = 1u << 0;

// A term's postings in one (bin, file): the tablet dictionary's value, with
// the file named by its position in its tablet's MANIFEST file list.
struct TermRef {
  uint32_t bin = 0;
  uint32_t file = 0;  // position in the tablet's file list (oldest = 0)
  uint32_t df = 0;
  DocId inline_doc = 0;       // df == 1
  uint32_t inline_weight = 0; // df == 1
  // df >= 2 kept in the dictionary: the encoded postings (viewing the
  // dictionary's bytes) and whether they carry weights; empty for a list in
  // the file.
  std::string_view inline_postings;
  bool inline_weights = false;
  uint64_t offset = 0;        // a list in the file: relative to the bin's postings region
  uint64_t len = 0;
  uint32_t max_score = 0;     // a list of more than one block: its largest block score (PostingRef's)
  // An index with positions: an inline list's (or singleton's) inline
  // positions (docs/FORMAT.md "Inline positions"), viewing the dictionary's
  // bytes; a list in the file: its positions list's offset in the bin's
  // positions region.
  std::string_view inline_positions;
  uint64_t positions_offset = 0;
  bool in_file() const { return df >= 2 && inline_postings.empty(); }
};

struct GlobalTermInfo {
  uint64_t df = 0;            // the sum of the refs' df
  std::vector<TermRef> refs;  // ascending by (bin, file)
  // The refs of `bin` (empty when the term is absent from it).
  std::span<const TermRef> RefsOf(BinId bin) const;
  // The bins holding the term, ascending, into *out.
  void Bins(std::vector<BinId>* out) const;
};

class GlobalIndexReader;

// Global entries read elsewhere (a prefix's expansions, read by the
// dictionary walk), which a TermTable takes instead of looking the terms
// up again. They are taken mostly in the order they were added, so the
// entry after the last one taken is tried first; the first other request
// builds a hash index. A term added twice (overlapping prefixes) is taken
// once, its first entry.
class KnownTerms {
 public:
  void Add(std::string term, GlobalTermInfo info);
  // Moves `term`'s entry into *info; false if absent. REQUIRES: every Add
  // before the first Take.
  bool Take(std::string_view term, GlobalTermInfo* info);
  size_t size() const { return entries_.size(); }
  const std::pair<std::string, GlobalTermInfo>& entry(size_t i) const { return entries_[i]; }

 private:
  std::vector<std::pair<std::string, GlobalTermInfo>> entries_;
  size_t next_ = 0;
  std::unordered_map<std::string_view, size_t> index_;  // views of entries_' keys
};

// The global entries of one query's terms. An entry with no refs is a term
// absent from the index. A handful of terms are searched linearly; past
// kLinearEntries (a prefix's expansions make thousands) Find uses a hash
// index. Entries are added only through the methods below.
struct TermTable {
  static constexpr size_t kLinearEntries = 16;
  std::vector<std::pair<std::string, GlobalTermInfo>> entries;
  const GlobalTermInfo* Find(std::string_view term) const {
    const size_t i = IndexOf(term);
    return i == kNone ? nullptr : &entries[i].second;
  }
  // Find, trying entries[*hint] first; *hint becomes the index after the
  // entry found. Terms asked for in the order they were added (an OR of a
  // prefix's expansions, whose entries were added in that order) are found
  // without hashing.
  const GlobalTermInfo* FindFrom(std::string_view term, size_t* hint) const {
    const size_t i = IndexOf(term, *hint);
    if (i == kNone) return nullptr;
    *hint = i + 1;
    return &entries[i].second;
  }
  // The index of `term`'s entry, looked up in `global` (may be null: absent)
  // the first time it is asked for, or taken from `known` when that holds
  // it.
  Result<size_t> Add(const GlobalIndexReader* global, std::string_view term, KnownTerms* known = nullptr);
  // Adds every term of `terms` at once, in order (their dictionary blocks
  // are fetched together, see TermDictReader::Locate), `known` as in Add.
  Status AddAll(const GlobalIndexReader* global, std::span<const std::string> terms,
                KnownTerms* known = nullptr);
  // No entries, as a new table; the room of its vectors is kept.
  void Clear() {
    entries.clear();
    slots_.clear();
  }

 private:
  static constexpr size_t kNone = SIZE_MAX;
  size_t IndexOf(std::string_view term, size_t hint = kNone) const;
  // Takes `term`'s entry from `known` into a new entry; false if absent.
  bool TakeFrom(KnownTerms* known, std::string_view term);
  void Append(std::string_view term, GlobalTermInfo info);
  // Once past kLinearEntries, every entry's index in an open-addressing
  // table (kNoSlot: empty; at most half full), hashed by its term: no
  // allocation or copy per entry, as a prefix's thousands of expansions
  // would cost with a node-based map.
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  std::vector<uint32_t> slots_;
  void Index(size_t entry);
};

class GlobalIndexWriter {
 public:
  // positions: every ref carries its list's positions (all files of the
  // index have them).
  static Result<std::unique_ptr<GlobalIndexWriter>> Create(const std::string& path, bool positions);
  // REQUIRES: terms strictly ascending; refs non-empty, ascending by (bin,
  // file).
  Status Add(std::string_view term, const GlobalTermInfo& info);
  Status Finish(uint64_t total_docs);
  uint64_t bytes_written() const { return file_->offset(); }

 private:
  GlobalIndexWriter(std::unique_ptr<PagedFileWriter> file, bool positions)
      : file_(std::move(file)), dict_(file_.get(), kGlobalDictBlockEntries), positions_(positions) {}
  std::unique_ptr<PagedFileWriter> file_;
  TermDictBuilder dict_;  // streams into file_
  std::string last_;
  std::string scratch_;
  bool positions_;
};

class GlobalIndexReader {
 public:
  static Result<std::unique_ptr<GlobalIndexReader>> Open(const std::string& path);
  // *found false for a term no document contains.
  Status Lookup(std::string_view term, bool* found, GlobalTermInfo* info) const;
  uint64_t num_terms() const { return num_terms_; }
  uint64_t total_docs() const { return total_docs_; }
  const TermDictReader& dict() const { return dict_; }
  const std::string& path() const { return file_->path(); }
  Status ParseValue(std::string_view value, GlobalTermInfo* info) const;
  bool positions() const { return positions_; }
  // Its mapped pages stop counting in RSS (they are read again on use).
  void DropResidentPages() const { file_->DropResidentPages(); }

 private:
  GlobalIndexReader() = default;
  bool positions_ = false;
  std::unique_ptr<PagedFileReader> file_;
  TermDictReader dict_;
  uint64_t num_terms_ = 0;
  uint64_t total_docs_ = 0;
};

}  // namespace dps
