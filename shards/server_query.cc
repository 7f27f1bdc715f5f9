#include "shards/server_query.h"

#include <boost/asio/post.hpp>

#include <algorithm>

namespace dps {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

// Documents per Results frame: keeps frames far below the size limit and
// lets the client start printing before a big bin is complete on the wire.
constexpr size_t kDocsPerFrame = 2048;

uint32_t ClampMicros(double us) { return static_cast<uint32_t>(std::clamp<double>(us, 0, UINT32_MAX)); }

void SendDone(FrameSink* sink, uint64_t id, DoneCode code, const std::string& message, uint64_t generation) {
  std::string frame;
  EncodeDone({id, code, message, generation}, &frame);
  sink->Send(std::move(frame));
}

}  // namespace

Welcome WelcomeOf(const QueryHost& host) {
  const Manifest& m = host.index->Current()->index->manifest();
  return Welcome{kWireVersion, m.index_id, m.generation, m.bins, static_cast<uint32_t>(m.tablets.size()),
                 host.first_tablet, host.last_tablet, m.analyzer, m.fields};
}

namespace {

// Planning looks every term up in the global index and expands prefixes: a
// query with many terms or any prefix is planned on a worker, so that one
// client's heavy queries cannot hold the network thread (and with it every
// other client); a small one is planned here, where two hand-offs would
// cost more than the plan.
constexpr size_t kInlinePlanTerms = 32;

bool PlanIsCheap(const QueryNode& n, size_t* terms) {
  if (n.kind == QueryNode::Kind::kPrefix) return false;
  if (n.kind == QueryNode::Kind::kTerm) return ++*terms <= kInlinePlanTerms;
  for (const QueryNode& c : n.children) {
    if (!PlanIsCheap(c, terms)) return false;
  }
  return true;
}

}  // namespace

std::shared_ptr<ServerQuery> ServerQuery::Start(const QueryHost* host, QueryRequest q,
                                                std::shared_ptr<FrameSink> sink) {
  // Taken once: the whole request runs on this generation.
  std::shared_ptr<const ServedGeneration> gen = q.generation ? host->index->At(*q.generation) : host->index->Current();
  if (!gen) {
    const uint64_t newest = host->index->newest();
    SendDone(sink.get(), q.request_id, DoneCode::kNotAtGeneration,
             "not at generation " + std::to_string(*q.generation) + " (serving " + std::to_string(newest) + ")",
             newest);
    return nullptr;
  }
  if (q.first_tablet < host->first_tablet || q.last_tablet > host->last_tablet) {
    SendDone(sink.get(), q.request_id, DoneCode::kInvalidQuery,
             "tablets " + std::to_string(q.first_tablet) + "-" + std::to_string(q.last_tablet) +
                 " not hosted here (" + std::to_string(host->first_tablet) + "-" +
                 std::to_string(host->last_tablet) + ")",
             gen->generation());
    return nullptr;
  }
  if (Status v = ValidateQuery(q.root); !v.ok()) {
    SendDone(sink.get(), q.request_id, DoneCode::kInvalidQuery, v.message(), gen->generation());
    return nullptr;
  }
  auto query = std::make_shared<ServerQuery>(host, std::move(gen), sink);
  ServerQuery& r = *query;
  r.id_ = q.request_id;
  r.count_only_ = q.count_only;
  r.limit_ = q.limit;
  r.snippets_ = q.snippets;
  r.received_ = Clock::now();
  if (q.deadline_ms > 0) r.deadline_ = r.received_ + std::chrono::milliseconds(q.deadline_ms);
  if (q.limit > 0 && !q.limit_per_bin) r.budget_.emplace(q.limit);
  auto tree = std::make_shared<QueryNode>(std::move(q.root));
  r.request_ = std::move(q);
  // Planned once admitted (a request queued behind its client's unread
  // answers holds its tree, not its plan). A small query is planned here,
  // a big one (or any prefix) as a pooled task: a client's plans queue
  // behind its own work.
  size_t terms = 0;
  if (PlanIsCheap(*tree, &terms)) {
    r.sink_->Admit(
        [query, tree] {
          const IndexReader& index = *query->gen_->index;
          auto plan = PlanQuery(std::move(*tree), index.global(), index.bins(), query->request_.max_expansions);
          if (!query->Planned(std::move(plan))) query->sink_->QueryDone(query->id_);
        },
        /*pooled=*/false);
    // Answered already (refused, no bin, or every bin inline): nothing to track.
    return r.answered_ ? nullptr : query;
  }
  r.sink_->Admit(
      [query, tree] {
        asio::post(*query->host_->workers, [query, tree] {
          const IndexReader& index = *query->gen_->index;
          auto plan = PlanQuery(std::move(*tree), index.global(), index.bins(), query->request_.max_expansions);
          asio::post(*query->host_->io, [query, plan = std::move(plan)]() mutable {
            if (!query->Planned(std::move(plan))) query->sink_->QueryDone(query->id_);
            query->sink_->PooledBinEnded();
          });
        });
      },
      /*pooled=*/true);
  return query;  // tracked (and cancellable) while it is planned
}

