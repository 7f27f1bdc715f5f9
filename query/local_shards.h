// Replicas in this process (`--index DIR --replicas R`): R copies of an
// opened index, each a shard server without sockets (shards/server_query.h
// on a network thread of its own, all of them sharing one worker pool),
// each with its own injected delays. A cluster client reaches them through LocalLinks, so
// replica selection, hedging, tied requests and deadlines run the very
// code they run over shard servers (query/cluster_fanout.h), and a
// degraded replica can be studied on one machine without the network's
// noise. The replicas share the index's mapped files, and all of them
// host every tablet: one range, R replicas, named "local/0".."local/R-1".
//
// Thread-safety: Link and SetDelays may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/index_reader.h"
#include "query/cluster_file.h"
#include "query/cluster_link.h"
#include "shards/delay.h"

namespace dps {

class LocalShards {
 public:
  // `delays[r]`: replica r's rules (missing: none). `workers`: evaluation
  // threads shared by the replicas (0: all cores). The index is kept open
  // as long as this is (clients hold it through ClusterOptions::local).
  static Result<std::shared_ptr<LocalShards>> Start(std::shared_ptr<const IndexReader> index, size_t replicas, unsigned workers,
                                                    const std::vector<std::vector<DelayRule>>& delays,
                                                    uint64_t seed);
  ~LocalShards();

  // The cluster a client asks: one range over every tablet, each replica.
  const std::vector<ClusterRange>& ranges() const;
  // A link to replica `address` (one of the ranges' replicas) delivering
  // to `context`'s queue; null for an address not served here.
  std::shared_ptr<Link> NewLink(const LinkContext* context, const std::string& address);
  // Replaces replica r's delay rules for requests that arrive from now on
  // (a degraded replica recovering, in tests).
  void SetDelays(size_t replica, std::vector<DelayRule> rules, uint64_t seed);
  // Requests the replicas are running or holding (not yet Done).
  size_t requests_in_flight() const;

  struct Impl;

 private:
  explicit LocalShards(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dps
