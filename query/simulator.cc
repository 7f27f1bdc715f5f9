#include "query/simulator.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <memory>
#include <queue>
#include <unordered_map>

#include "query/bench.h"
#include "query/hedge_thresholds.h"
#include "query/sibling_hedge.h"

namespace dps {

namespace {

bool ParseNumber(std::string_view text, double* v) {
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *v);
  return ec == std::errc() && p == text.data() + text.size() && std::isfinite(*v) && *v > 0;
}

}  // namespace

Result<SimPolicy> ParseSimPolicy(const std::string& text) {
  SimPolicy p;
  p.name = text;
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("policy '" + text + "': " + why +
                                   " (expected first|random|adaptive, then +hedge-pNN, +hedge-MSms, +tied, "
                                   "+tied-MSms, +tied-pNN, +deadline-MS, +siblings-X)");
  };
  size_t start = 0;
  for (size_t part = 0;; ++part) {
    const size_t plus = text.find('+', start);
    const std::string token = text.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
    if (part == 0) {
      auto policy = ParseReplicaPolicy(token);
      if (!policy.ok()) return bad("'" + token + "' is not a replica policy");
      p.replicas = *policy;
    } else if (token == "tied") {
      p.tied = true;
    } else if (token.rfind("tied-p", 0) == 0) {
      p.tied = true;
      if (!ParseNumber(std::string_view(token).substr(6), &p.tied_delay_percentile) || p.tied_delay_percentile >= 100) {
        return bad("'" + token + "' is not a percentile below 100");
      }
    } else if (token.rfind("tied-", 0) == 0 && token.size() > 7 && token.ends_with("ms")) {
      p.tied = true;
      if (!ParseNumber(std::string_view(token).substr(5, token.size() - 7), &p.tied_delay_ms)) {
        return bad("'" + token + "' is not a delay in ms");
      }
    } else if (token.rfind("hedge-p", 0) == 0) {
      if (!ParseNumber(std::string_view(token).substr(7), &p.hedge_percentile) || p.hedge_percentile >= 100) {
        return bad("'" + token + "' is not a percentile below 100");
      }
    } else if (token.rfind("hedge-", 0) == 0 && token.size() > 8 && token.ends_with("ms")) {
      if (!ParseNumber(std::string_view(token).substr(6, token.size() - 8), &p.hedge_ms)) {
        return bad("'" + token + "' is not a delay in ms");
      }
    } else if (token.rfind("siblings-", 0) == 0) {
      const std::string_view x = std::string_view(token).substr(9);
      if (x != "0" && !ParseNumber(x, &p.hedge_siblings)) return bad("'" + token + "' is not a ratio");
      if (x == "0") p.hedge_siblings = 0;
    } else if (token.rfind("deadline-", 0) == 0) {
      double ms = 0;
      if (!ParseNumber(std::string_view(token).substr(9), &ms) || ms > 3.6e6 || ms != std::floor(ms)) {
        return bad("'" + token + "' is not a whole number of ms");
      }
      p.deadline_ms = static_cast<uint32_t>(ms);
    } else {
      return bad("unknown part '" + token + "'");
    }
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  if (p.hedge_ms > 0 && p.hedge_percentile > 0) return bad("two hedge rules");
  return p;
}

SimLayout LayoutOf(const std::vector<ClusterRange>& ranges) {
  SimLayout layout;
  std::unordered_map<std::string, size_t> number;
  for (const auto& r : ranges) {
    SimRange range{r.first_tablet, r.last_tablet, {}};
    for (const auto& address : r.replicas) {
      auto [it, added] = number.emplace(address, layout.names.size());
      if (added) layout.names.push_back(address);
      range.replicas.push_back(it->second);
    }
    layout.ranges.push_back(std::move(range));
  }
  layout.servers = layout.names.size();
  return layout;
}

