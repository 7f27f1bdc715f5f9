// `query|bench --zookeeper HOSTS/PATH`: a cluster whose servers and
// replicas come from ZooKeeper (the servers' nodes under PATH/servers,
// docs/PROTOCOL.md "ZooKeeper") instead of a cluster file. One session and
// one watch per backend turn the nodes into ranges (discovered_ranges.h)
// published on a RangeFeed; every searcher it hands out is a ClusterClient
// over that feed, so the fan-out, failover, hedging, replica selection and
// deadlines are the cluster file's. ZooKeeper is off the query path: a
// query reads the last view, kept while ZooKeeper is unreachable.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "query/cluster_client.h"
#include "query/search_backend.h"

namespace dps {

// Connects (at most `timeout_ms` for the session and the first read of the
// servers) and fails with one line when ZooKeeper does not answer or no
// server is registered. `options` are the fan-out's, as for a cluster file.
Result<std::unique_ptr<SearchBackend>> OpenZooKeeperBackend(const std::string& zookeeper, uint32_t session_timeout_ms,
                                                            uint32_t timeout_ms, ClusterOptions options);

}  // namespace dps
