// IngestBuffer: the in-memory inverted index of one ingest run. Documents
// arrive analyzed (distinct terms with frequencies) with their bin and
// docid; the buffer interns terms once for all bins and keeps, per bin, an
// append-only log of (term id, docid, tf). Sorting a bin's log by (term
// rank, docid) at flush time yields its posting lists in Accumulo order.
//
// Memory: ~16 bytes per posting (and 4 per position) plus the interned terms; memory_bytes() is
// what the pipeline compares with its budget. Single-threaded writes; after
// Seal(), ForEachList may run concurrently for different bins.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "index/types.h"
#include "ingest/page_allocator.h"

namespace dps {

class IngestBuffer {
 public:
  explicit IngestBuffer(uint32_t bins);

  // REQUIRES: not sealed; docids of a bin ascend across calls; terms distinct.
  // `positions`: empty, or each term's positions (as many as its weight,
  // ascending), the terms' one after another in `terms` order.
  void Add(uint32_t bin, DocId docid, std::span<const std::pair<std::string, uint32_t>> terms,
           std::span<const uint32_t> positions = {});

  // Reserves each bin's log up front (now and after every Clear), so logs
  // never grow by copying: a doubling vector briefly holds its old and new
  // arrays, 1.5x its size, which the budget cannot see. Reserved pages
  // cost nothing until written (PageAllocator maps them fresh), so
  // memory_bytes() counts entries, not capacity, within the reservation.
  // positions_per_bin: the same for each bin's positions (0 without).
  void SetReservation(size_t entries_per_bin, size_t positions_per_bin = 0);

  size_t memory_bytes() const;
  uint64_t postings() const { return postings_; }
  bool empty() const { return postings_ == 0; }
  bool BinEmpty(uint32_t bin) const { return logs_[bin].empty(); }
  size_t BinPostings(uint32_t bin) const { return logs_[bin].size(); }

  // Ranks terms by their bytes; required before ForEachList.
  void Seal();
  // Calls emit(term, docids, weights, positions) for each term of `bin` in
  // term order; positions empty unless the documents came with them (each
  // posting's, in docid order). Thread-safe across different bins after Seal().
  using ListSink = std::function<bool(std::string_view term, std::span<const DocId> docs,
                                      std::span<const uint32_t> weights, std::span<const uint32_t> positions)>;
  // Consumes the bin: afterwards its log is empty and its memory freed.
  // The same as SortBin, ForEachListIn over the whole log, ReleaseBin.
  bool ForEachList(uint32_t bin, const ListSink& emit);

  // A bin's lists in parts, for writers that encode ranges of terms in
  // parallel. SortBin orders the log by (term, docid); SplitBin cuts the
  // sorted log into at most `parts` ranges of about equal postings, each
  // starting at a term's first posting, and returns their boundaries
  // (0 first, the log's size last); ForEachListIn emits the lists of one
  // range and may run concurrently with itself; ReleaseBin frees the bin.
  void SortBin(uint32_t bin);
  std::vector<size_t> SplitBin(uint32_t bin, size_t parts) const;
  bool ForEachListIn(uint32_t bin, size_t from, size_t to, const ListSink& emit) const;
  void ReleaseBin(uint32_t bin);

  void Clear();

 private:
  struct Entry {
    uint32_t term;
    DocId doc;
    uint32_t tf;
    uint32_t pos;  // the first of its tf positions in positions_[bin]
  };
  uint32_t Intern(std::string_view term, uint64_t hash);  // hash: XXH3-64 of term

  using Log = std::vector<Entry, PageAllocator<Entry>>;
  using Positions = std::vector<uint32_t, PageAllocator<uint32_t>>;
  void SortByTermRank(Log* log) const;  // stable, by rank_ of each entry's term
  std::vector<Log> logs_;
  std::vector<Positions> positions_;  // by bin, in Add order
  size_t reserved_ = 0;  // entries per bin
  size_t reserved_positions_ = 0;
  // Interned term bytes live in arena blocks that never move.
  std::vector<std::unique_ptr<char[]>> arena_;
  size_t arena_used_ = 0;
  size_t arena_bytes_ = 0;
  // Open addressing with linear probing; each slot keeps the term's hash so
  // a probe compares bytes only on a full hash match (std::unordered_map's
  // chained nodes and memcmp on every bucket entry cost 30% of an ingest).
  struct Slot {
    uint64_t hash = 0;
    uint32_t id = kEmptySlot;
  };
  static constexpr uint32_t kEmptySlot = UINT32_MAX;
  void Grow();
  std::vector<Slot> slots_ = std::vector<Slot>(1 << 16);
  std::vector<std::string_view> terms_;  // by id
  std::vector<uint64_t> hashes_;         // Add's scratch
  std::vector<uint32_t> rank_;           // term id -> rank, after Seal
  uint64_t postings_ = 0;
};

}  // namespace dps
