#include "query/cluster_fanout.h"

#include <algorithm>

#include "query/ranked_runs.h"
#include "query/sibling_hedge.h"
#include "shards/top_k.h"

namespace dps {

QueryFanOut::QueryFanOut(const std::vector<ClusterRange>& ranges, FanOutPolicy policy, FanOutHost* host,
                         const QueryNode& root, const SearchOptions& options, ResultStream* stream,
                         SearchStats* stats)
    : ranges_(ranges), policy_(policy), host_(host), root_(root), options_(options), stream_(stream),
      stats_(stats), state_(ranges.size()), ranked_(options.top_k > 0 && !options.count_only) {
  for (size_t r = 0; r < ranges.size(); ++r) state_[r].tried.assign(ranges[r].replicas.size(), false);
  if (options.ordered && !options.count_only && !ranked_) order_.emplace(std::vector<BinId>(), options.offset);
  if (policy_.deadline_ms > 0) deadline_ = stream->start() + std::chrono::milliseconds(policy_.deadline_ms);
}

void QueryFanOut::Start() {
  if (policy_.consistent) generation_ = host_->NewestGeneration();
  for (size_t r = 0; r < ranges_.size() && !stopped_; ++r) {
    const bool tied = policy_.tied && UsableUntried(r) >= 2;
    if (!Send(r, tied)) {
      Exhausted(r, Status::IOError("no replica left"));
      continue;
    }
    if (!tied) continue;
    const size_t first = std::find(state_[r].tried.begin(), state_[r].tried.end(), true) - state_[r].tried.begin();
    const double delay_us = policy_.TiedDelayUs(r, first);
    if (delay_us > 0) {
      state_[r].twin_due = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(delay_us));
    } else if (Send(r, true)) {
      ++stats_->tied;
    }
  }
}

size_t QueryFanOut::UsableUntried(size_t r) const {
  size_t n = 0;
  for (size_t i = 0; i < ranges_[r].replicas.size(); ++i) {
    n += !state_[r].tried[i] && host_->Usable(ranges_[r].replicas[i], ranges_[r]).ok();
  }
  return n;
}

bool QueryFanOut::waiting() const {
  if (stopped_) return false;
  return std::any_of(state_.begin(), state_.end(), [](const RangeState& s) { return s.open(); });
}

// The tablets of a range that no server has reported whole, trimmed from
// its ends: an injected or real delay often holds up one tablet while the
// others have answered. False when nothing is owed.
bool QueryFanOut::Owed(size_t r, uint32_t* first, uint32_t* last) const {
  *first = ranges_[r].first_tablet;
  *last = ranges_[r].last_tablet;
  while (*first <= *last && complete_tablets_.count(*first)) ++*first;
  while (*last > *first && complete_tablets_.count(*last)) --*last;
  return *first <= *last;
}

bool QueryFanOut::Send(size_t r, bool tied) {
  RangeState& st = state_[r];
  const ClusterRange& range = ranges_[r];
  QueryRequest q;
  if (!Owed(r, &q.first_tablet, &q.last_tablet)) return false;
  // Bad replicas (another index, the range not hosted) are never asked.
  std::vector<size_t> candidates;
  for (size_t i = 0; i < range.replicas.size(); ++i) {
    if (!st.tried[i] && host_->Usable(range.replicas[i], range).ok()) candidates.push_back(i);
  }
  if (candidates.empty()) return false;
  const size_t replica = host_->ChooseReplica(range, candidates);
  st.tried[replica] = true;
  q.request_id = host_->NextRequestId();
  q.count_only = options_.count_only;
  // Paging needs each bin's first offset + limit; otherwise a server shares
  // the limit among its bins.
  q.limit_per_bin = order_.has_value();
  q.limit = order_ && options_.limit != 0 ? options_.limit + options_.offset : options_.limit;
  if (ranked_) {  // any bin's top_k + offset best may be in the answer; the limit does not apply
    q.top_k = options_.top_k + options_.offset;
    q.bm25 = options_.bm25;
    q.limit = 0;
  }
  q.snippets = !options_.count_only && options_.fetch == Fetch::kSnippet;
  q.deadline_ms = policy_.deadline_ms;
  q.max_expansions = options_.max_expansions;  // each server expands the prefixes itself
  q.root = root_;
  q.tied = tied;
  q.generation = generation_;
  std::string frame;
  EncodeQuery(q, &frame);
  Attempt& attempt = attempts_[q.request_id] = Attempt{r, replica, Clock::now()};
  attempt.tied = tied;
  attempt.siblings = policy_.hedge_siblings <= 0 || host_->AmongBest(range, range.replicas[replica]);
  ++st.active;
  ++stats_->requests;
  stats_->asked.push_back(range.replicas[replica]);
  host_->Submit(range.replicas[replica], q.request_id, std::move(frame));
  return true;
}