SimLayout RingLayout(size_t servers, size_t tablets_per_range, size_t replicas) {
  SimLayout layout;
  layout.servers = servers;
  for (size_t s = 0; s < servers; ++s) {
    std::string name = std::to_string(s);
    name.insert(name.begin(), 's');  // not "s" + ...: GCC 12's false -Wrestrict (PR 105329)
    layout.names.push_back(std::move(name));
  }
  replicas = std::min(replicas, servers);
  for (size_t r = 0; r < servers; ++r) {
    SimRange range{static_cast<uint32_t>(r * tablets_per_range), static_cast<uint32_t>((r + 1) * tablets_per_range - 1), {}};
    for (size_t k = 0; k < replicas; ++k) range.replicas.push_back((r + k) % servers);
    layout.ranges.push_back(std::move(range));
  }
  return layout;
}

Result<ServerDelay> ParseServerDelay(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("--server-delay '" + text + "': expected SERVER:PROBABILITY:MS");
  }
  ServerDelay d;
  const std::string who = text.substr(0, colon);
  if (who != "*") {
    uint64_t n = 0;
    const auto [p, ec] = std::from_chars(who.data(), who.data() + who.size(), n);
    if (who.empty() || ec != std::errc() || p != who.data() + who.size() || n > 1000000) {
      return Status::InvalidArgument("--server-delay '" + text + "': '" + who + "' is not a server number or *");
    }
    d.server = static_cast<int64_t>(n);
  }
  // The probability and delay as --inject-delay reads them, for every tablet.
  std::string spec = text.substr(colon);
  spec.insert(spec.begin(), '*');
  auto rule = ParseDelayRule(spec);
  if (!rule.ok()) return Status::InvalidArgument("--server-delay '" + text + "': " + rule.status().message());
  d.rule = *rule;
  return d;
}

Result<SimWarmth> ParseSimWarmth(const std::string& text) {
  SimWarmth w;
  const size_t a = text.find(','), b = a == std::string::npos ? a : text.find(',', a + 1);
  double idle_ms = 0, warm_ms = 0;
  if (b == std::string::npos || !ParseNumber(std::string_view(text).substr(0, a), &w.scale) ||
      !ParseNumber(std::string_view(text).substr(a + 1, b - a - 1), &idle_ms) ||
      !ParseNumber(std::string_view(text).substr(b + 1), &warm_ms)) {
    return Status::InvalidArgument("--warmth '" + text + "': expected SCALE,IDLE_MS,WARM_MS, each a number > 0");
  }
  w.idle_us = idle_ms * 1e3;
  w.warm_us = warm_ms * 1e3;
  return w;
}

double SimResult::ExtraRequests() const {
  return requests_needed == 0 ? 0 : static_cast<double>(requests) / static_cast<double>(requests_needed) - 1;
}

double SimResult::ExtraWork() const {
  return tasks_needed == 0 ? 0 : static_cast<double>(tasks_run) / static_cast<double>(tasks_needed) - 1;
}

namespace {

using Time = double;  // µs of simulated time

// The simulation: servers (queues, workers, delays) and the coordinator
// (its fan-out rules mirror query/cluster_fanout.cc), driven by one event
// queue in time order (ties in the order scheduled).
class Simulation {
 public:
  explicit Simulation(const SimConfig& c) : c_(c), selector_(c.policy.replicas, c.seed), servers_(c.layout.servers) {
    for (size_t s = 0; s < servers_.size(); ++s) {
      std::vector<DelayRule> rules;
      for (const auto& d : c.delays) {
        if (d.server < 0 || static_cast<size_t>(d.server) == s) rules.push_back(d.rule);
      }
      if (!rules.empty()) servers_[s].delays = std::make_unique<DelayInjector>(rules, c.seed * 1000003 + s);
    }
    for (const auto& r : c.layout.ranges) {
      std::vector<std::string> names;
      for (size_t s : r.replicas) names.push_back(c.layout.names[s]);
      replica_names_.push_back(std::move(names));
    }
    measured_tablets_ = c.samples.front().tablet_service_us.size();
    result_.requests_by_server.assign(c.layout.servers, 0);
    total_ = c.queries > 0 ? c.queries : c.samples.size();
  }

