#include "shards/term_round.h"

#include <algorithm>
#include <optional>

#include "shards/pruned_terms.h"

namespace dps {

bool TermRound::Applies(const QueryPlan& plan, const RankContext& rank, size_t k, size_t bins) {
  return bins > 1 && k > 0 && k <= pruned::kMaxFirstRound && plan.pure_and && plan.and_entries.size() == 1 &&
         plan.and_entries[0] == 0 && rank.idf.size() == 1 && rank.column >= 0 && rank.bm25.UsesBlockScores();
}

Status TermRound::Take(const IndexReader& index, const QueryPlan& plan, const RankContext& rank, size_t k,
                       SharedThreshold* shared, BinId bin, std::vector<ScoredDoc>* out, bool* handled) {
  out->clear();
  *handled = false;
  const auto it = std::find(bins_.begin(), bins_.end(), bin);
  if (it == bins_.end()) return Status::OK();
  std::lock_guard<std::mutex> lock(mu_);
  if (!ranked_) {
    ranked_ = true;
    status_ = Rank(index, plan, rank, k, shared);
  }
  DPS_RETURN_IF_ERROR(status_);
  const size_t i = static_cast<size_t>(it - bins_.begin());
  *handled = handled_[i];
  *out = std::move(best_[i]);
  return Status::OK();
}

Status TermRound::Rank(const IndexReader& index, const QueryPlan& plan, const RankContext& rank, size_t k,
                       SharedThreshold* shared) {
  const size_t n = bins_.size();
  handled_.assign(n, false);
  best_.assign(n, {});
  std::vector<pruned::OneFileBin> ones(n);
  std::vector<pruned::BoundedTerm> terms(n);
  std::vector<std::optional<pruned::PrunedTopK>> tops(n);
  std::vector<pruned::TermInBin> ranked;
  ranked.reserve(n);
  std::vector<size_t> of_ranked;  // bins_ index of ranked[j]
  of_ranked.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const BinId bin = bins_[i];
    const Tablet& tablet = index.TabletOf(bin);
    if (!pruned::FindOneFileBin(tablet, bin, rank, &ones[i])) continue;  // ranked alone, exhaustively
    handled_[i] = true;
    if (ones[i].file == nullptr || ones[i].info->num_docs == 0) continue;  // nothing matches
    bool present;
    DPS_RETURN_IF_ERROR(
        pruned::OpenBoundedTerm(tablet, plan, bin, ones[i], rank, 0, pruned::Cursor(i), &terms[i], &present));
    if (!present) continue;
    tops[i].emplace(k, shared);
    ranked.push_back({&terms[i], &ones[i], bin, &*tops[i]});
    of_ranked.push_back(i);
  }
  DPS_RETURN_IF_ERROR(pruned::RankTermBestFirst(ranked, k, rank.bm25));
  for (size_t j = 0; j < ranked.size(); ++j) tops[of_ranked[j]]->Finish(&best_[of_ranked[j]], nullptr);
  return Status::OK();
}

}  // namespace dps
