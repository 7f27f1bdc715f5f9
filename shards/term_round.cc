#include "shards/term_round.h"

#include <algorithm>
#include <optional>

#include "shards/pruned_terms.h"

namespace dps {

bool TermRound::Applies(const QueryPlan& plan, const RankContext& rank, size_t k, std::span<const BinId> bins) {
  if (bins.size() < 2 || k == 0 || k > pruned::kMaxFirstRound || !plan.pure_and || plan.and_entries.size() != 1 ||
      plan.and_entries[0] != 0 || plan.terms.entries.empty() || rank.idf.size() != 1 || rank.column < 0 ||
      !rank.bm25.UsesBlockScores()) {
    return false;
  }
  // Lists of several blocks (the global index bounds those alone) in two
  // bins at least: else each bin scores its one block anyway.
  size_t long_lists = 0;
  for (BinId bin : bins) {
    const auto refs = plan.terms.entries[0].second.RefsOf(bin);
    long_lists += !refs.empty() && refs[0].max_score > 0;
  }
  return long_lists >= 2;
}

Status TermRound::Take(const IndexReader& index, const QueryPlan& plan, const RankContext& rank, size_t k,
                       SharedThreshold* shared, BinId bin, std::vector<ScoredDoc>* out, bool* handled,
                       const std::atomic<bool>* cancel) {
  out->clear();
  *handled = false;
  const auto it = std::find(bins_.begin(), bins_.end(), bin);
  if (it == bins_.end()) return Status::OK();
  std::lock_guard<std::mutex> lock(mu_);
  if (!ranked_) {
    ranked_ = true;
    status_ = Rank(index, plan, rank, k, shared, cancel);
  }
  DPS_RETURN_IF_ERROR(status_);
  const size_t i = static_cast<size_t>(it - bins_.begin());
  *handled = handled_[i];
  *out = std::move(best_[i]);
  return Status::OK();
}

Status TermRound::Rank(const IndexReader& index, const QueryPlan& plan, const RankContext& rank, size_t k,
                       SharedThreshold* shared, const std::atomic<bool>* cancel) {
  const size_t n = bins_.size();
  handled_.assign(n, false);
  best_.assign(n, {});
  std::vector<pruned::OneFileBin> ones(n);
  std::vector<pruned::BoundedTerm> terms(n);
  std::vector<std::optional<pruned::PrunedTopK>> tops(n);
  std::vector<pruned::TermInBin> ranked;
  ranked.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const BinId bin = bins_[i];
    if (!pruned::FindOneFileBin(index.TabletOf(bin), bin, rank, &ones[i])) continue;  // ranked alone, exhaustively
    handled_[i] = true;
    if (ones[i].file == nullptr || ones[i].info->num_docs == 0) continue;  // nothing matches
    ranked.push_back({bin, pruned::BinBound(plan, bin, ones[i], rank), i});
  }
  // The bins whose bounds are highest first; among equals, in bin order.
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const pruned::TermInBin& a, const pruned::TermInBin& b) { return a.bound > b.bound; });
  auto open = [&](pruned::TermInBin* b) {
    const size_t i = b->slot;
    bool present;
    // Moved by SeekBlock alone: no block decoded before the ranking picks one.
    DPS_RETURN_IF_ERROR(pruned::OpenBoundedTerm(index.TabletOf(b->bin), plan, b->bin, ones[i], rank, 0,
                                                pruned::Cursor(i), &terms[i], &present, kEndDoc));
    if (!present) return Status::OK();
    tops[i].emplace(k, shared);
    b->term = &terms[i];
    b->one = &ones[i];
    b->top = &*tops[i];
    return Status::OK();
  };
  DPS_RETURN_IF_ERROR(pruned::RankTermBestFirst(ranked, k, rank.bm25, shared, open, cancel));
  for (size_t i = 0; i < n; ++i) {
    if (tops[i]) tops[i]->Finish(&best_[i], nullptr);
  }
  return Status::OK();
}

}  // namespace dps