  SimResult Run() {
    if (c_.rate_qps > 0) {
      arrivals_ = std::make_unique<PoissonSchedule>(c_.rate_qps, c_.seed);
      Push(arrivals_->Next(), kQueryStart, next_query_++);
    } else {
      for (size_t i = 0; i < std::min(c_.concurrency, total_); ++i) Push(0, kQueryStart, next_query_++);
    }
    while (!events_.empty() || !work_events_.empty()) {
      // Work on shared cores runs 1 / Dilation() as fast as real time, and
      // Dilation changes only at events: the next work event's real time
      // holds until then.
      const double dilation = Dilation();
      Event e;
      if (!work_events_.empty() &&
          (events_.empty() || now_ + (work_events_.top().at - work_now_) * dilation < events_.top().at)) {
        e = work_events_.top();
        work_events_.pop();
        const Time at = std::max(now_, now_ + (e.at - work_now_) * dilation);
        work_now_ = e.at;
        e.at = at;
      } else {
        e = events_.top();
        events_.pop();
        work_now_ = !WorkClock() ? e.at : work_now_ + (e.at - now_) / dilation;
      }
      Warm(e.at);
      now_ = e.at;
      if (Message(e.kind)) {
        --in_transit_;
        MaybeIdle();
      }
      Handle(e);
    }
    result_.simulated_seconds = now_ / 1e6;
    return std::move(result_);
  }

