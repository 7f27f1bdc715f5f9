// The coordinator over the network: fans a query out to `dpsearch serve`
// processes listed in a cluster file (DESIGN.md "Cluster file"), streams
// each bin's results to the caller as they arrive, and fights stragglers:
// a deadline returns what has arrived and names the missing tablets;
// replicas give failover when a server dies or answers garbage; hedging
// sends a second request to another replica when the first is slow (Dean
// and Barroso, "The Tail at Scale", CACM 2013) and keeps whichever bin
// answer lands first.
//
// Pieces: the cluster file (cluster_file.h), one connection per server
// (cluster_link.h), one fan-out object per query (cluster_fanout.h). One
// network thread (Boost.Asio) owns every socket; the caller's thread runs
// Run() and receives results. One Run at a time per client.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/query_node.h"
#include "query/cluster_file.h"
#include "query/cluster_roster.h"
#include "query/replica_selector.h"
#include "query/sibling_hedge.h"
#include "query/searcher.h"

namespace dps {

class LocalShards;
class RangeFeed;

struct ClusterOptions {
  std::string token;
  uint32_t deadline_ms = 0;        // 0: wait for every tablet
  double hedge_after_ms = 0;       // > 0: hedge after this fixed delay
  double hedge_percentile = 0;     // > 0: hedge after this percentile of the range's healthy answers (hedge_thresholds.h)
  // A hedge also waits this many times the slowest answer of the query's
  // other ranges (query/sibling_hedge.h); 0: the delay alone.
  double hedge_siblings = kDefaultHedgeSiblings;
  // Which replica of a range is asked first (query/replica_selector.h).
  ReplicaPolicy replica_policy = ReplicaPolicy::kAdaptive;
  bool tied = false;  // tied requests (FanOutPolicy::tied)
  // Every range answers at the newest generation a server serves, waiting
  // for the others up to the deadline (FanOutPolicy::consistent; issue 22).
  bool consistent = false;
  double tied_delay_ms = 0;          // > 0: the second twin after this fixed delay
  double tied_delay_percentile = 0;  // > 0: after this percentile of the range's Started times
  uint32_t connect_timeout_ms = 2000;
  // Tablets of the index no range of the cluster file covers are an error
  // (Connect fails) unless this is set; then every answer is partial and
  // names them.
  bool allow_partial = false;
  // Warnings (an unreachable server, a bad replica, a range given up); may
  // be empty. The library never writes to stderr itself.
  std::function<void(const std::string&)> log;
  // Replicas in this process (query/local_shards.h): the ranges' addresses
  // it serves are asked through it, the others over the network.
  std::shared_ptr<LocalShards> local;
  // A live cluster (ZooKeeper, query/zookeeper_backend.h): each Run first
  // takes the feed's ranges if they changed since the last (one atomic
  // load when not). Servers that left are no longer asked, new ones are
  // greeted on their first request and checked like any. The feed keeps
  // tablets no server advertises any more on their last servers
  // (KeepUncovered, query/discovered_ranges.h); an empty feed keeps the
  // last ranges.
  std::shared_ptr<RangeFeed> feed;
  // Bad replicas already warned about; copies of these options (the clients
  // of one backend) share it, so each is reported once in all.
  std::shared_ptr<WarnedServers> warned = std::make_shared<WarnedServers>();
};

class ClusterClient final : public Searcher {
 public:
  // Connects to every server of `ranges` (with a feed: its current ones), takes the index most of them serve (same id,
  // bins, tablets, analyzer, fields; any generations) as the cluster's, and checks the cluster
  // file against it before any query runs (ClusterRoster::Settle):
  // InvalidArgument for ranges beyond its tablets, tablets no range covers
  // (unless allow_partial), a range no replica of which serves the index
  // and hosts the range. Bad replicas of a range that has others are
  // warned about once and never asked. Unreachable servers are logged as
  // warnings and tried again when needed; at least one must answer.
  static Result<std::unique_ptr<ClusterClient>> Connect(std::vector<ClusterRange> ranges,
                                                        ClusterOptions options);
  ~ClusterClient() override;

  // Per-bin timings are the servers' own. Results carry ids and titles
  // whatever `options.fetch` asks (servers send no text). InvalidArgument
  // for a query the servers refuse, or a range whose replicas all turn out
  // bad; tablets no replica answered (dead servers, the deadline) or no
  // range covers (allow_partial) are not an error but a partial answer,
  // flagged and named in *stats.
  Status Run(QueryNode query, const SearchOptions& options, const ResultSink& sink,
             SearchStats* stats) override;
  bool returns_text() const override { return true; }
  // The analyzer the servers' index was built with (their Welcome).
  const AnalyzerSpec& analyzer_spec() const override;
  const FieldSet& fields() const override;

 private:
  struct Impl;
  explicit ClusterClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dps