bool ServerQuery::Planned(Result<QueryPlan> plan) {
  if (cancel_.load()) {
    Answer( DoneCode::kCancelled, "");
    return false;
  }
  if (!plan.ok()) {
    // A query over the expansion cap is the query's fault, the same on
    // every replica (one index generation); anything else is the index's.
    const DoneCode code = plan.status().IsInvalidArgument() ? DoneCode::kInvalidQuery : DoneCode::kIndexError;
    Answer( code, plan.status().message());
    return false;
  }
  plan_ = std::move(plan).value();
  const QueryRequest& q = request_;
  if (q.top_k > 0) {
    const CollectionStats& stats = gen_->index->collection_stats();
    rank_.emplace(plan_, stats, q.bm25);
    // No bin holds more documents than the index: a larger K (a hostile
    // or huge one) would only size the bins' collectors.
    top_k_ = static_cast<size_t>(std::min<uint64_t>(q.top_k, std::max<uint64_t>(1, stats.documents)));
    threshold_.KeepBest(top_k_);  // the request's K best over its bins
  }
  const Manifest& manifest = gen_->index->manifest();
  std::vector<BinId> bins;
  if (!plan_.empty) {
    for (BinId bin : plan_.bins) {
      const size_t t = manifest.TabletOf(bin.value);
      if (t >= q.first_tablet && t <= q.last_tablet) bins.push_back(bin);
    }
  }
  if (bins.empty()) {
    Answer( DoneCode::kOk, "");
    return false;
  }
  if (rank_ && TermRound::Applies(plan_, *rank_, top_k_, bins)) round_.emplace(bins);
  pending_bins_ = bins.size();
  for (BinId bin : bins) ++pending_of_tablet_[static_cast<uint32_t>(manifest.TabletOf(bin.value))];
  TabletDelays delays;
  delays.Draw(host_->delays, manifest, bins);
  tied_ = q.tied;
  if (tied_) {  // counted before any bin runs: an inline bin must not report Started too soon
    for (BinId bin : bins) held_ += delays.of(static_cast<uint32_t>(manifest.TabletOf(bin.value))) > 0 ? 1 : 0;
  }
  for (BinId bin : bins) {
    const uint32_t tablet = static_cast<uint32_t>(manifest.TabletOf(bin.value));
    Schedule(bin, tablet, delays.of(tablet));
  }
  return pending_bins_ > 0;
}

void ServerQuery::Answer(DoneCode code, const std::string& message) {
  answered_ = true;
  SendDone(sink_.get(), id_, code, message, gen_->generation());
}

void ServerQuery::Cancel() {
  cancel_.store(true);
  for (auto& t : timers_) t->cancel();
}

void ServerQuery::Schedule(BinId bin, uint32_t tablet, int64_t delay_us) {
  auto self = shared_from_this();
  // Cheap plans run right here: two thread hand-offs would cost more than
  // the bin (kInlinePlanPostings).
  if (delay_us <= 0 && plan_.estimated_postings < kInlinePlanPostings) {
    return sink_->Admit(
        [self, bin, tablet] {
          self->BinBegins(/*on_network_thread=*/true);
          self->BinFinished(self->Evaluate(bin, tablet));
        },
        /*pooled=*/false);
  }
  auto run = [self, bin, tablet] {
    self->sink_->Admit(
        [self, bin, tablet] {
          asio::post(*self->host_->workers, [self, bin, tablet] {
            self->BinBegins(/*on_network_thread=*/false);
            BinOutcome out = self->Evaluate(bin, tablet);
            out.pooled = true;
            asio::post(*self->host_->io,
                       [self, out = std::move(out)]() mutable { self->BinFinished(std::move(out)); });
          });
        },
        /*pooled=*/true);
  };
  if (delay_us <= 0) return run();
  auto timer = std::make_shared<asio::steady_timer>(*host_->io, std::chrono::microseconds(delay_us));
  timers_.push_back(timer);
  timer->async_wait([self, timer, run](const boost::system::error_code&) {
    self->DelayEnded();
    run();
  });
}

// A tied request is under way once a bin has begun and no bin waits on an
// injected delay any more: the delay stands for a tablet stuck before it
// can run (a queue), so the request has not truly started while one is
// held. A request cancelled first never reports Started.
void ServerQuery::BinBegins(bool on_network_thread) {
  if (!tied_) return;
  began_.store(true);
  if (held_.load() == 0) SendStarted(on_network_thread);
}

void ServerQuery::DelayEnded() {
  if (!tied_) return;
  if (held_.fetch_sub(1) == 1 && began_.load()) SendStarted(/*on_network_thread=*/true);
}

void ServerQuery::SendStarted(bool on_network_thread) {
  if (cancel_.load() || started_sent_.exchange(true)) return;
  std::string frame;
  EncodeStarted({id_}, &frame);
  if (on_network_thread) return sink_->Send(std::move(frame));
  // Posted before this bin's outcome: the client sees Started first.
  asio::post(*host_->io, [self = shared_from_this(), frame = std::move(frame)]() mutable {
    self->sink_->Send(std::move(frame));
  });
}

