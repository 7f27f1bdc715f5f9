#include "ingest/ingest_buffer.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include <xxhash.h>

namespace dps {

namespace {
constexpr size_t kArenaBlock = 1 << 20;
}  // namespace

IngestBuffer::IngestBuffer(uint32_t bins) : logs_(bins) {}

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

uint32_t IngestBuffer::Intern(std::string_view term) {
  const uint64_t hash = XXH3_64bits(term.data(), term.size());
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

void IngestBuffer::Add(uint32_t bin, DocId docid,
                       std::span<const std::pair<std::string, uint32_t>> terms) {
  auto& log = logs_[bin];
  for (const auto& [term, tf] : terms) log.push_back(Entry{Intern(term), docid, tf});
  postings_ += terms.size();
}

size_t IngestBuffer::memory_bytes() const {
  size_t bytes = arena_bytes_ + slots_.size() * sizeof(Slot) + terms_.capacity() * 16 +
                 rank_.capacity() * 8;
  for (const auto& log : logs_) bytes += log.capacity() * sizeof(Entry);
  return bytes;
}

void IngestBuffer::Seal() {
  by_rank_.resize(terms_.size());
  std::iota(by_rank_.begin(), by_rank_.end(), 0u);
  std::sort(by_rank_.begin(), by_rank_.end(),
            [this](uint32_t a, uint32_t b) { return terms_[a] < terms_[b]; });
  rank_.assign(terms_.size(), 0);
  for (uint32_t r = 0; r < by_rank_.size(); ++r) rank_[by_rank_[r]] = r;
}

bool IngestBuffer::ForEachList(uint32_t bin, const ListSink& emit) const {
  const auto& log = logs_[bin];
  // The log is in docid order, so a stable sort by term rank alone yields
  // (term, docid) order: an LSD radix sort, two 16-bit passes, O(n).
  std::vector<std::pair<uint64_t, uint32_t>> sorted(log.size()), tmp(log.size());
  for (size_t i = 0; i < log.size(); ++i) {
    sorted[i] = {uint64_t{rank_[log[i].term]} << 32 | log[i].doc, log[i].tf};
  }
  for (int shift = 32; shift < 64 && rank_.size() > (size_t{1} << (shift - 32)); shift += 16) {
    std::vector<size_t> count(1 << 16, 0);
    for (const auto& e : sorted) ++count[(e.first >> shift) & 0xffff];
    size_t sum = 0;
    for (auto& c : count) {
      const size_t n = c;
      c = sum;
      sum += n;
    }
    for (const auto& e : sorted) tmp[count[(e.first >> shift) & 0xffff]++] = e;
    sorted.swap(tmp);
  }
  std::vector<DocId> docs;
  std::vector<uint32_t> weights;
  for (size_t i = 0; i < sorted.size();) {
    const uint32_t rank = static_cast<uint32_t>(sorted[i].first >> 32);
    docs.clear();
    weights.clear();
    size_t j = i;
    for (; j < sorted.size() && (sorted[j].first >> 32) == rank; ++j) {
      docs.push_back(static_cast<DocId>(sorted[j].first));
      weights.push_back(sorted[j].second);
    }
    if (!emit(terms_[by_rank_[rank]], docs, weights)) return false;
    i = j;
  }
  return true;
}

void IngestBuffer::Clear() {
  for (auto& log : logs_) std::vector<Entry>().swap(log);
  arena_.clear();
  arena_used_ = arena_bytes_ = 0;
  std::vector<Slot>(1 << 16).swap(slots_);
  terms_.clear();
  rank_.clear();
  by_rank_.clear();
  postings_ = 0;
}

}  // namespace dps
