#include "tests/testing/zookeeper_server.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace dps::testing {

namespace {

// Runs tests/testing/zookeeper.sh ARGS; its stdout in *out, its exit status returned.
int Script(const std::string& args, std::string* out) {
  const std::string command = "bash " DPS_SOURCE_DIR "/tests/testing/zookeeper.sh " + args;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[256];
  if (out) out->clear();
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    if (out) *out += buffer;
  }
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::unique_ptr<ZooKeeperServer> ZooKeeperServer::Start(bool* skip) {
  *skip = false;
  char dir[] = "/tmp/dps_zk_XXXXXX";
  if (::mkdtemp(dir) == nullptr) return nullptr;
  std::unique_ptr<ZooKeeperServer> zk(new ZooKeeperServer());
  zk->dir_ = dir;
  std::string port;
  const int rc = Script("start " + zk->dir_, &port);
  if (rc != 0) {
    *skip = rc == 77;
    return nullptr;
  }
  while (!port.empty() && (port.back() == '\n')) port.pop_back();
  zk->hosts_ = "127.0.0.1:" + port;
  return zk;
}

ZooKeeperServer::~ZooKeeperServer() {
  Stop();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

bool ZooKeeperServer::Stop() { return Script("stop " + dir_, nullptr) == 0; }
bool ZooKeeperServer::Restart() { return Script("restart " + dir_, nullptr) == 0; }
bool ZooKeeperServer::Wipe() { return Script("wipe " + dir_, nullptr) == 0; }

}  // namespace dps::testing
