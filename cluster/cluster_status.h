// `dpsearch cluster status --zookeeper ...`: what the servers registered
// under PATH/servers serve, tablet by tablet, and where replication falls
// short: a tablet with fewer live replicas than PATH/replicas asks for
// (assignment), or with none at all. Reading only: it never writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/server_record.h"
#include "common/status.h"

namespace dps {

struct ClusterStatus {
  std::vector<ServerRecord> servers;  // every registered server, by address
  // The index most servers serve, its tablets, and each tablet's servers
  // of that index (servers of another index are listed but count for none).
  std::string index_id;
  uint32_t tablets = 0;
  std::vector<std::vector<std::string>> replicas;  // by tablet
  uint32_t replicas_wanted = 0;  // PATH/replicas; 0 when not set
  // No server, or a tablet with no live replica.
  bool incomplete() const;
  // One line per server, then per run of tablets with the same replicas:
  // their count and addresses, "under-replicated" or "NO LIVE REPLICA".
  std::string Format() const;
};

// The status from a list of servers (what ReadClusterStatus does after
// reading them).
ClusterStatus SummarizeCluster(std::vector<ServerRecord> servers, uint32_t replicas_wanted);

// Connects to `zookeeper` (HOST:PORT[,...]/PATH) and reads the servers and
// the replication asked for; IOError when ZooKeeper does not answer within
// `timeout_ms`.
Result<ClusterStatus> ReadClusterStatus(const std::string& zookeeper, uint32_t timeout_ms);

}  // namespace dps
