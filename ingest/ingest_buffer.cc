#include "ingest/ingest_buffer.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace dps {

namespace {
constexpr size_t kArenaBlock = 1 << 20;
// Rough cost of one unordered_map node plus bucket, for the memory budget.
constexpr size_t kMapEntryBytes = 64;
}  // namespace

IngestBuffer::IngestBuffer(uint32_t bins) : logs_(bins) {}

uint32_t IngestBuffer::Intern(std::string_view term) {
  auto it = ids_.find(term);
  if (it != ids_.end()) return it->second;
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
  ids_.emplace(stored, id);
  return id;
}

void IngestBuffer::Add(uint32_t bin, DocId docid,
                       std::span<const std::pair<std::string, uint32_t>> terms) {
  auto& log = logs_[bin];
  for (const auto& [term, tf] : terms) log.push_back(Entry{Intern(term), docid, tf});
  postings_ += terms.size();
}

size_t IngestBuffer::memory_bytes() const {
  size_t bytes = arena_bytes_ + ids_.size() * kMapEntryBytes + terms_.capacity() * 16 +
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
  // Key = rank << 32 | docid; the stable order within a term is docid order.
  std::vector<std::pair<uint64_t, uint32_t>> sorted;
  sorted.reserve(log.size());
  for (const Entry& e : log) sorted.emplace_back(uint64_t{rank_[e.term]} << 32 | e.doc, e.tf);
  std::sort(sorted.begin(), sorted.end());
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
  ids_.clear();
  terms_.clear();
  rank_.clear();
  by_rank_.clear();
  postings_ = 0;
}

}  // namespace dps