void QueryFanOut::Deactivate(Attempt* a, ReplicaSample::Kind kind) {
  if (!a->active) return;
  a->active = false;
  --state_[a->range].active;
  ReplicaSample sample;
  sample.kind = kind;
  sample.elapsed_us = std::chrono::duration<double, std::micro>(Clock::now() - a->sent).count();
  if (a->first_start_us != UINT32_MAX) {
    sample.queue_us = a->first_start_us;
    sample.service_us = static_cast<uint32_t>(std::min<uint64_t>(UINT32_MAX, a->last_end_us - a->first_start_us));
  }
  host_->Ended(ranges_[a->range].replicas[a->replica], sample);
}

bool QueryFanOut::Untried(size_t r) const {
  const std::vector<bool>& tried = state_[r].tried;
  return std::find(tried.begin(), tried.end(), false) != tried.end();
}

// A request cancelled before it answered took at least its time so far
// (another replica won, or the deadline passed); one cancelled because
// the sink or limit stopped the query tells nothing.
void QueryFanOut::Cancel(uint64_t rid) {
  auto it = attempts_.find(rid);
  if (it == attempts_.end() || !it->second.active) return;
  Deactivate(&it->second, stopped_ ? ReplicaSample::kNone : ReplicaSample::kCensored);
  host_->Cancel(ranges_[it->second.range].replicas[it->second.replica], rid);
}

void QueryFanOut::CancelAll() {
  for (auto& [rid, a] : attempts_) {
    if (a.active) Cancel(rid);
  }
}

void QueryFanOut::Finish() {
  CancelAll();
  if (ranked_ && !stopped_ && query_error_.ok()) {
    RankedRuns runs(ranked_bins_, options_.top_k, options_.offset);
    stats_->skipped = runs.skipped();
    BinResult run;
    while (runs.Next(&run) && stream_->Deliver(&run)) {
    }
  }
  for (BinResult& held : held_) {
    if (stopped_ || !query_error_.ok() || !stream_->Deliver(&held)) stopped_ = true;
  }
  BinResult b;
  while (order_ && !stopped_ && query_error_.ok() && order_->Drain(&b)) {
    if (!stream_->Deliver(&b)) stopped_ = true;
  }
  if (order_) stats_->skipped = order_->skipped();
}

void QueryFanOut::GiveUp(size_t r) {
  state_[r].missing = true;
  stats_->partial = true;
  stats_->missing.push_back(ranges_[r].name());
}

// A range's only request is to be hedged once it has waited the hedge
// delay (and, with hedge_siblings, long enough against the ranges that
// answered: their median time) and a replica is left to ask.
QueryFanOut::Clock::time_point QueryFanOut::HedgeAt(const Attempt& a, size_t open_ranges) const {
  const RangeState& st = state_[a.range];
  const double hedge_us = policy_.HedgeUs(a.range, a.replica);
  if (hedge_us <= 0 || !a.active || !st.open() || st.hedged || st.active != 1 || !Untried(a.range)) {
    return Clock::time_point::max();
  }
  const double ratio = a.siblings ? policy_.hedge_siblings : 0;
  const double wait_us = HedgeWaitUs(hedge_us, ratio, open_ranges > 1, answers_.us());
  return a.sent + std::chrono::microseconds(static_cast<int64_t>(wait_us));
}

