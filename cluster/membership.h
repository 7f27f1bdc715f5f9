// A shard server in a ZooKeeper cluster (`dpsearch serve --zookeeper`):
// its session and its registration, owned together so that the node goes
// when the server stops. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cluster/assigner.h"
#include "cluster/registration.h"
#include "cluster/zk_session.h"

namespace dps {

class ServerMembership {
 public:
  // Parses `zookeeper` (HOST:PORT[,...]/PATH: InvalidArgument), connects,
  // and registers `record`, waiting at most `wait_ms` for the node to be
  // written: IOError naming the ensemble when it is not (a server that
  // cannot join its cluster says so at start rather than serve unseen).
  static Result<std::unique_ptr<ServerMembership>> Join(const std::string& zookeeper, uint32_t session_ms,
                                                        uint32_t wait_ms, ServerRecord record,
                                                        std::function<void(const std::string&)> log);
  ~ServerMembership();  // closes the session: the node goes at once

  // Takes part in tablet assignment (assigner.h): the tablets advertised
  // become those the manager's plan gives this server. `replicas` > 0
  // sets the cluster's R. REQUIRES: called once, after Join.
  void StartAssigner(uint32_t tablets, uint32_t replicas, std::function<void(const std::string&)> log);

  // The hook for a server that opens a new index generation: the node's
  // generation becomes `g`.
  void UpdateGeneration(uint64_t g) { registration_->UpdateGeneration(g); }
  ServerRegistration& registration() { return *registration_; }
  ZkSession& session() { return *session_; }
  const std::string& path() const { return path_; }

 private:
  ServerMembership() = default;
  std::string path_;
  std::unique_ptr<ZkSession> session_;
  std::unique_ptr<ServerRegistration> registration_;
  std::unique_ptr<TabletAssigner> assigner_;
};

}  // namespace dps
