// One query's fan-out over a cluster's tablet ranges (Dean and Barroso,
// "The Tail at Scale", CACM 2013): sends each range's request to its first
// replica, hedges to the next replica when an answer is slower than the
// hedge delay, fails over when a server fails, gives a range up at the
// deadline or when no replica is left, and hands each bin's answer to the
// query's ResultStream once (the first replica's answer wins). With tied
// requests, each range is asked of two replicas at once and the one that
// starts second is cancelled. A hedge or
// failover asks only for the tablets still owed (those no server has
// reported whole). A ranked query's bins each answer their K best; they
// are merged once every range has answered or been given up
// (query/ranked_runs.h), so a partial answer is the best of what came.
//
// Single-threaded: the query's thread drives it with the events of the
// client's links; frames go out through the FanOutHost.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "index/query_node.h"
#include "query/cluster_file.h"
#include "query/bin_order.h"
#include "query/cluster_link.h"
#include "query/replica_selector.h"
#include "query/sibling_hedge.h"
#include "query/result_stream.h"

namespace dps {

// What a fan-out needs from its client.
class FanOutHost {
 public:
  virtual ~FanOutHost() = default;
  virtual uint64_t NextRequestId() = 0;
  virtual void Submit(const std::string& address, uint64_t rid, std::string frame) = 0;
  // Which replica of `range` to ask: one of `candidates` (indexes into
  // range.replicas, not empty: those not tried yet and usable).
  virtual size_t ChooseReplica(const ClusterRange& range, std::span<const size_t> candidates) = 0;
  // Whether `address` ranks among the best of `range`'s replicas (its
  // hedges then wait for the query's other ranges: sibling_hedge.h).
  virtual bool AmongBest(const ClusterRange& range, const std::string& address) { return true; }
  // A request submitted to `address` ended (answered, cancelled or failed).
  virtual void Ended(const std::string& address, const ReplicaSample& sample) = 0;
  virtual void Cancel(const std::string& address, uint64_t rid) = 0;
  // Range `range`'s complete answer from `address` took `us` (hedge
  // thresholds learn from it).
  virtual void RecordLatency(size_t range, const std::string& address, double us) = 0;
  // A tied request for `range` to `address` reported Started `us` after it
  // was sent (learned tied delays).
  virtual void RecordStarted(size_t range, const std::string& address, double us) {}
  virtual void Log(const std::string& line) = 0;
  // Whether `address` may be asked for `range` (not a bad replica: another
  // index, or not hosting the range); InvalidArgument saying why if not.
  virtual Status Usable(const std::string& address, const ClusterRange& range) = 0;
  // InvalidArgument when no replica of `range` may be asked.
  virtual Status RangeUsable(const ClusterRange& range) = 0;
  // `address` said it serves `generation` (a Done frame).
  virtual void SawGeneration(const std::string& address, uint64_t generation) {}
  // The newest generation a server said it serves (FanOutPolicy::consistent asks for it).
  virtual uint64_t NewestGeneration() { return 0; }
};

// How long a range waits before asking again for a generation its
// replicas do not serve yet (FanOutPolicy::consistent): a follower looks
// at its MANIFEST every 250 ms by default. Without a deadline a consistent
// query waits for the generation at most kGenerationWait.
inline constexpr std::chrono::milliseconds kGenerationRetry{20};
inline constexpr std::chrono::milliseconds kGenerationWait{10'000};

struct FanOutPolicy {
  uint32_t deadline_ms = 0;  // 0: none
  // Issue 22: every range answers at one generation, the newest any server
  // said it serves (a ranked answer is then the in-process one at that
  // generation, to the bit); a server still at an older one answers "not
  // at generation G" and the range asks again every kGenerationRetry until
  // the deadline. A server already past G (two commits since the client
  // last heard) makes the query start again at its generation: bins are
  // held until every range has answered, so nothing of G was delivered.
  // Without it each server answers at its own generation.
  bool consistent = false;
  // Tied requests (Dean and Barroso): each range asked of two replicas,
  // each request flagged tied; the first server to report Started has its
  // twin cancelled. Ranges with one usable replica are asked once. The
  // second twin goes out a delay after the first (by range, then by the
  // first's replica; <= 0 or missing: at once), and not at all if the
  // first has started by then: on idle servers both twins would otherwise
  // start before either's Started arrives (their remedy: a delay of about
  // two network messages).
  bool tied = false;
  std::vector<std::vector<double>> tied_delay_us;
  double TiedDelayUs(size_t range, size_t replica) const {
    return range < tied_delay_us.size() && replica < tied_delay_us[range].size() ? tied_delay_us[range][replica] : -1;
  }
  // By range, then by replica: how long a request to that replica waits
  // before a hedge; < 0 or missing: no hedging.
  std::vector<std::vector<double>> hedge_us;
  double HedgeUs(size_t range, size_t replica) const {
    return range < hedge_us.size() && replica < hedge_us[range].size() ? hedge_us[range][replica] : -1;
  }
  // A hedge also waits this many times the slowest answer of the query's
  // other ranges (query/sibling_hedge.h); <= 0: the delay above alone.
  double hedge_siblings = 0;
};

class QueryFanOut {
 public:
  using Clock = std::chrono::steady_clock;
  QueryFanOut(const std::vector<ClusterRange>& ranges, FanOutPolicy policy, FanOutHost* host,
              const QueryNode& root, const SearchOptions& options, ResultStream* stream, SearchStats* stats);

  // Sends every range's first request.
  void Start();
  // Whether the query waits for more: a range still owes its answer and
  // neither the sink nor an invalid query stopped it.
  bool waiting() const;
  // When to wake without an event: the deadline or the earliest hedge.
  Clock::time_point NextWake() const;
  // No event came by NextWake(): give up at the deadline, or hedge.
  void OnTimeout(Clock::time_point now);
  void OnEvent(LinkEvent& event);
  // Cancels what is still in flight.
  void Finish();
  // InvalidArgument when the servers refused the query, or a range turned
  // out to have no usable replica (servers reached only now were bad).
  const Status& query_error() const { return query_error_; }

 private:
  struct Attempt {
    size_t range;
    size_t replica;
    Clock::time_point sent;
    bool active = true;
    // From its bins' BinStats so far (times from the server's receipt):
    uint32_t first_start_us = UINT32_MAX;  // when its first bin started
    uint64_t last_end_us = 0;              // when its last bin ended
    bool tied = false;    // one of a tied pair
    // Its hedge waits for the other ranges too (FanOutPolicy::hedge_siblings):
    // its server ranked among the range's best when it was sent. A request
    // to a server already seen slower than another replica is hedged on
    // the delay alone: it is suspect, however costly the query.
    bool siblings = true;
    bool started = false;  // tied: its server reported Started
  };
  struct RangeState {
    bool done = false;
    bool missing = false;
    std::vector<bool> tried;  // by replica: asked in this query
    int active = 0;           // requests in flight
    bool hedged = false;
    // Tied with a delay: when the second twin is due (max: none pending).
    Clock::time_point twin_due = Clock::time_point::max();
    // Consistent: when to ask again, its replicas not at the generation yet.
    Clock::time_point retry_due = Clock::time_point::max();
    bool open() const { return !done && !missing; }
  };

  bool Owed(size_t range, uint32_t* first, uint32_t* last) const;
  bool Send(size_t range, bool tied = false);
  size_t UsableUntried(size_t range) const;
  void OnStarted(uint64_t rid, Attempt& attempt);
  void Cancel(uint64_t rid);
  void CancelAll();
  void GiveUp(size_t range);
  void Exhausted(size_t range, const Status& why);
  // The attempt is over; `kind` says what its time tells the selector.
  void Deactivate(Attempt* attempt, ReplicaSample::Kind kind);
  bool Untried(size_t range) const;
  // When `a` is to be hedged (max: not eligible), `open_ranges` of the
  // query's ranges still owing their answer.
  Clock::time_point HedgeAt(const Attempt& a, size_t open_ranges) const;
  size_t OpenRanges() const;
  void OnResults(Attempt& attempt, LinkEvent& e);
  void OnBinStats(Attempt& attempt, LinkEvent& e);
  void OnDone(Attempt& attempt, const Done& done);
  void OnFailure(Attempt& attempt, const Status& why);
  void NotAtGeneration(Attempt& attempt, const Done& done);
  void Retry(size_t range);
  // Consistent: asks every range again, at `generation`, dropping what came.
  void Restart(uint64_t generation);

  const std::vector<ClusterRange>& ranges_;
  FanOutPolicy policy_;
  FanOutHost* host_;
  const QueryNode& root_;
  const SearchOptions& options_;
  ResultStream* stream_;
  SearchStats* stats_;
  Clock::time_point deadline_ = Clock::time_point::max();
  std::vector<RangeState> state_;
  std::unordered_map<uint64_t, Attempt> attempts_;
  std::map<std::pair<uint64_t, uint32_t>, BinResult> buffers_;  // (rid, bin): frames before BinStats
  std::set<uint32_t> delivered_bins_;
  std::optional<BinOrder> order_;  // paging: bins wait here until every range answered
  bool ranked_ = false;
  std::vector<BinResult> ranked_bins_;  // ranked: every bin's best, merged in Finish
  std::set<uint32_t> complete_tablets_;  // reported whole by some server
  AnswerMedian answers_;  // how long each range's answering request took
  bool stopped_ = false;
  Status query_error_;
  std::optional<uint64_t> generation_;  // consistent: the one every range answers at
  std::vector<BinResult> held_;  // consistent, unranked and unordered: delivered in Finish
};

}  // namespace dps
