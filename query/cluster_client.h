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
#include "query/searcher.h"

namespace dps {

struct ClusterOptions {
  std::string token;
  uint32_t deadline_ms = 0;        // 0: wait for every tablet
  double hedge_after_ms = 0;       // > 0: hedge after this fixed delay
  double hedge_percentile = 0;     // > 0: hedge after this percentile of recent latencies
  uint32_t connect_timeout_ms = 2000;
  // Warnings (an unreachable server, a range given up); may be empty. The
  // library never writes to stderr itself.
  std::function<void(const std::string&)> log;
};

class ClusterClient final : public Searcher {
 public:
  // Connects to every server and checks they serve one index (same id,
  // generation, bins, tablets) and host their ranges. Unreachable servers
  // are logged as warnings and tried again when needed; at least one must
  // answer.
  static Result<std::unique_ptr<ClusterClient>> Connect(std::vector<ClusterRange> ranges,
                                                        ClusterOptions options);
  ~ClusterClient() override;

  // Per-bin timings are the servers' own. Results carry ids and titles
  // whatever `options.fetch` asks (servers send no text). InvalidArgument
  // for a query the servers refuse; tablets no replica answered (dead
  // servers, the deadline) are not an error but a partial answer, flagged
  // and named in *stats.
  Status Run(QueryNode query, const SearchOptions& options, const ResultSink& sink,
             SearchStats* stats) override;
  bool returns_text() const override { return false; }

 private:
  struct Impl;
  explicit ClusterClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dps
