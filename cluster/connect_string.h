// `--zookeeper HOST:PORT[,HOST:PORT...]/PATH`: the ZooKeeper ensemble and
// the node under which one dpsearch cluster keeps its state
// (docs/PROTOCOL.md "ZooKeeper").
#pragma once

#include <string>

#include "common/status.h"

namespace dps {

struct ZkAddress {
  std::string hosts;  // "HOST:PORT,HOST:PORT", as the ZooKeeper client takes it
  std::string path;   // "/a/b": absolute, no trailing '/', not the root
};

// InvalidArgument naming the text and what is wrong: no hosts, a host
// without a port, a port outside 1-65535, no PATH, PATH "/" or with an
// empty, "." or ".." component.
Result<ZkAddress> ParseZkAddress(const std::string& text);

}  // namespace dps
