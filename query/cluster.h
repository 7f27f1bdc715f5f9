// The coordinator over the network: fans a query out to `dpsearch serve`
// processes listed in a cluster file (DESIGN.md "Cluster file"), streams
// each bin's results to the caller as they arrive, and fights stragglers:
// a deadline returns what has arrived and names the missing tablets;
// replicas give failover when a server dies or answers garbage; hedging
// sends a second request to another replica when the first is slow (Dean
// and Barroso, "The Tail at Scale", CACM 2013) and keeps whichever bin
// answer lands first.
//
// One network thread (Boost.Asio) owns every socket; the caller's thread
// runs Run() and receives results. One Run at a time per client.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/query_node.h"
#include "query/coordinator.h"
#include "shards/protocol.h"

namespace dps {

struct ClusterRange {
  uint32_t first_tablet = 0, last_tablet = 0;
  std::vector<std::string> replicas;  // host:port, tried in this order
};

// Parses a cluster file: `FIRST-LAST HOST:PORT...` (or a single tablet
// number) per line, `#` comments. Errors name the file and line.
Result<std::vector<ClusterRange>> ReadClusterFile(const std::string& path);

struct ClusterOptions {
  std::string token;
  uint32_t deadline_ms = 0;        // 0: wait for every tablet
  double hedge_after_ms = 0;       // > 0: hedge after this fixed delay
  double hedge_percentile = 0;     // > 0: hedge after this percentile of recent latencies
  uint32_t connect_timeout_ms = 2000;
};

// One bin's results as they arrive from a server.
struct RemoteBin {
  uint32_t bin = 0, tablet = 0;
  uint64_t count = 0;
  std::vector<RemoteDoc> docs;  // empty when counting
};

struct ClusterStats {
  QueryStats query;           // per-bin timing as the servers measured it
  uint64_t requests = 0;      // Query frames sent (hedges and failovers included)
  uint64_t hedged = 0;        // second requests sent because the first was slow
  uint64_t failovers = 0;     // requests re-sent after a server failed
  bool partial = false;       // some tablets did not answer (deadline or no replica left)
  std::vector<std::string> missing;  // "first-last" tablet ranges without a complete answer
};

class ClusterClient {
 public:
  // Connects to every server and checks they serve one index (same id,
  // generation, bins, tablets) and host their ranges. Unreachable servers
  // are reported as warnings on stderr and tried again when needed; at
  // least one must answer.
  static Result<std::unique_ptr<ClusterClient>> Connect(std::vector<ClusterRange> ranges,
                                                        ClusterOptions options);
  ~ClusterClient();

  using Sink = std::function<bool(const RemoteBin& bin)>;  // false: stop
  // InvalidArgument for a query every server refuses; IOError only when
  // nothing at all could be asked. Partial answers are flagged in *stats
  // (which may be null when the caller does not want them).
  Status Run(const QueryNode& root, bool count_only, size_t limit, const Sink& sink,
             ClusterStats* stats);

 private:
  struct Impl;
  explicit ClusterClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dps