size_t QueryFanOut::OpenRanges() const {
  return std::count_if(state_.begin(), state_.end(), [](const RangeState& s) { return s.open(); });
}

QueryFanOut::Clock::time_point QueryFanOut::NextWake() const {
  Clock::time_point wake = deadline_;
  for (const RangeState& st : state_) {
    if (st.open()) wake = std::min({wake, st.twin_due, st.retry_due});
  }
  const size_t open = OpenRanges();
  for (const auto& [rid, a] : attempts_) wake = std::min(wake, HedgeAt(a, open));
  return wake;
}

void QueryFanOut::OnTimeout(Clock::time_point now) {
  if (now >= deadline_) {
    for (size_t r = 0; r < state_.size(); ++r) {
      if (state_[r].open()) GiveUp(r);
    }
    CancelAll();
    return;
  }
  const size_t open = OpenRanges();
  for (size_t r = 0; r < state_.size(); ++r) {
    RangeState& st = state_[r];
    if (now >= st.retry_due) Retry(r);
    if (now >= st.twin_due) {
      st.twin_due = Clock::time_point::max();
      // The first twin has not started (else it would have cleared this):
      // its server is queued or holding it back.
      if (st.open() && Send(r, true)) ++stats_->tied;
    }
    for (const auto& [rid, a] : attempts_) {
      if (a.range != r || now < HedgeAt(a, open)) continue;
      if (Send(r)) ++stats_->hedged;
      state_[r].hedged = true;  // hedged, or nothing left worth hedging
      break;
    }
  }
}

void QueryFanOut::OnEvent(LinkEvent& e) {
  auto it = attempts_.find(e.rid);
  if (it == attempts_.end()) return;  // another query's
  if (e.kind == LinkEvent::kStarted) return OnStarted(e.rid, it->second);
  if (!it->second.active) {  // cancelled or stale: a whole bin it still ran was work for nothing
    if (e.kind == LinkEvent::kStats && !e.stats.cancelled) ++stats_->wasted_bins;
    return;
  }
  switch (e.kind) {
    case LinkEvent::kStarted:
      return;
    case LinkEvent::kResults:
      return OnResults(it->second, e);
    case LinkEvent::kStats:
      return OnBinStats(it->second, e);
    case LinkEvent::kDone:
      return OnDone(it->second, e.done);
    case LinkEvent::kFailed:
      return OnFailure(it->second, e.error);
  }
}

// The first of a tied pair to start wins: its twin is cancelled (usually
// still queued: no work lost). A twin that reports Started after it was
// cancelled had begun before the cancel reached it: duplicated work.
void QueryFanOut::OnStarted(uint64_t rid, Attempt& attempt) {
  if (!attempt.tied || attempt.started) return;
  attempt.started = true;
  host_->RecordStarted(attempt.range, ranges_[attempt.range].replicas[attempt.replica],
                       std::chrono::duration<double, std::micro>(Clock::now() - attempt.sent).count());
  if (!attempt.active) {
    ++stats_->tied_both_started;
    return;
  }
  state_[attempt.range].twin_due = Clock::time_point::max();  // started in time: no twin needed
  for (auto& [twin_rid, twin] : attempts_) {
    if (twin_rid != rid && twin.range == attempt.range && twin.tied && twin.active) {
      Cancel(twin_rid);
      ++stats_->tied_cancelled;
    }
  }
}

