#include "shards/bin_executor.h"

#include <algorithm>
#include <thread>

#include "shards/bin_search.h"
#include "shards/pruned_terms.h"
#include "shards/ranking.h"
#include "shards/snippet.h"
#include "shards/term_round.h"

namespace dps {

namespace {
using Clock = std::chrono::steady_clock;
double Micros(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}
}  // namespace

uint64_t LimitBudget::Take(uint64_t n) {
  uint64_t left = left_.load(std::memory_order_relaxed);
  uint64_t take = std::min(n, left);
  while (!left_.compare_exchange_weak(left, left - take)) take = std::min(n, left);
  return take;
}

void ClearBinResult(BinResult* r) {
  // Field by field: moving the vectors out and back around `*r =
  // BinResult()` cost 120 instructions a call, a bin's. The size check
  // catches a field added to BinResult and not here.
  static_assert(sizeof(BinResult) == 4 + 4 + 8 + 3 * sizeof(std::vector<int>) + 8 + 2 * sizeof(double),
                "ClearBinResult resets every field of BinResult: add the new one");
  r->bin = BinId();
  r->tablet = 0;
  r->count = 0;
  r->docs.clear();
  r->scores.clear();
  r->stored.clear();
  r->fast_path = r->cancelled = r->deadline_passed = r->truncated = false;
  r->queue_wait_us = r->service_us = 0;
}

Status BinExecutor::Execute(const QueryPlan& plan, const BinTask& task, BinResult* r) const {
  ClearBinResult(r);
  r->bin = task.bin;
  r->tablet = static_cast<uint32_t>(index_->manifest().TabletOf(task.bin.value));
  if (task.delay_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(task.delay_us));
  const auto start = task.timed ? Clock::now() : Clock::time_point();
  r->queue_wait_us = Micros(task.queued, start);
  if (task.cancel != nullptr && task.cancel->load(std::memory_order_relaxed)) {
    r->cancelled = true;
  } else if (task.budget != nullptr && task.budget->exhausted()) {
    r->truncated = true;  // the limit is reached: nothing more is wanted
  } else if (task.timed && start > task.deadline) {
    r->cancelled = r->deadline_passed = true;
  } else {
    // Ranked: every match is scored, so no limit; the bin's K best come out.
    const bool ranked = task.top_k > 0 && task.rank != nullptr && !task.count_only;
    const Tablet& tablet = index_->tablet(r->tablet);
    BinMatches m;
    bool pruned = false;
    // This thread's, bin after bin: the rankings keep a bin's K best in
    // its room (shards/pruned_terms.h PrunedTopK), so no bin allocates.
    thread_local std::vector<ScoredDoc> best;
    best.clear();
    if (ranked && !task.exhaustive && task.round != nullptr) {
      DPS_RETURN_IF_ERROR(
          task.round->Take(*index_, plan, *task.rank, task.top_k, task.threshold, task.bin, &best, &pruned, task.cancel));
    }
    if (ranked && !task.exhaustive && !pruned) {
      DPS_RETURN_IF_ERROR(RankBinBlockMax(tablet, plan, task.bin, *task.rank, task.top_k, task.threshold, &best,
                                          &pruned, nullptr, task.cancel));
      if (!pruned) {
        DPS_RETURN_IF_ERROR(RankBinMaxScore(tablet, plan, task.bin, *task.rank, task.top_k, task.threshold, &best,
                                            &pruned, nullptr, task.cancel));
      }
    }
    if (!pruned) {
      DPS_RETURN_IF_ERROR(SearchBin(
          tablet, BinQuery{task.bin, &plan, task.count_only, ranked ? 0 : task.limit, task.cancel, ranked}, &m));
    }
    r->fast_path = pruned || m.fast_path;
    r->cancelled = m.cancelled;
    if (ranked) {
      // A ranking the cancel stopped is partial: no answer (the client
      // drops a cancelled bin's results), and one it cut short is not
      // scored at all.
      if (pruned::Cancelled(task.cancel)) r->cancelled = true;
      if (r->cancelled) best.clear();
      if (!pruned && !r->cancelled) {
        DPS_RETURN_IF_ERROR(
            RankBin(tablet, plan, task.bin, *task.rank, m.docs, task.top_k, &best, &m.phrase_occurrences));
      }
      r->docs.reserve(best.size());
      r->scores.reserve(best.size());
      for (const ScoredDoc& d : best) {
        r->docs.push_back(d.docid);
        r->scores.push_back(d.score);
      }
      r->count = r->docs.size();
    } else {
      r->count = task.budget != nullptr ? task.budget->Take(m.count) : m.count;
      m.docs.resize(std::min<size_t>(m.docs.size(), r->count));
      r->docs = std::move(m.docs);
    }
    r->truncated = r->count < m.count || m.limited;
    if (!task.count_only && task.fetch != Fetch::kNone) {
      DocBlockCache cache;
      DPS_RETURN_IF_ERROR(FetchStored(task.bin, r->docs, task.fetch, plan.snippet_words(), plan.snippet_prefixes(),
                                      &r->stored, &cache));
    }
  }
  if (task.timed) r->service_us = Micros(start, Clock::now());
  return Status::OK();
}

Status BinExecutor::FetchStored(BinId bin, std::span<const DocId> docs, Fetch fetch,
                                const std::vector<std::string>& words, const std::vector<std::string>& prefixes,
                                std::vector<StoredDoc>* out, DocBlockCache* cache) const {
  const Tablet& tablet = index_->TabletOf(bin);
  out->resize(docs.size());
  for (size_t i = 0; i < docs.size(); ++i) {
    StoredDoc& d = (*out)[i];
    DPS_RETURN_IF_ERROR(tablet.GetDocument(bin, docs[i], &d, cache, /*with_text=*/fetch == Fetch::kSnippet,
                                           /*with_titles=*/fetch != Fetch::kIds));
    // Only the snippet leaves here, in-process or over the wire.
    if (fetch == Fetch::kSnippet) d.text = MarkedSnippet(d.text, words, prefixes);
  }
  return Status::OK();
}

}  // namespace dps
