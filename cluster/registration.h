// A shard server's membership: its ephemeral node PATH/servers/ADDRESS
// holding its ServerRecord (docs/PROTOCOL.md "ZooKeeper"), as Accumulo's
// tablet servers keep a lock node in ZooKeeper. The node lives as long as
// the server's session: a server that dies is gone after the session
// timeout. A task on the session keeps it in place: after an expiry (or a
// ZooKeeper that lost it) it is created again, a stale node of an earlier
// session at the same address is replaced, and a changed record is
// written. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/server_record.h"
#include "cluster/zk_session.h"

namespace dps {

class ServerRegistration {
 public:
  // REQUIRES: `session` outlives the registration's use of it (the task
  // holds only shared state, so destroying either first is safe).
  ServerRegistration(ZkSession* session, std::string path, ServerRecord record);

  // The server now answers from generation `g`: rewrites the node's data
  // (the coordinators' watch sees it). Returns at once; the write follows.
  void UpdateGeneration(uint64_t g);
  // The server now advertises these tablets (assignment).
  void UpdateHosted(std::vector<TabletSpan> hosted);
  ServerRecord record() const;
  // True once the node holds the current record, false after `timeout_ms`.
  bool WaitRegistered(uint32_t timeout_ms) const;
  // PATH/servers/ADDRESS.
  static std::string NodePath(const std::string& path, const std::string& address);

 private:
  struct State;
  ZkSession* session_;
  std::shared_ptr<State> state_;
};

}  // namespace dps