void QueryFanOut::OnResults(Attempt& attempt, LinkEvent& e) {
  BinResult& b = buffers_[{e.rid, e.results.bin}];
  // Ranked answers are merged as lists best first (the decoder checks each
  // frame; a bin's frames must continue each other): anything else from a
  // server is its fault, not an answer.
  const bool in_order = !ranked_ || e.results.docs.empty() || b.docs.empty() ||
                        RanksBefore({b.scores.back(), e.results.bin, b.docs.back()},
                                    {e.results.docs.front().score, e.results.bin, e.results.docs.front().docid});
  if (e.results.scored != ranked_ || !in_order) {
    const char* why = e.results.scored == ranked_ ? "results out of rank order"
                      : ranked_                   ? "unscored results for a ranked query"
                                                  : "scored results for an unranked query";
    Cancel(e.rid);
    return OnFailure(attempt, Status::Corruption(ranges_[attempt.range].replicas[attempt.replica] + ": " + why));
  }
  for (auto& d : e.results.docs) {
    if (ranked_) b.scores.push_back(d.score);
    b.docs.push_back(d.docid);
    b.stored.push_back(StoredDoc{d.docid, std::move(d.id), std::move(d.title), std::move(d.snippet)});
  }
}

void QueryFanOut::OnBinStats(Attempt& attempt, LinkEvent& e) {
  const BinStats& s = e.stats;
  // The request's queue: the wait before its first bin started. Its
  // service: from then to its last bin's end (later bins also wait
  // behind their siblings, which is the request's own work, not load).
  attempt.first_start_us = std::min(attempt.first_start_us, s.queue_wait_us);
  attempt.last_end_us = std::max<uint64_t>(attempt.last_end_us, uint64_t{s.queue_wait_us} + s.service_us);
  auto node = buffers_.extract({e.rid, s.bin});
  // A bin cut short by a cancel, deadline or shutdown is no answer: a
  // replica may still give the whole bin.
  if (s.cancelled) return;
  if (s.tablet_complete) complete_tablets_.insert(s.tablet);
  if (!delivered_bins_.insert(s.bin).second) {  // the other replica was faster
    ++stats_->wasted_bins;
    return;
  }
  BinResult b = node.empty() ? BinResult() : std::move(node.mapped());
  b.bin = BinId{s.bin};
  b.tablet = s.tablet;
  b.count = options_.count_only ? s.results : b.docs.size();
  b.queue_wait_us = s.queue_wait_us;
  b.service_us = s.service_us;
  b.fast_path = s.fast_path;
  stream_->Record(b);
  if (ranked_) return ranked_bins_.push_back(std::move(b));
  if (order_) return order_->Add(std::move(b));
  if (generation_) return held_.push_back(std::move(b));
  if (!stream_->Deliver(&b)) stopped_ = true;
}

void QueryFanOut::OnDone(Attempt& attempt, const Done& done) {
  RangeState& st = state_[attempt.range];
  host_->SawGeneration(ranges_[attempt.range].replicas[attempt.replica], done.generation);
  if (done.code == DoneCode::kOk || done.code == DoneCode::kDeadline) {
    auto& g = stats_->generations;
    if (auto at = std::lower_bound(g.begin(), g.end(), done.generation); at == g.end() || *at != done.generation) {
      g.insert(at, done.generation);
    }
  }
  switch (done.code) {
    case DoneCode::kNotAtGeneration:
      return NotAtGeneration(attempt, done);
    case DoneCode::kInvalidQuery:
      // A server reached only now that does not host the range refuses it
      // as invalid: a bad replica, not a bad query.
      if (Status u = host_->Usable(ranges_[attempt.range].replicas[attempt.replica], ranges_[attempt.range]);
          !u.ok()) {
        return OnFailure(attempt, u);
      }
      Deactivate(&attempt, ReplicaSample::kNone);
      query_error_ = Status::InvalidArgument(done.message);
      stopped_ = true;
      return;
    case DoneCode::kOk:
    case DoneCode::kDeadline:
      Deactivate(&attempt, done.code == DoneCode::kOk ? ReplicaSample::kAnswered : ReplicaSample::kCensored);
      if (!st.open()) return;
      st.done = true;
      if (done.code == DoneCode::kDeadline) GiveUp(attempt.range);
      {
        const double us = std::chrono::duration<double, std::micro>(Clock::now() - attempt.sent).count();
        host_->RecordLatency(attempt.range, ranges_[attempt.range].replicas[attempt.replica], us);
        if (done.code == DoneCode::kOk) answers_.Add(us);
      }
      for (auto& [rid, a] : attempts_) {
        if (a.range == attempt.range && a.active) Cancel(rid);
      }
      return;
    case DoneCode::kIndexError:
    case DoneCode::kCancelled:  // not asked for: try another replica
      return OnFailure(attempt, Status::IOError(done.message));
  }
}

