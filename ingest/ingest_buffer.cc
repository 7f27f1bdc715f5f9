#include "ingest/ingest_buffer.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/partitioner.h>
#include <xxhash.h>

namespace dps {

namespace {
constexpr size_t kArenaBlock = 1 << 20;
// The radix sort's threads: each takes a chunk of at least kMinSortChunk
// entries (below that its 64 Ki counters cost more than its share of the
// work), and at most kMaxSortChunks run (their counters: 512 KiB each).
constexpr size_t kMinSortChunk = size_t{1} << 18;
constexpr size_t kMaxSortChunks = 4;
// How many postings ahead ForEachList fetches positions.
constexpr size_t kPositionsAhead = 8;
}  // namespace

IngestBuffer::IngestBuffer(uint32_t bins) : logs_(bins), positions_(bins) {}

void IngestBuffer::Grow() {
  std::vector<Slot> bigger(slots_.size() * 2);
  const size_t mask = bigger.size() - 1;
  for (const Slot& s : slots_) {
    if (s.id == kEmptySlot) continue;
    size_t i = s.hash & mask;
    while (bigger[i].id != kEmptySlot) i = (i + 1) & mask;
    bigger[i] = s;
  }
  slots_.swap(bigger);
}

uint32_t IngestBuffer::Intern(std::string_view term, uint64_t hash) {
  size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  for (; slots_[i].id != kEmptySlot; i = (i + 1) & mask) {
    if (slots_[i].hash == hash && terms_[slots_[i].id] == term) return slots_[i].id;
  }
  if (arena_.empty() || arena_used_ + term.size() > kArenaBlock) {
    const size_t size = std::max(kArenaBlock, term.size());
    arena_.emplace_back(new char[size]);
    arena_bytes_ += size;
    arena_used_ = 0;
  }
  char* p = arena_.back().get() + arena_used_;
  std::memcpy(p, term.data(), term.size());
  arena_used_ += term.size();
  std::string_view stored(p, term.size());
  const uint32_t id = static_cast<uint32_t>(terms_.size());
  terms_.push_back(stored);
  slots_[i] = Slot{hash, id};
  if (terms_.size() * 2 > slots_.size()) Grow();  // load factor <= 1/2
  return id;
}

void IngestBuffer::Add(uint32_t bin, DocId docid, std::span<const std::pair<std::string, uint32_t>> terms,
                       std::span<const uint32_t> positions) {
  // With a large vocabulary each lookup is three dependent cache misses
  // (slot, term array, term bytes). The document's terms are independent,
  // so touch each level for all of them before using any: the misses of
  // one level overlap instead of queueing (prefetches are only hints; the
  // lookups below do the real work).
  // Chunks keep the prefetched lines in cache until they are used.
  constexpr size_t kChunk = 64;
  auto& log = logs_[bin];
  auto& pos = positions_[bin];
  // Entries index their positions with 32 bits: the budget flushes a
  // buffer long before a bin holds 2^32 of them (16 GiB).
  uint32_t at = static_cast<uint32_t>(pos.size());
  pos.insert(pos.end(), positions.begin(), positions.end());
  hashes_.resize(std::min(terms.size(), kChunk));
  for (size_t start = 0; start < terms.size(); start += kChunk) {
    const size_t n = std::min(kChunk, terms.size() - start);
    const auto chunk = terms.subspan(start, n);
    const size_t mask = slots_.size() - 1;
    for (size_t k = 0; k < n; ++k) {
      hashes_[k] = XXH3_64bits(chunk[k].first.data(), chunk[k].first.size());
      __builtin_prefetch(&slots_[hashes_[k] & mask]);
    }
    for (size_t k = 0; k < n; ++k) {
      const uint32_t id = slots_[hashes_[k] & mask].id;
      if (id != kEmptySlot) __builtin_prefetch(&terms_[id]);
    }
    for (size_t k = 0; k < n; ++k) {
      const uint32_t id = slots_[hashes_[k] & mask].id;
      if (id != kEmptySlot) __builtin_prefetch(terms_[id].data());
    }
    for (size_t k = 0; k < n; ++k) {
      log.push_back(Entry{Intern(chunk[k].first, hashes_[k]), docid, chunk[k].second, at});
      if (!positions.empty()) at += chunk[k].second;
    }
  }
  postings_ += terms.size();
}

void IngestBuffer::SetReservation(size_t entries_per_bin, size_t positions_per_bin) {
  reserved_ = entries_per_bin;
  reserved_positions_ = positions_per_bin;
  for (auto& log : logs_) log.reserve(reserved_);
  for (auto& pos : positions_) pos.reserve(reserved_positions_);
}

size_t IngestBuffer::memory_bytes() const {
  size_t bytes = arena_bytes_ + slots_.size() * sizeof(Slot) + terms_.capacity() * 16 +
                 rank_.capacity() * 8;
  for (const auto& log : logs_) {
    bytes += (log.capacity() > reserved_ ? log.capacity() : log.size()) * sizeof(Entry);
  }
  for (const auto& pos : positions_) {
    bytes += (pos.capacity() > reserved_positions_ ? pos.capacity() : pos.size()) * sizeof(uint32_t);
  }
  return bytes;
}

void IngestBuffer::Seal() {
  // The flush needs only term id -> rank; the inverse lives just here.
  std::vector<uint32_t> by_rank(terms_.size());
  std::iota(by_rank.begin(), by_rank.end(), 0u);
  tbb::parallel_sort(by_rank.begin(), by_rank.end(),
                     [this](uint32_t a, uint32_t b) { return terms_[a] < terms_[b]; });
  rank_.assign(terms_.size(), 0);
  for (uint32_t r = 0; r < by_rank.size(); ++r) rank_[by_rank[r]] = r;
}

// The log is in docid order, so a stable sort by term rank alone yields
// (term, docid) order: an LSD radix sort of the entries themselves, two
// 16-bit passes, O(n), with one scratch array of the same size (16 bytes an
// entry: the flush must fit in the memory budget too). A large log is
// counted and scattered by a few threads, each over a contiguous chunk:
// chunk c's entries of a digit land after those of every smaller digit and
// of chunks before c, so the order is the serial sort's. One bin's sort is
// most of a one-tablet build (session 23), which has no other parallelism.
void IngestBuffer::SortByTermRank(Log* log) const {
  const size_t n = log->size();
  const size_t chunks = std::clamp<size_t>(n / kMinSortChunk, 1, kMaxSortChunks);
  auto chunk_begin = [&](size_t c) { return n * c / chunks; };
  Log tmp(n);
  std::vector<std::vector<size_t>> count(chunks, std::vector<size_t>(size_t{1} << 16));
  const tbb::blocked_range<size_t> all_chunks(0, chunks, 1);
  for (int shift = 0; shift < 32 && rank_.size() > (size_t{1} << shift); shift += 16) {
    const Entry* from = log->data();
    Entry* to = tmp.data();
    auto digit = [&](const Entry& e) { return (rank_[e.term] >> shift) & 0xffff; };
    tbb::parallel_for(all_chunks, [&](const tbb::blocked_range<size_t>& r) {
      for (size_t c = r.begin(); c < r.end(); ++c) {
        std::vector<size_t>& mine = count[c];
        std::fill(mine.begin(), mine.end(), 0);
        for (size_t i = chunk_begin(c); i < chunk_begin(c + 1); ++i) ++mine[digit(from[i])];
      }
    }, tbb::simple_partitioner());
    size_t sum = 0;
    for (size_t d = 0; d < (size_t{1} << 16); ++d) {
      for (size_t c = 0; c < chunks; ++c) {
        const size_t k = count[c][d];
        count[c][d] = sum;
        sum += k;
      }
    }
    tbb::parallel_for(all_chunks, [&](const tbb::blocked_range<size_t>& r) {
      for (size_t c = r.begin(); c < r.end(); ++c) {
        std::vector<size_t>& next = count[c];
        for (size_t i = chunk_begin(c); i < chunk_begin(c + 1); ++i) to[next[digit(from[i])]++] = from[i];
      }
    }, tbb::simple_partitioner());
    log->swap(tmp);
  }
}

void IngestBuffer::SortBin(uint32_t bin) { SortByTermRank(&logs_[bin]); }

std::vector<size_t> IngestBuffer::SplitBin(uint32_t bin, size_t parts) const {
  const Log& log = logs_[bin];
  std::vector<size_t> cuts{0};
  for (size_t p = 1; p < parts; ++p) {
    size_t at = std::max(cuts.back(), log.size() * p / parts);
    while (at > cuts.back() && at < log.size() && log[at].term == log[at - 1].term) ++at;  // to a term's start
    if (at > cuts.back() && at < log.size()) cuts.push_back(at);
  }
  cuts.push_back(log.size());
  return cuts;
}

bool IngestBuffer::ForEachListIn(uint32_t bin, size_t from, size_t to, const ListSink& emit) const {
  const Log& log = logs_[bin];
  std::vector<DocId> docs;
  std::vector<uint32_t> weights, positions;
  const Positions& pos = positions_[bin];
  const bool with_positions = !pos.empty();
  bool more = true;
  for (size_t i = from; i < to && more;) {
    const uint32_t term = log[i].term;
    docs.clear();
    weights.clear();
    positions.clear();
    size_t j = i;
    for (; j < to && log[j].term == term; ++j) {
      docs.push_back(log[j].doc);
      weights.push_back(log[j].tf);
      if (with_positions) {
        // A posting's positions sit where its document was added, far from
        // the previous posting's: fetch a few postings ahead, and copy the
        // usual one or two by hand (a memcpy call each was a fifth of a
        // one-bin build).
        if (j + kPositionsAhead < to) __builtin_prefetch(pos.data() + log[j + kPositionsAhead].pos);
        const uint32_t* p = pos.data() + log[j].pos;
        const size_t at = positions.size();
        positions.resize(at + log[j].tf);
        for (uint32_t k = 0; k < log[j].tf; ++k) positions[at + k] = p[k];
      }
    }
    more = emit(terms_[term], docs, weights, positions);
    i = j;
  }
  return more;
}

void IngestBuffer::ReleaseBin(uint32_t bin) {
  Log().swap(logs_[bin]);  // consumed: its memory goes back now
  Positions().swap(positions_[bin]);  // consumed too; Clear reserves again
}

bool IngestBuffer::ForEachList(uint32_t bin, const ListSink& emit) {
  SortBin(bin);
  const bool more = ForEachListIn(bin, 0, logs_[bin].size(), emit);
  ReleaseBin(bin);
  return more;
}

void IngestBuffer::Clear() {
  for (auto& log : logs_) {
    Log().swap(log);
    log.reserve(reserved_);
  }
  for (auto& pos : positions_) {
    Positions().swap(pos);
    pos.reserve(reserved_positions_);
  }
  arena_.clear();
  arena_used_ = arena_bytes_ = 0;
  std::vector<Slot>(1 << 16).swap(slots_);
  terms_.clear();
  rank_.clear();
  postings_ = 0;
}

}  // namespace dps
