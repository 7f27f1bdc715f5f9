// A coordinator's view of the live servers: the records under
// PATH/servers, read again whenever ZooKeeper's watch says a node came,
// went or changed (the Accumulo client's view of the live tablet servers).
// ZooKeeper is off the query path: queries read the last view, which stays
// as it was while ZooKeeper is unreachable. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cluster/server_record.h"
#include "cluster/zk_session.h"

namespace dps {

struct ServerView {
  uint64_t version = 0;  // 0: nothing read yet; grows with every change
  std::vector<ServerRecord> servers;  // by address
};

class ServerWatch {
 public:
  using OnChange = std::function<void(const ServerView&)>;
  // `on_change` (may be empty) runs on the session's thread after each
  // change. REQUIRES: `session` outlives the watch's use of it.
  ServerWatch(ZkSession* session, std::string path, OnChange on_change,
              std::function<void(const std::string&)> log);

  ServerView view() const;
  // True once the servers have been read, false after `timeout_ms`.
  bool WaitForView(uint32_t timeout_ms) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace dps
