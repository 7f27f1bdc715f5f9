// The tablet ranges and replicas of a live cluster, as its membership
// (ZooKeeper, query/zookeeper_backend.h) last described them: published by
// the watch, read by every ClusterClient at the start of a query. Reading
// the version is one atomic load, so a query costs no ZooKeeper round trip
// and no lock unless the cluster changed. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "query/cluster_file.h"

namespace dps {

class RangeFeed {
 public:
  struct Snapshot {
    uint64_t version = 0;
    std::vector<ClusterRange> ranges;  // as a cluster file's: ascending, disjoint
  };
  void Publish(std::vector<ClusterRange> ranges) {
    auto next = std::make_shared<Snapshot>();
    next->ranges = std::move(ranges);
    std::lock_guard<std::mutex> lock(mu_);
    next->version = snapshot_ ? snapshot_->version + 1 : 1;
    snapshot_ = std::move(next);
    version_.store(snapshot_->version);
  }
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  // nullptr before the first Publish.
  std::shared_ptr<const Snapshot> snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return snapshot_;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const Snapshot> snapshot_;
  std::atomic<uint64_t> version_{0};
};

}  // namespace dps
