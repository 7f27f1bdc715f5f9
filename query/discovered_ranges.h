// The cluster file a set of registered servers amounts to: the tablets
// are cut at every boundary of a server's hosted spans, each piece's
// replicas are the servers hosting all of it, and neighbouring pieces with
// the same replicas are joined. Replicas are listed by address (the
// adaptive selector ranks them; `--replica-policy first` asks in this
// order). Servers of different indexes are all listed: the client's roster
// keeps to the index most of them serve, as with a cluster file.
#pragma once

#include <vector>

#include "cluster/server_record.h"
#include "query/cluster_file.h"

namespace dps {

std::vector<ClusterRange> RangesOfServers(const std::vector<ServerRecord>& servers);

// `next`, with the tablets it leaves uncovered given the replicas they had
// in `last`: a tablet no server advertises any more keeps being asked of
// its last servers (which fail over, or make the answer partial, as dead
// servers of a cluster file do) until a server hosts it again. So a moment
// without a registration (a server re-registering after its session
// expired, ZooKeeper restarting) never turns an answer partial, while a
// tablet that really lost its servers is still reported missing.
std::vector<ClusterRange> KeepUncovered(const std::vector<ClusterRange>& next, const std::vector<ClusterRange>& last);

}  // namespace dps
