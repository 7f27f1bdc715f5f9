// `serve --zookeeper ... --assign`: the servers of one index divide its
// tablets among themselves so that each tablet has R live replicas, the
// way Accumulo's manager assigns tablets to live tablet servers, with
// ZooKeeper's primitives only:
//
// - Leader election (the ZooKeeper recipe): each server creates an
//   ephemeral sequential node PATH/manager/candidate-N holding its address;
//   the lowest N is the manager. A manager that dies loses its node with its
//   session and the next one takes over. The candidates are also the
//   servers that take part in the assignment.
// - The manager writes the plan (assignment.h) to the persistent node
//   PATH/assignment whenever the candidates, PATH/replicas or the plan
//   change; it plans from the previous plan, so a tablet moves only when
//   its server died or the load is rebalanced.
// - Every server watches PATH/assignment and advertises the tablets it is
//   given (ServerRegistration::UpdateHosted); coordinators only ask a
//   server for what it advertises.
//
// Why a leader rather than per-tablet locks: one writer makes the plan a
// pure function (tested apart from ZooKeeper) and lets it rebalance, which
// servers claiming tablets on their own cannot do without a protocol of
// their own; and every server can answer every tablet of the index it
// opened, so a plan in flight is never a wrong answer, only a moment with a
// tablet advertised by more or fewer servers. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cluster/assignment.h"
#include "cluster/zk_session.h"

namespace dps {

struct AssignerOptions {
  std::string path;     // the cluster's PATH
  std::string address;  // this server's, as registered
  uint32_t tablets = 0;  // of the index it opened
  // > 0: written to PATH/replicas (the cluster's R); 0: R is read from
  // there (1 when no server ever wrote it).
  uint32_t replicas = 0;
  // This server's tablets changed (the session's thread).
  std::function<void(const std::vector<TabletSpan>&)> on_assigned;
  std::function<void(const std::string&)> log;
};

class TabletAssigner {
 public:
  // REQUIRES: `session` outlives the assigner's use of it.
  TabletAssigner(ZkSession* session, AssignerOptions options);
  bool manager() const;  // this server is the manager now

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace dps
