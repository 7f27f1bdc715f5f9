#include "ingest/term_counter.h"

#include <xxhash.h>

#include <algorithm>

namespace dps {
namespace {

constexpr uint64_t kEmpty = UINT64_MAX;
constexpr uint64_t kTagMask = ~uint64_t{UINT32_MAX};
// Scratch above this many entries is released after a document: one huge
// document must not keep its tables for the rest of the ingest.
constexpr size_t kKeptEntries = 1 << 20;

uint64_t HashOf(const std::string& term) { return XXH3_64bits(term.data(), term.size()); }

template <typename T>
void ClearAndTrim(std::vector<T>* v) {
  if (v->capacity() > kKeptEntries) {
    std::vector<T>().swap(*v);
  } else {
    v->clear();
  }
}

}  // namespace

void TermCounter::Reset(bool positions, size_t expected_terms) {
  positions_ = positions;
  tokens_ = 0;
  ClearAndTrim(&terms_);
  ClearAndTrim(&term_of_);
  ClearAndTrim(&position_of_);
  size_t capacity = 16;
  while (capacity < 2 * std::min(expected_terms, kKeptEntries)) capacity *= 2;
  if (slots_.capacity() > kKeptEntries) std::vector<uint64_t>().swap(slots_);
  slots_.assign(capacity, kEmpty);
}

void TermCounter::Grow() {
  slots_.assign(slots_.size() * 2, kEmpty);
  const size_t mask = slots_.size() - 1;
  for (size_t t = 0; t < terms_.size(); ++t) {
    const uint64_t hash = HashOf(terms_[t].first);
    size_t i = hash & mask;
    while (slots_[i] != kEmpty) i = (i + 1) & mask;
    slots_[i] = (hash & kTagMask) | t;
  }
}

void TermCounter::Add(std::vector<std::string>* tokens, const std::vector<uint32_t>* token_positions) {
  if (positions_ && token_positions != nullptr) {
    position_of_.insert(position_of_.end(), token_positions->begin(), token_positions->end());
  }
  for (std::string& token : *tokens) {
    // At most half full: probes stay short.
    if (2 * (terms_.size() + 1) > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    const uint64_t hash = HashOf(token);
    const uint64_t tag = hash & kTagMask;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      uint64_t& slot = slots_[i];
      if (slot == kEmpty) {
        slot = tag | terms_.size();
        if (positions_) term_of_.push_back(static_cast<uint32_t>(terms_.size()));
        terms_.emplace_back(std::move(token), 1);
        break;
      }
      auto& entry = terms_[static_cast<uint32_t>(slot)];
      if ((slot & kTagMask) == tag && entry.first == token) {
        if (positions_) term_of_.push_back(static_cast<uint32_t>(slot));
        ++entry.second;
        break;
      }
    }
  }
  tokens_ += tokens->size();
}

void TermCounter::Finish(std::vector<std::pair<std::string, uint32_t>>* out, std::vector<uint32_t>* positions) {
  if (positions_ && positions != nullptr) {
    // A counting sort of the tokens by term: in order of addition within each.
    std::vector<uint64_t>& at = slots_;  // reused: the table is done
    at.assign(terms_.size(), 0);
    for (size_t t = 0, sum = 0; t < terms_.size(); ++t) {
      at[t] = sum;
      sum += terms_[t].second;
    }
    positions->resize(term_of_.size());
    const bool explicit_positions = !position_of_.empty();
    for (size_t i = 0; i < term_of_.size(); ++i) {
      (*positions)[at[term_of_[i]]++] = explicit_positions ? position_of_[i] : static_cast<uint32_t>(i);
    }
    slots_.clear();  // Reset makes a table again
  }
  out->swap(terms_);
  terms_.clear();
}

}  // namespace dps
