#include "query/coordinator.h"

#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <optional>
#include <thread>

#include "query/bin_order.h"
#include "query/ranked_runs.h"
#include "shards/ranking.h"
#include "shards/top_k.h"
#include "query/result_stream.h"
#include "shards/bin_executor.h"
#include "shards/term_round.h"

namespace dps {

namespace {
struct Completed {
  BinResult result;
  Status status;
};
}  // namespace

struct Coordinator::Impl {
  const IndexReader* index;
  CoordinatorOptions options;
  BinExecutor executor;
  // `threads` workers plus a slot for the calling thread, which only waits
  // for results (so it never takes a bin and delays the stream). TBB's
  // default limit counts the caller as a worker; raise it by one.
  std::unique_ptr<tbb::global_control> limit;
  tbb::task_arena arena;
  // Kept from query to query (one query at a time), each with its room:
  // the plan, and a ranked query's context, shared threshold, bins'
  // results and runs, were 20 of a median ranked query's 35 allocations.
  QueryPlan plan;
  std::optional<RankContext> rank;
  SharedThreshold threshold;
  std::vector<BinResult> ranked_bins;  // the first ranked_count of them are this query's
  BinResult run;
};

const AnalyzerSpec& Coordinator::analyzer_spec() const { return impl_->index->manifest().analyzer; }
const FieldSet& Coordinator::fields() const { return impl_->index->manifest().fields; }

Coordinator::Coordinator(const IndexReader* index, CoordinatorOptions options)
    : impl_(new Impl{index, options, BinExecutor(index), {}, {}, {}, {}, {}, {}, {}}) {
  unsigned& threads = impl_->options.threads;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  if (threads > 1) {
    impl_->limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                         threads + 1);
    impl_->arena.initialize(static_cast<int>(threads) + 1, 1);
  }
}

Coordinator::~Coordinator() = default;

Status Coordinator::Run(QueryNode query, const SearchOptions& options, const ResultSink& sink,
                        SearchStats* stats) {
  const IndexReader& index = *impl_->index;
  QueryPlan& plan = impl_->plan;  // the last query's, replaced
  DPS_RETURN_IF_ERROR(PlanQueryInto(std::move(query), index.global(), index.bins(), options.max_expansions, &plan));
  return RunPlan(plan, options, sink, stats);
}

// Fetches the stored records of a finished bin on the caller's thread and
// delivers them a chunk at a time: the first lines show while the rest is
// read, and a big bin's texts never sit in memory whole (as when the caller
// fetched each docid itself). A bin of one chunk is fetched into and
// delivered as itself (most bins of a page, every run of a top 10).
bool Coordinator::DeliverStored(BinResult* bin, Fetch fetch, const QueryPlan& plan,
                                ResultStream* stream, Status* status) {
  constexpr size_t kChunk = 256;
  if (bin->docs.empty()) return true;
  DocBlockCache cache;
  if (bin->docs.size() <= kChunk) {
    bin->count = bin->docs.size();
    *status = impl_->executor.FetchStored(bin->bin, bin->docs, fetch, plan.snippet_words(), plan.snippet_prefixes(),
                                          &bin->stored, &cache);
    return status->ok() && stream->Deliver(bin);
  }
  for (size_t at = 0; at < bin->docs.size(); at += kChunk) {
    BinResult chunk;
    chunk.bin = bin->bin;
    chunk.tablet = bin->tablet;
    chunk.fast_path = bin->fast_path;
    const size_t end = std::min(bin->docs.size(), at + kChunk);
    chunk.docs.assign(bin->docs.begin() + at, bin->docs.begin() + end);
    if (!bin->scores.empty()) chunk.scores.assign(bin->scores.begin() + at, bin->scores.begin() + end);
    chunk.count = chunk.docs.size();
    *status = impl_->executor.FetchStored(bin->bin, chunk.docs, fetch, plan.snippet_words(), plan.snippet_prefixes(),
                                          &chunk.stored, &cache);
    if (!status->ok()) return false;
    if (!stream->Deliver(&chunk)) return false;
  }
  return true;
}

// The K best of every bin's K best (after the offset), delivered best
// first: consecutive results of one bin go out as one chunk, so the sink
// sees bins in rank order, not in bin order.
uint64_t Coordinator::DeliverRanked(std::span<BinResult> bins, const SearchOptions& options,
                                    const QueryPlan& plan, ResultStream* stream, Status* status) {
  RankedRuns runs(bins, options.top_k, options.offset);
  BinResult& run = impl_->run;
  while (runs.Next(&run)) {
    const bool more = options.fetch == Fetch::kNone ? stream->Deliver(&run)
                                                     : DeliverStored(&run, options.fetch, plan, stream, status);
    if (!more) break;
  }
  return runs.skipped();
}

