// One Query request on a shard server, apart from sockets: validated and
// planned against the server's index (small queries on the network thread,
// big ones and prefixes on a worker), its bins scheduled (cheap plans on
// the network thread, others on the worker pool, injected delays as
// cancellable timers), each bin run by the BinExecutor and turned into
// Results and BinStats frames, then a Done frame (docs/PROTOCOL.md).
// A request runs on one generation of the index (IndexHolder), the
// current one or the one it asks for, and its Done frame names it. A
// ranked request scores with that generation's index-wide statistics
// (every server of one index generation has the same N, avgdl and df, so
// the same scores) and its bins share one threshold.
//
// Threads: everything runs on the network thread except bin evaluation and
// the planning of big queries, which run on a worker and hand their
// outcome back to the network thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "index/index_reader.h"
#include "index/query_plan.h"
#include "shards/bin_executor.h"
#include "shards/delay.h"
#include "shards/index_holder.h"
#include "shards/protocol.h"
#include "shards/ranking.h"
#include "shards/term_round.h"
#include "shards/top_k.h"

namespace dps {

// What the queries of one server share (read-only once serving).
struct QueryHost {
  // The generations served; a request takes one at its start and keeps it.
  const IndexHolder* index = nullptr;
  uint32_t first_tablet = 0, last_tablet = 0;  // hosted
  DelayInjector* delays = nullptr;             // thread-safe
  boost::asio::io_context* io = nullptr;        // the network thread
  boost::asio::thread_pool* workers = nullptr;
};

// The Welcome a server of `host` answers a Hello with: its index (the
// current generation) and the tablets it hosts.
Welcome WelcomeOf(const QueryHost& host);

// Where a query's frames go (its connection). Network thread only.
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual void Send(std::string frames) = 0;
  // The request's Done frame has been sent (or the connection closed).
  virtual void QueryDone(uint64_t request_id) = 0;
  // Runs `start` (a bin to begin: on this thread, or `pooled` on the
  // workers) now, or later: a connection lets a few of its bins into the
  // worker pool at a time (so one client's many requests cannot queue
  // ahead of everyone else's), and none while its client has not read
  // what it was sent (backpressure). After a close, at once (the bin sees
  // the cancel). Network thread.
  virtual void Admit(std::function<void()> start, bool pooled) { start(); }
  // A pooled bin admitted here has ended (network thread).
  virtual void PooledBinEnded() {}
};

class ServerQuery : public std::enable_shared_from_this<ServerQuery> {
 public:
  // Validates and starts a request. Returns null when it was answered at
  // once (refused, or no bin to search): its Done frame is already sent.
  static std::shared_ptr<ServerQuery> Start(const QueryHost* host, QueryRequest request,
                                            std::shared_ptr<FrameSink> sink);
  // Stops the request: bins not started see the cancel, injected delays
  // end now; the Done frame still goes out.
  void Cancel();

  ServerQuery(const QueryHost* host, std::shared_ptr<const ServedGeneration> generation,
              std::shared_ptr<FrameSink> sink)
      : host_(host), gen_(std::move(generation)), sink_(std::move(sink)) {}

 private:
  struct BinOutcome {
    bool pooled = false;  // ran on a worker (admitted as pooled)
    std::string frames;  // Results frames
    BinStats stats;      // encoded after them on the network thread, unless error
    std::string error;
  };

  // The plan is made (network thread): schedules the bins. False when the
  // request was answered at once (refused, cancelled, no bin, or every bin
  // ran inline): its Done frame is sent.
  bool Planned(Result<QueryPlan> plan);
  // Sends the request's Done frame.
  void Answer(DoneCode code, const std::string& message);
  void Schedule(BinId bin, uint32_t tablet, int64_t delay_us);
  // Tied requests: a bin begins (worker or network thread); the last
  // injected delay ends (network thread). Started goes out once both hold.
  void BinBegins(bool on_network_thread);
  void DelayEnded();
  void SendStarted(bool on_network_thread);
  BinOutcome Evaluate(BinId bin, uint32_t tablet);  // worker thread
  Status FetchRanked(BinId bin, Fetch fetch, BinResult* r);  // worker thread
  void BinFinished(BinOutcome out);

  const QueryHost* host_;
  // The generation the request runs on, from its start to its Done frame:
  // its files stay mapped while it runs, whatever the follower installs.
  std::shared_ptr<const ServedGeneration> gen_;
  std::shared_ptr<FrameSink> sink_;
  uint64_t id_ = 0;
  bool count_only_ = false;
  uint64_t limit_ = 0;
  bool snippets_ = false;
  size_t top_k_ = 0;  // ranked: each bin's K best (0: unranked)
  std::optional<RankContext> rank_;  // ranked: built with the plan
  SharedThreshold threshold_;        // ranked: the request's bins prune together
  std::optional<TermRound> round_;   // ranked, a single term: the request's bins ranked at once
  QueryRequest request_;  // as received, its root moved to the planner
  bool answered_ = false;  // its Done frame went out (network thread)
  std::chrono::steady_clock::time_point received_;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  QueryPlan plan_;  // read-only once bins are scheduled
  std::atomic<bool> cancel_{false};
  std::optional<LimitBudget> budget_;  // matches still allowed by the limit
  std::atomic<bool> deadline_hit_{false};
  // Tied (QueryRequest::tied): bins still held by an injected delay, whether
  // one has begun, and whether Started went out.
  bool tied_ = false;
  std::atomic<size_t> held_{0};
  std::atomic<bool> began_{false}, started_sent_{false};
  // Network thread only:
  size_t pending_bins_ = 0;
  // Per tablet: bins not finished yet, and tablets one of whose bins was
  // cancelled or failed (they decide BinStats' tablet_complete flag).
  std::map<uint32_t, size_t> pending_of_tablet_;
  std::set<uint32_t> tablets_not_whole_;
  std::string error_;
  // Injected delays not yet expired; cancelling the request cuts them short.
  std::vector<std::shared_ptr<boost::asio::steady_timer>> timers_;
};

}  // namespace dps
