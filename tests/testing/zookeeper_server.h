// A real ZooKeeper for GoogleTest fixtures: tests/testing/zookeeper.sh
// run from C++ (one standalone server on 127.0.0.1, a free port, its own
// temporary directory, removed at the end).
#pragma once

#include <memory>
#include <string>

namespace dps::testing {

class ZooKeeperServer {
 public:
  // Starts one and waits until it answers. nullptr when ZooKeeper or Java
  // is not installed (the script's exit 77; then *skip is true and the
  // caller GTEST_SKIPs; under CI=true the script fails instead) or it did
  // not start (*skip false: a failure).
  static std::unique_ptr<ZooKeeperServer> Start(bool* skip);
  ~ZooKeeperServer();  // stops it and removes its directory

  const std::string& hosts() const { return hosts_; }  // "127.0.0.1:PORT"
  bool Stop();
  bool Restart();  // same port and data: sessions may outlive it
  bool Wipe();     // same port, data deleted: every session is expired

 private:
  ZooKeeperServer() = default;
  std::string dir_, hosts_;
};

}  // namespace dps::testing