Status Coordinator::RunPlan(const QueryPlan& plan, const SearchOptions& options,
                            const ResultSink& sink, SearchStats* stats) {
  const bool timed = options.timed && stats != nullptr;
  SearchStats unused;
  if (stats == nullptr) stats = &unused;
  *stats = SearchStats();
  ResultStream stream(options, sink, stats, timed);
  if (plan.empty) {
    stream.Finish(0);
    return Status::OK();
  }
  if (timed) stats->bins.reserve(plan.bins.size());
  std::atomic<bool> cancel{false};
  // Paging needs each bin's first offset + limit matches (a shared budget
  // could hand them to a later bin); unordered queries share one budget.
  const bool ranked = options.top_k > 0 && !options.count_only;
  RankContext* rank = nullptr;
  if (ranked) {
    if (impl_->rank) {
      impl_->rank->Reset(plan, impl_->index->collection_stats(), options.bm25);
    } else {
      impl_->rank.emplace(plan, impl_->index->collection_stats(), options.bm25);
    }
    rank = &*impl_->rank;
  }
  SharedThreshold& threshold = impl_->threshold;
  if (ranked) threshold.Restart();
  // Ranked: every bin's best, merged once all answered; each result is
  // swapped in, so the slot's vectors go back to the executor for a bin.
  std::vector<BinResult>& ranked_bins = impl_->ranked_bins;
  size_t ranked_count = 0;
  std::optional<BinOrder> order;
  if (options.ordered && !options.count_only && !ranked) order.emplace(plan.bins, options.offset);
  std::optional<LimitBudget> budget;
  if (options.limit != 0 && !order && !ranked) budget.emplace(options.limit);
  TabletDelays delays;
  delays.Draw(impl_->options.delays, impl_->index->manifest(), plan.bins);
  // One thread, one bin, or a plan too cheap to be worth the hand-offs:
  // evaluate the bins in turn on the calling thread, delivering each as it
  // finishes. Otherwise one task per bin on the arena's workers.
  const bool inline_run = impl_->options.threads <= 1 || plan.bins.size() <= 1 ||
                          (plan.estimated_postings < impl_->options.parallel_threshold && delays.empty());
  BinTask task;
  task.count_only = options.count_only;
  task.limit = order && options.limit != 0 ? options.limit + options.offset : options.limit;
  task.budget = budget ? &*budget : nullptr;
  task.fetch = Fetch::kNone;  // fetched at delivery (DeliverStored)
  // No bin holds more documents than the index: a page far beyond the
  // answer (--offset 10^12) must not size the bins' collectors by it.
  task.top_k = ranked ? std::min<uint64_t>(options.top_k + options.offset,
                                           std::max<uint64_t>(1, impl_->index->collection_stats().documents))
                      : 0;
  task.rank = rank;
  task.threshold = ranked ? &threshold : nullptr;
  if (ranked) threshold.KeepBest(task.top_k);  // the query's K best over all bins
  if (ranked && inline_run) threshold.OneThread();
  std::optional<TermRound> round;
  if (ranked && !options.exhaustive && TermRound::Applies(plan, *rank, task.top_k, plan.bins)) {
    round.emplace(plan.bins);
    task.round = &*round;
  }
  task.exhaustive = options.exhaustive;
  task.cancel = &cancel;
  task.timed = timed;
  task.queued = stream.start();
  auto evaluate = [&](BinId bin, Completed* c) {
    BinTask t = task;
    t.bin = bin;
    if (!delays.empty()) t.delay_us = delays.of(static_cast<uint32_t>(impl_->index->manifest().TabletOf(bin.value)));
    c->status = impl_->executor.Execute(plan, t, &c->result);
  };
  Status status;
  auto deliver = [&](Completed& c) {
    stream.Record(c.result);
    if (!c.status.ok()) {
      if (status.ok()) status = c.status.WithContext("bin " + std::to_string(c.result.bin.value));
      cancel.store(true);
      return;
    }
    if (!status.ok()) return;
    auto deliver_one = [&](BinResult& r) {
      return options.count_only || options.fetch == Fetch::kNone
                 ? stream.Deliver(&r)
                 : DeliverStored(&r, options.fetch, plan, &stream, &status);
    };
    bool more = true;
    if (ranked) {
      if (ranked_count == ranked_bins.size()) ranked_bins.emplace_back();
      std::swap(ranked_bins[ranked_count++], c.result);
      return;
    }
    if (order) {
      order->Add(std::move(c.result));
      BinResult next;
      while (more && order->Next(&next)) more = deliver_one(next);
    } else {
      more = deliver_one(c.result);
    }
    if (!more) cancel.store(true);
  };
  if (inline_run) {
    Completed c;
    for (BinId bin : plan.bins) {
      // Ranked: evaluated in the room of the slot deliver swaps it into
      // (Execute replaces every field and keeps the vectors' room).
      if (ranked && ranked_count < ranked_bins.size()) std::swap(c.result, ranked_bins[ranked_count]);
      evaluate(bin, &c);
      deliver(c);
    }
  } else {
    tbb::concurrent_bounded_queue<Completed*> done;
    tbb::task_group group;
    impl_->arena.execute([&] {
      for (BinId bin : plan.bins) {
        group.run([&, bin] {
          auto* c = new Completed();
          evaluate(bin, c);
          done.push(c);
        });
      }
    });
    for (size_t received = 0; received < plan.bins.size(); ++received) {
      Completed* raw = nullptr;
      done.pop(raw);
      std::unique_ptr<Completed> c(raw);
      deliver(*c);
    }
    impl_->arena.execute([&] { group.wait(); });
  }
  if (order) stats->skipped = order->skipped();
  if (ranked && status.ok()) stats->skipped = DeliverRanked({ranked_bins.data(), ranked_count}, options, plan, &stream, &status);
  stream.Finish(plan.bins.size());
  return status;
}

}  // namespace dps
