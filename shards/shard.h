// A Shard hosts tablets of an opened index and evaluates one bin of a query
// at a time with the index core's iterators. In-process shards are called
// directly by the coordinator's tasks; remote ones (later) sit behind the
// same request/response shapes. Thread-safe: a Shard is immutable and any
// number of bins may be evaluated concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/index_reader.h"
#include "index/query_node.h"

namespace dps {

// What to do in one bin.
struct BinRequest {
  uint32_t bin = 0;
  const QueryNode* root = nullptr;
  // The planner's global entries (required): terms open from their refs.
  const TermTable* terms = nullptr;
  // Set for a conjunction of plain terms: their entries in `terms`, rarest
  // first; the shard may use the no-virtual-call intersection kernel.
  const std::vector<size_t>* and_entries = nullptr;
  bool count_only = false;
  size_t limit = 0;  // stop after this many docids (0: all)
  const std::atomic<bool>* cancel = nullptr;  // checked every few thousand docids
};

struct BinResponse {
  uint32_t bin = 0;
  std::vector<DocId> docs;  // ascending; empty when count_only
  uint64_t count = 0;
  bool fast_path = false;
  bool cancelled = false;
};

class Shard {
 public:
  // Hosts the tablets [first_tablet, last_tablet] of `index` (which must
  // outlive the shard).
  Shard(const IndexReader* index, size_t first_tablet, size_t last_tablet);

  size_t first_tablet() const { return first_tablet_; }
  size_t last_tablet() const { return last_tablet_; }
  Status Search(const BinRequest& request, BinResponse* response) const;

 private:
  const IndexReader* index_;
  size_t first_tablet_, last_tablet_;
};

}  // namespace dps
