// Tablet assignment (`serve --zookeeper ... --assign`), as Accumulo's
// manager assigns tablets to live tablet servers: which servers answer for
// which tablets so that each has R replicas. The plan is a pure function of
// the last plan and the live servers, so that the manager (assigner.h) can
// be any server and a new one continues its predecessor's plan; and it
// moves little: a tablet keeps the live servers it had, a dead server's
// tablets go to the least loaded servers, and tablets move from the most
// to the least loaded (a server that joins takes its share this way) until
// loads differ by at most one.
//
// The assignment node's data (docs/PROTOCOL.md "ZooKeeper: assignment"):
// `dpsearch-assignment 1`, `replicas R`, `tablets T`, then one line per
// tablet, `tablet N ADDRESS...`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/server_record.h"
#include "common/status.h"

namespace dps {

inline constexpr int kAssignmentVersion = 1;

struct Assignment {
  uint32_t replicas = 0;
  std::vector<std::vector<std::string>> servers;  // by tablet: its servers, sorted
  bool operator==(const Assignment&) const = default;
  // The tablets `address` is assigned, as spans.
  std::vector<TabletSpan> TabletsOf(const std::string& address) const;
};

// The next plan for `tablets` tablets with `replicas` each (at most the
// number of live servers) over `live` (addresses), from `previous` (empty
// when there is none or it was for another tablet count).
Assignment PlanAssignment(const Assignment& previous, const std::vector<std::string>& live, uint32_t tablets,
                          uint32_t replicas);

std::string EncodeAssignment(const Assignment& a);
// Corruption naming the line for anything else.
Result<Assignment> DecodeAssignment(const std::string& data);

}  // namespace dps
