#include "ingest/ingest_buffer.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include <xxhash.h>

namespace dps {

namespace {
constexpr size_t kArenaBlock = 1 << 20;
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
  std::sort(by_rank.begin(), by_rank.end(),
            [this](uint32_t a, uint32_t b) { return terms_[a] < terms_[b]; });
  rank_.assign(terms_.size(), 0);
  for (uint32_t r = 0; r < by_rank.size(); ++r) rank_[by_rank[r]] = r;
}

bool IngestBuffer::ForEachList(uint32_t bin, const ListSink& emit) {
  auto& log = logs_[bin];
  // The log is in docid order, so a stable sort by term rank alone yields
  // (term, docid) order: an LSD radix sort of the entries themselves, two
  // 16-bit passes, O(n), with one scratch array of the same size (16 bytes
  // an entry: the flush must fit in the memory budget too).
  {
    Log tmp(log.size());
    std::vector<size_t> count(1 << 16);
    for (int shift = 0; shift < 32 && rank_.size() > (size_t{1} << shift); shift += 16) {
      std::fill(count.begin(), count.end(), 0);
      for (const Entry& e : log) ++count[(rank_[e.term] >> shift) & 0xffff];
      size_t sum = 0;
      for (auto& c : count) {
        const size_t n = c;
        c = sum;
        sum += n;
      }
      for (const Entry& e : log) tmp[count[(rank_[e.term] >> shift) & 0xffff]++] = e;
      log.swap(tmp);
    }
  }
  std::vector<DocId> docs;
  std::vector<uint32_t> weights, positions;
  const Positions& pos = positions_[bin];
  bool more = true;
  for (size_t i = 0; i < log.size() && more;) {
    const uint32_t term = log[i].term;
    docs.clear();
    weights.clear();
    positions.clear();
    size_t j = i;
    for (; j < log.size() && log[j].term == term; ++j) {
      docs.push_back(log[j].doc);
      weights.push_back(log[j].tf);
      if (!pos.empty()) positions.insert(positions.end(), pos.begin() + log[j].pos, pos.begin() + log[j].pos + log[j].tf);
    }
    more = emit(terms_[term], docs, weights, positions);
    i = j;
  }
  Log().swap(log);  // consumed: its memory goes back now
  Positions().swap(positions_[bin]);  // consumed too; Clear reserves again
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