ServerQuery::BinOutcome ServerQuery::Evaluate(BinId bin, uint32_t tablet) {
  BinOutcome out;
  BinTask task;
  task.bin = bin;
  task.count_only = count_only_;
  task.top_k = top_k_;
  task.rank = rank_ ? &*rank_ : nullptr;
  task.threshold = rank_ ? &threshold_ : nullptr;
  task.round = round_ ? &*round_ : nullptr;
  task.limit = limit_;
  task.budget = budget_ ? &*budget_ : nullptr;
  const Fetch fetch = snippets_ ? Fetch::kSnippet : Fetch::kIdsAndTitles;
  task.fetch = top_k_ > 0 ? Fetch::kNone : fetch;  // ranked: fetched below, for fewer docs
  task.cancel = &cancel_;
  task.deadline = deadline_;
  task.queued = received_;
  BinResult r;
  Status s = gen_->executor.Execute(plan_, task, &r);
  BinStats& stats = out.stats;
  stats.request_id = id_;
  stats.bin = bin.value;
  stats.tablet = tablet;
  if (!s.ok()) {
    out.error = s.message();
    return out;
  }
  if (r.deadline_passed) deadline_hit_.store(true);
  if (top_k_ > 0 && !r.cancelled) {
    if (Status f = FetchRanked(bin, fetch, &r); !f.ok()) {
      out.error = f.message();
      return out;
    }
  }
  stats.queue_wait_us = ClampMicros(r.queue_wait_us);
  stats.service_us = ClampMicros(r.service_us);
  stats.cancelled = r.cancelled;
  stats.truncated = r.truncated;
  stats.fast_path = r.fast_path;
  stats.results = r.count;
  // Ranked: the bin's best, best first, each with its score.
  ResultBatch batch{id_, bin.value, tablet, snippets_, {}, top_k_ > 0};
  for (size_t i = 0; i < r.stored.size(); ++i) {
    StoredDoc& d = r.stored[i];
    batch.docs.push_back({r.docs[i], std::move(d.id), std::move(d.title), snippets_ ? std::move(d.text) : "",
                          batch.scored ? r.scores[i] : 0.0});
    if (batch.docs.size() == kDocsPerFrame || i + 1 == r.stored.size()) {
      EncodeResults(batch, &out.frames);
      batch.docs.clear();
    }
  }
  stats.bytes = out.frames.size();
  return out;
}

// A ranked bin's best that can still be in the answer, with their stored
// records. A full bin's K-th best score is a floor for the request's K-th
// best, and so is the highest such floor of the request's bins so far
// (threshold_): a document scoring below it is beaten by K others of this
// request's bins, hence of the whole index, and is neither fetched nor
// sent (ties are kept: (bin, docid) may still let them in). Fetching each
// bin's K best whole read 160 stored records for gcide's top 10 over 16
// bins; dropping them took a third off a ranked request's p50.
Status ServerQuery::FetchRanked(BinId bin, Fetch fetch, BinResult* r) {
  const auto start = Clock::now();
  if (!r->scores.empty() && r->scores.size() == top_k_) threshold_.Raise(r->scores.back());
  const double floor = threshold_.get();
  size_t keep = 0;
  while (keep < r->scores.size() && r->scores[keep] >= floor) ++keep;
  r->docs.resize(keep);
  r->scores.resize(keep);
  r->count = keep;
  DocBlockCache cache;
  DPS_RETURN_IF_ERROR(gen_->executor.FetchStored(bin, r->docs, fetch, plan_.snippet_words(),
                                                   plan_.snippet_prefixes(), &r->stored, &cache));
  r->service_us += std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  return Status::OK();
}

void ServerQuery::BinFinished(BinOutcome out) {
  // Last: a bin it lets into the pool may finish inline and come back here.
  struct Ended {
    FrameSink* sink;
    bool pooled;
    ~Ended() {
      if (pooled) sink->PooledBinEnded();
    }
  } ended{sink_.get(), out.pooled};
  if (!out.error.empty() && error_.empty()) error_ = out.error;
  BinStats& stats = out.stats;
  if (stats.cancelled || !out.error.empty()) tablets_not_whole_.insert(stats.tablet);
  stats.tablet_complete = --pending_of_tablet_[stats.tablet] == 0 && !tablets_not_whole_.count(stats.tablet);
  if (out.error.empty()) EncodeBinStats(stats, &out.frames);  // a failed bin has no stats: Done reports it
  if (!out.frames.empty()) sink_->Send(std::move(out.frames));
  if (--pending_bins_ > 0) return;
  if (!error_.empty()) {
    Answer( DoneCode::kIndexError, error_);
  } else if (deadline_hit_.load()) {
    Answer( DoneCode::kDeadline, "deadline passed");
  } else if (cancel_.load() && !(budget_ && budget_->exhausted())) {
    Answer( DoneCode::kCancelled, "");
  } else {
    Answer( DoneCode::kOk, "");
  }
  sink_->QueryDone(id_);
}

}  // namespace dps