void QueryFanOut::OnFailure(Attempt& attempt, const Status& why) {
  Deactivate(&attempt, ReplicaSample::kNone);
  RangeState& st = state_[attempt.range];
  if (!st.open() || st.active > 0) return;
  if (uint32_t f, l; !Owed(attempt.range, &f, &l)) {
    st.done = true;  // every bin arrived before the connection failed
    return;
  }
  if (Send(attempt.range)) {
    ++stats_->failovers;
    return;
  }
  Exhausted(attempt.range, why);
}

// A consistent query's replica does not serve the generation asked for.
// Not yet (behind): the range asks again shortly, this replica included,
// until the deadline. No longer (it has moved two generations on since
// the query began): a failure, another replica may still serve it.
void QueryFanOut::NotAtGeneration(Attempt& attempt, const Done& done) {
  if (!generation_) return OnFailure(attempt, Status::IOError(done.message));
  if (done.generation > *generation_) {
    Deactivate(&attempt, ReplicaSample::kNone);
    return Restart(done.generation);
  }
  Deactivate(&attempt, ReplicaSample::kNone);
  RangeState& st = state_[attempt.range];
  st.tried[attempt.replica] = false;
  if (!st.open() || st.active > 0 || st.retry_due != Clock::time_point::max()) return;
  const Clock::time_point now = Clock::now();
  if (deadline_ == Clock::time_point::max() && now >= stream_->start() + kGenerationWait) {
    host_->Log("tablets " + ranges_[attempt.range].name() + ": " + done.message + " after " +
               std::to_string(kGenerationWait.count()) + " ms");
    return GiveUp(attempt.range);
  }
  st.retry_due = now + kGenerationRetry;
}

void QueryFanOut::Restart(uint64_t generation) {
  generation_ = generation;
  CancelAll();
  for (size_t r = 0; r < ranges_.size(); ++r) {
    const bool missing = state_[r].missing;  // given up (no replica left): stays so
    state_[r] = RangeState();
    state_[r].tried.assign(ranges_[r].replicas.size(), false);
    state_[r].missing = missing;
  }
  buffers_.clear();
  delivered_bins_.clear();
  complete_tablets_.clear();
  answers_.Clear();
  ranked_bins_.clear();
  held_.clear();
  if (order_) order_.emplace(std::vector<BinId>(), options_.offset);
  stats_->bins.clear();
  stats_->generations.clear();
  for (size_t r = 0; r < ranges_.size() && !stopped_; ++r) {
    if (state_[r].open() && !Send(r)) Exhausted(r, Status::IOError("no replica left"));
  }
}

void QueryFanOut::Retry(size_t r) {
  RangeState& st = state_[r];
  st.retry_due = Clock::time_point::max();
  if (!st.open() || st.active > 0) return;
  if (!Send(r)) Exhausted(r, Status::IOError("no replica left"));
}

// No replica of range `r` is left to ask; `why` is the last one's failure.
void QueryFanOut::Exhausted(size_t r, const Status& why) {
  if (Status u = host_->RangeUsable(ranges_[r]); !u.ok()) {
    query_error_ = u;  // a misconfiguration, not a server down: no partial answer
    stopped_ = true;
    return;
  }
  host_->Log("tablets " + ranges_[r].name() + ": " + why.message());
  GiveUp(r);
}

}  // namespace dps