 private:
  enum Kind : uint8_t {
    kQueryStart, kRequestArrive, kTaskReady, kTaskDone, kTabletFinished, kCancelArrive,  // at a server
    kTabletAnswer, kStarted, kRequestDone, kHedge, kDeadline, kTwinDue,  // at the coordinator
  };
  struct Event {
    Time at;
    uint64_t seq;
    Kind kind;
    uint64_t id;       // query or request
    uint32_t arg = 0;  // a tablet, or a range
    uint64_t arg2 = 0;  // a request (kHedge)
  };
  // Time order; at one instant, what arrived before the timers that fire
  // then (a Started due at the very moment its twin is), then as scheduled.
  static bool Timer(Kind k) { return k == kHedge || k == kTwinDue || k == kDeadline; }
  // Sent between the coordinator and a server (half a query's overhead).
  static bool Message(Kind k) {
    return k == kRequestArrive || k == kCancelArrive || k == kStarted || k == kTabletAnswer || k == kRequestDone;
  }
  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      if (x.at != y.at) return x.at > y.at;
      if (Timer(x.kind) != Timer(y.kind)) return Timer(x.kind);
      return x.seq > y.seq;
    }
  };
  struct Task {
    uint64_t request;
    uint32_t tablet;
  };
  // When a tablet may finish at the earliest, on the work clock: as long
  // after it may start (its request's arrival, or the end of its delay) as
  // it took when measured, hand-offs between the server's threads included.
  struct Floor {
    uint32_t tablet;
    Time at;
  };
  struct Request {
    uint64_t query;
    uint32_t range, server;
    size_t sample;
    Time oneway;  // this query's message delay
    Time sent = 0, arrived = 0;
    std::vector<uint32_t> tablets;
    // Server side:
    uint32_t pending = 0, held = 0;
    uint32_t running = 0;  // tablets queued, in service or finishing
    std::vector<Floor> floors;
    Time first_start = -1, last_end = 0;
    double hedge_us = -1;  // its hedge delay (< 0: none)
    bool siblings = true;  // its hedge waits for the other ranges (QueryFanOut's Attempt::siblings)
    bool tied = false, started_sent = false, cancelled = false;
    // Coordinator side:
    bool active = true, started = false;
  };
  struct RangeState {
    bool done = false, hedged = false, twin_pending = false;
    std::vector<bool> tried;
    int active = 0;
    std::vector<bool> tablet_done;
    uint32_t complete = 0;
    std::vector<uint64_t> requests;  // sent for this range
  };
  struct Query {
    Time start = 0;
    size_t sample = 0;
    Time oneway = 0;
    size_t open = 0;
    AnswerMedian answers;  // how long each range's answering request took
    std::vector<RangeState> ranges;
    std::vector<uint64_t> requests;
  };
  struct Server {
    size_t busy = 0;
    std::deque<Task> queue;
    std::unique_ptr<DelayInjector> delays;
  };

  void Push(Time at, Kind kind, uint64_t id, uint32_t arg = 0, uint64_t arg2 = 0) {
    events_.push(Event{at, seq_++, kind, id, arg, arg2});
  }
  // A message between the coordinator and a server: `oneway` as measured,
  // stretched on a cold machine (SimWarmth: hand-offs between threads are
  // what an idle spell slows).
  void PushMessage(Time oneway, Kind kind, uint64_t id, uint32_t arg = 0) {
    Wake();
    ++in_transit_;
    Push(now_ + oneway * (1 + cold_), kind, id, arg);
  }
  // Whether the servers' work runs on a clock of its own (Dilation).
  bool WorkClock() const { return c_.cores > 0; }
  // A server's event at `at` on the work clock, which is the real clock
  // unless the cores are shared (Dilation).
  void PushAtWork(Time at, Kind kind, uint64_t id, uint32_t tablet) {
    if (!WorkClock()) return Push(at, kind, id, tablet);
    work_events_.push(Event{at, seq_++, kind, id, tablet});
  }

  double ServiceOf(const Request& r, uint32_t tablet) const {
    return c_.samples[r.sample].tablet_service_us[tablet % measured_tablets_];
  }
  double DoneOf(const Request& r, uint32_t tablet) const {
    return c_.samples[r.sample].tablet_done_us[tablet % measured_tablets_];
  }
  // A tablet the query's plan left out (no bin of it can match: its sample
  // is 0,0) is not run by the real server, nor held back by its delays.
  bool Planned(const Request& r, uint32_t tablet) const { return PlannedIn(r.sample, tablet); }
  bool PlannedIn(size_t sample, uint32_t tablet) const {
    const QuerySample& s = c_.samples[sample];
    return s.tablet_service_us[tablet % measured_tablets_] > 0 || s.tablet_done_us[tablet % measured_tablets_] > 0;
  }
  // Shared cores: the samples were measured with one request per range
  // running at once on c_.cores cores; while more run (a hedge, a tied
  // twin), every server's work is slowed in proportion (processor
  // sharing): max(1, running / cores) against max(1, ranges / cores).
  // Never sped up while fewer run: the samples' times already hold the
  // speed-up a request got when its siblings finished first (the measured
  // run had the same ranges), so with more ranges than cores a replay of
  // the measured configuration is the measurement, not faster.
  double Dilation() const {
    if (c_.cores == 0) return 1;
    const double cores = static_cast<double>(c_.cores);
    const double measured = std::max(1.0, static_cast<double>(c_.layout.ranges.size()) / cores);
    return std::max(1.0, std::max(1.0, static_cast<double>(running_requests_) / cores) / measured);
  }
  // Warmth (SimWarmth): busy while a tablet runs or a message is under way.
  bool Busy() const { return running_requests_ > 0 || in_transit_ > 0; }
  // Time passes to `to`: busy time warms the machine.
  void Warm(Time to) {
    if (c_.warmth.scale > 0 && Busy() && cold_ > 0) cold_ = 1 / (1 / cold_ + (to - now_) / c_.warmth.warm_us);
  }
  // Called when work or a message ends: the idle spell starts now.
  void MaybeIdle() {
    if (!Busy()) idle_since_ = now_;
  }
  // Called before work or a message begins: an idle spell ends, which
  // cooled the machine the more the longer it was.
  void Wake() {
    if (c_.warmth.scale <= 0 || Busy()) return;
    cold_ = std::max(cold_, c_.warmth.scale * std::log1p((now_ - idle_since_) / c_.warmth.idle_us));
  }
  void Enqueue(uint64_t id, Request& req, uint32_t tablet) {
    Wake();
    if (req.running++ == 0) ++running_requests_;
    req.floors.push_back({tablet, work_now_ + DoneOf(req, tablet)});
    servers_[req.server].queue.push_back({id, tablet});
  }

  void Handle(const Event& e) {
    switch (e.kind) {
      case kQueryStart: return StartQuery(e.id);
      case kRequestArrive: return RequestArrives(e.id);
      case kTaskReady: return TaskReady(e.id, e.arg);
      case kTaskDone: return TaskDone(e.id, e.arg);
      case kTabletFinished: return TabletFinished(e.id, e.arg);
      case kCancelArrive: return CancelArrives(e.id);
      case kTabletAnswer: return TabletAnswer(e.id, e.arg);
      case kStarted: return StartedArrives(e.id);
      case kRequestDone: return RequestDone(e.id);
      case kHedge: return HedgeDue(e.id, e.arg, e.arg2);
      case kDeadline: return DeadlinePassed(e.id);
      case kTwinDue: return TwinDue(e.id, e.arg);
    }
  }

  // --- the coordinator -----------------------------------------------------

  void StartQuery(uint64_t qid) {
    if (arrivals_ && next_query_ < total_) Push(arrivals_->Next(), kQueryStart, next_query_++);
    Query& q = queries_[qid];
    q.start = now_;
    q.sample = qid % c_.samples.size();
    q.oneway = c_.samples[q.sample].overhead_us / 2;
    q.open = c_.layout.ranges.size();
    q.ranges.resize(q.open);
    result_.requests_needed += q.open;
    for (size_t r = 0; r < q.open; ++r) {
      const SimRange& range = c_.layout.ranges[r];
      q.ranges[r].tried.assign(range.replicas.size(), false);
      q.ranges[r].tablet_done.assign(range.last_tablet - range.first_tablet + 1, false);
      // The tablets the plan needs: one the sample left out (0,0) is never run.
      for (uint32_t t = range.first_tablet; t <= range.last_tablet; ++t) result_.tasks_needed += PlannedIn(q.sample, t);
    }
    if (c_.policy.deadline_ms > 0) Push(now_ + c_.policy.deadline_ms * 1e3, kDeadline, qid);
    for (size_t r = 0; r < q.open; ++r) {
      const bool tied = c_.policy.tied && c_.layout.ranges[r].replicas.size() >= 2;
      Send(qid, q, r, tied);
      if (!tied) continue;
      double delay_us = c_.policy.tied_delay_ms * 1e3;
      if (c_.policy.tied_delay_percentile > 0) {
        const Request& first = requests_.at(q.ranges[r].requests.front());
        delay_us = started_.DelayUs(r, c_.layout.names[first.server], c_.policy.tied_delay_percentile);
      }
      if (delay_us > 0) {
        q.ranges[r].twin_pending = true;
        Push(now_ + delay_us, kTwinDue, qid, static_cast<uint32_t>(r));
      } else if (Send(qid, q, r, true)) {
        ++result_.tied;
      }
    }
  }

  bool Send(uint64_t qid, Query& q, size_t r, bool tied) {
    RangeState& st = q.ranges[r];
    const SimRange& range = c_.layout.ranges[r];
    std::vector<uint32_t> owed;
    for (uint32_t t = range.first_tablet; t <= range.last_tablet; ++t) {
      if (!st.tablet_done[t - range.first_tablet]) owed.push_back(t);
    }
    std::vector<size_t> candidates;
    for (size_t i = 0; i < st.tried.size(); ++i) {
      if (!st.tried[i]) candidates.push_back(i);
    }
    if (owed.empty() || candidates.empty()) return false;
    const size_t replica = selector_.Choose(replica_names_[r], candidates);
    st.tried[replica] = true;
    ++st.active;
    const uint64_t id = next_request_++;
    Request& req = requests_[id];
    req.query = qid;
    req.range = static_cast<uint32_t>(r);
    req.server = static_cast<uint32_t>(range.replicas[replica]);
    req.sample = q.sample;
    req.oneway = q.oneway;
    req.sent = now_;
    req.tablets = std::move(owed);
    req.tied = tied;
    q.requests.push_back(id);
    st.requests.push_back(id);
    ++result_.requests;
    ++result_.requests_by_server[req.server];
    // Before Sent: the rank counts requests in flight.
    req.siblings = c_.policy.hedge_siblings <= 0 || selector_.AmongBest(replica_names_[r], c_.layout.names[req.server]);
    selector_.Sent(c_.layout.names[req.server]);
    PushMessage(q.oneway, kRequestArrive, id);
    double hedge_us = -1;
    if (c_.policy.hedge_ms > 0) {
      hedge_us = c_.policy.hedge_ms * 1e3;
    } else if (c_.policy.hedge_percentile > 0) {
      hedge_us = thresholds_.DelayUs(r, c_.layout.names[req.server], c_.policy.hedge_percentile);
    }
    req.hedge_us = hedge_us;
    if (hedge_us > 0) Push(now_ + HedgeWait(q, req), kHedge, qid, static_cast<uint32_t>(r), id);
    return true;
  }

  // As QueryFanOut::HedgeAt: the wait from the send (query/sibling_hedge.h).
  double HedgeWait(const Query& q, const Request& req) const {
    return HedgeWaitUs(req.hedge_us, req.siblings ? c_.policy.hedge_siblings : 0, q.open > 1, q.answers.us());
  }

  // The request is over for the coordinator; a cancel also goes to its server.
  void Deactivate(Request& req, Query* q, ReplicaSample::Kind kind, bool cancel, uint64_t id) {
    if (!req.active) return;
    req.active = false;
    if (q != nullptr) --q->ranges[req.range].active;
    ReplicaSample sample;
    sample.kind = kind;
    sample.elapsed_us = now_ - req.sent;
    if (kind == ReplicaSample::kAnswered && req.first_start >= 0) {
      sample.queue_us = static_cast<uint32_t>(std::clamp(req.first_start - req.arrived, 0.0, 4e9));
      sample.service_us = static_cast<uint32_t>(std::clamp(req.last_end - req.first_start, 0.0, 4e9));
    }
    selector_.Ended(c_.layout.names[req.server], sample);
    if (cancel) PushMessage(req.oneway, kCancelArrive, id);
  }

  // Active and its server still at work: a request whose server has
  // finished has its Done on the way (sent with its last answer), which
  // reports it answered, as the client's Done handling does.
  static bool Running(const Request& r) { return r.active && r.pending > 0; }

  void TabletAnswer(uint64_t id, uint32_t tablet) {
    auto rit = requests_.find(id);
    if (rit == requests_.end() || !rit->second.active) return;  // cancelled: not an answer
    Request& req = rit->second;
    auto qit = queries_.find(req.query);
    if (qit == queries_.end()) return;
    Query& q = qit->second;
    RangeState& st = q.ranges[req.range];
    const SimRange& range = c_.layout.ranges[req.range];
    if (st.done || st.tablet_done[tablet - range.first_tablet]) return;  // another replica was first
    st.tablet_done[tablet - range.first_tablet] = true;
    if (++st.complete < st.tablet_done.size()) return;
    st.done = true;
    thresholds_.Record(req.range, c_.layout.names[req.server], now_ - req.sent);
    // The other ranges' hedges: due sooner only if the median fell (or
    // this is the first answer, which ends the lone wait); a later due is
    // found when the pending event fires (HedgeDue).
    const double before = q.answers.us();
    q.answers.Add(now_ - req.sent);
    if (before < 0 || q.answers.us() < before) {
      for (uint64_t other : q.requests) {
        auto o = requests_.find(other);
        if (o == requests_.end() || !o->second.active || o->second.hedge_us <= 0 || o->second.range == req.range) continue;
        const Request& w = o->second;
        Push(std::max(now_, w.sent + HedgeWait(q, w)), kHedge, req.query, w.range, other);
      }
    }
    for (uint64_t other : st.requests) {
      auto o = requests_.find(other);
      if (other != id && o != requests_.end() && Running(o->second)) {
        Deactivate(o->second, &q, ReplicaSample::kCensored, true, other);
      }
    }
    if (--q.open == 0) FinishQuery(qit, false);
  }

  void StartedArrives(uint64_t id) {
    auto rit = requests_.find(id);
    if (rit == requests_.end()) return;
    Request& req = rit->second;
    auto qit = queries_.find(req.query);
    if (qit == queries_.end() || !req.tied || req.started) return;
    req.started = true;
    started_.Record(req.range, c_.layout.names[req.server], now_ - req.sent);
    if (!req.active) {
      ++result_.tied_both_started;
      return;
    }
    qit->second.ranges[req.range].twin_pending = false;  // started in time: no twin needed
    for (uint64_t other : qit->second.ranges[req.range].requests) {
      auto o = requests_.find(other);
      if (other != id && o != requests_.end() && o->second.tied && o->second.active) {
        Deactivate(o->second, &qit->second, ReplicaSample::kCensored, true, other);
        ++result_.tied_cancelled;
      }
    }
  }

  void RequestDone(uint64_t id) {
    auto rit = requests_.find(id);
    if (rit == requests_.end()) return;
    auto qit = queries_.find(rit->second.query);
    Deactivate(rit->second, qit == queries_.end() ? nullptr : &qit->second, ReplicaSample::kAnswered, false, id);
    requests_.erase(rit);
  }

  void HedgeDue(uint64_t qid, uint32_t r, uint64_t id) {
    auto qit = queries_.find(qid);
    auto rit = requests_.find(id);
    if (qit == queries_.end() || rit == requests_.end() || !rit->second.active) return;
    RangeState& st = qit->second.ranges[r];
    if (st.done || st.hedged || st.active != 1) return;
    if (std::find(st.tried.begin(), st.tried.end(), false) == st.tried.end()) return;
    const Request& req = rit->second;
    // Not yet: the siblings' median rose since this was due.
    if (const Time due = req.sent + HedgeWait(qit->second, req); now_ < due) return Push(due, kHedge, qid, r, id);
    if (Send(qid, qit->second, r, false)) ++result_.hedged;
    st.hedged = true;
  }

  void TwinDue(uint64_t qid, uint32_t r) {
    auto qit = queries_.find(qid);
    if (qit == queries_.end()) return;
    RangeState& st = qit->second.ranges[r];
    if (!st.twin_pending || st.done) return;
    st.twin_pending = false;
    if (Send(qid, qit->second, r, true)) ++result_.tied;
  }

  void DeadlinePassed(uint64_t qid) {
    auto qit = queries_.find(qid);
    if (qit != queries_.end()) FinishQuery(qit, true);
  }

  void FinishQuery(std::unordered_map<uint64_t, Query>::iterator qit, bool partial) {
    Query& q = qit->second;
    for (uint64_t id : q.requests) {
      auto o = requests_.find(id);
      if (o != requests_.end() && Running(o->second)) {
        Deactivate(o->second, &q, partial ? ReplicaSample::kCensored : ReplicaSample::kNone, true, id);
      }
    }
    const double us = now_ - q.start;
    result_.latency.RecordMicros(us);
    result_.latencies_us.push_back(us);
    ++result_.queries;
    result_.partial += partial ? 1 : 0;
    queries_.erase(qit);
    if (!arrivals_ && next_query_ < total_) Push(now_, kQueryStart, next_query_++);
  }

  // --- the servers -----------------------------------------------------------

  void RequestArrives(uint64_t id) {
    Request& req = requests_.at(id);
    req.arrived = now_;
    Server& server = servers_[req.server];
    req.pending = static_cast<uint32_t>(req.tablets.size());
    // Drawn per planned tablet before any runs (as shards/server_query.cc
    // does), so a tied request's Started waits for every held tablet.
    std::vector<int64_t> delays(req.tablets.size(), 0);
    if (server.delays) {
      for (size_t i = 0; i < req.tablets.size(); ++i) {
        if (Planned(req, req.tablets[i])) delays[i] = server.delays->SampleMicros(req.tablets[i]);
      }
    }
    for (size_t i = 0; i < req.tablets.size(); ++i) {
      if (!Planned(req, req.tablets[i])) {
        TabletFinished(id, req.tablets[i]);
      } else if (delays[i] > 0) {
        ++req.held;
        Push(now_ + static_cast<double>(delays[i]), kTaskReady, id, req.tablets[i]);
      } else {
        Enqueue(id, req, req.tablets[i]);
      }
    }
    Pump(req.server);
  }

  void TaskReady(uint64_t id, uint32_t tablet) {
    Request& req = requests_.at(id);
    --req.held;
    if (req.cancelled) {
      TaskEnded(id, req);
    } else {
      Enqueue(id, req, tablet);
      MaybeStarted(id, req);
    }
    Pump(req.server);
  }

  void Pump(uint32_t s) {
    Server& server = servers_[s];
    while (server.busy < c_.workers && !server.queue.empty()) {
      const Task task = server.queue.front();
      server.queue.pop_front();
      Request& req = requests_.at(task.request);
      if (req.cancelled) {  // noticed before it starts: no work
        StopsRunning(req);
        TaskEnded(task.request, req);
        continue;
      }
      ++server.busy;
      ++result_.tasks_run;
      if (req.first_start < 0) req.first_start = now_;
      MaybeStarted(task.request, req);
      PushAtWork(work_now_ + ServiceOf(req, task.tablet), kTaskDone, task.request, task.tablet);
    }
  }

  // A tied request is under way once a task began and none is held back.
  void MaybeStarted(uint64_t id, Request& req) {
    if (!req.tied || req.started_sent || req.cancelled || req.held > 0 || req.first_start < 0) return;
    req.started_sent = true;
    PushMessage(req.oneway, kStarted, id);
  }

  // The worker is free; the tablet is finished now or at its floor.
  void TaskDone(uint64_t id, uint32_t tablet) {
    Request& req = requests_.at(id);
    --servers_[req.server].busy;
    Time floor = work_now_;  // on the work clock, as the floors are
    for (const Floor& f : req.floors) {
      if (f.tablet == tablet) floor = std::max(floor, f.at);
    }
    const uint32_t server = req.server;
    if (floor > work_now_) {
      // The rest of the floor is the server's hand-offs: stretched on a
      // cold machine, as messages are; the service itself is not.
      PushAtWork(work_now_ + (floor - work_now_) * (1 + cold_), kTabletFinished, id, tablet);
    } else {
      TabletFinished(id, tablet);
    }
    Pump(server);
  }

  void StopsRunning(Request& req) {
    if (--req.running == 0) --running_requests_;
    MaybeIdle();
  }

  void TabletFinished(uint64_t id, uint32_t tablet) {
    Request& req = requests_.at(id);
    if (Planned(req, tablet)) StopsRunning(req);
    req.last_end = now_;
    // A run the cancel reached is cut short and is not an answer.
    if (!req.cancelled) PushMessage(req.oneway, kTabletAnswer, id, tablet);
    TaskEnded(id, req);
  }

  void TaskEnded(uint64_t id, Request& req) {
    if (--req.pending == 0) PushMessage(req.oneway, kRequestDone, id);
  }

  void CancelArrives(uint64_t id) {
    auto rit = requests_.find(id);
    if (rit != requests_.end()) rit->second.cancelled = true;
  }

  const SimConfig& c_;
  ReplicaSelector selector_;
  HedgeThresholds thresholds_;
  HedgeThresholds started_;  // tied-pNN: send to Started, per range and server
  std::vector<Server> servers_;
  std::vector<std::vector<std::string>> replica_names_;
  size_t measured_tablets_ = 1, total_ = 0, next_query_ = 0;
  size_t running_requests_ = 0;  // requests with a tablet running (Dilation)
  size_t in_transit_ = 0;        // messages under way (Busy)
  double cold_ = 0;              // the machine's coldness (SimWarmth)
  Time idle_since_ = 0;          // when the machine last went idle
  uint64_t next_request_ = 1, seq_ = 0;
  Time now_ = 0;
  Time work_now_ = 0;  // the servers' work clock (PushAtWork)
  std::unique_ptr<PoissonSchedule> arrivals_;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  std::priority_queue<Event, std::vector<Event>, Later> work_events_;  // at: work time
  std::unordered_map<uint64_t, Query> queries_;
  std::unordered_map<uint64_t, Request> requests_;
  SimResult result_;
};

}  // namespace

Result<SimResult> Simulate(const SimConfig& c) {
  if (c.samples.empty()) return Status::InvalidArgument("simulate: no samples");
  if (c.layout.ranges.empty() || c.layout.servers == 0) return Status::InvalidArgument("simulate: no servers");
  for (const auto& d : c.delays) {
    if (d.server >= static_cast<int64_t>(c.layout.servers)) {
      return Status::InvalidArgument("--server-delay: server " + std::to_string(d.server) + " of " +
                                     std::to_string(c.layout.servers) + " (numbered from 0)");
    }
  }
  if (c.workers == 0 || c.concurrency == 0) return Status::InvalidArgument("simulate: workers and clients >= 1");
  Simulation sim(c);
  return sim.Run();
}

}  // namespace dps
