// Ordered delivery for paging (`--offset`): results in (bin, docid) order,
// the first `skip` of them dropped, so page 2 of a query never repeats or
// misses a result of page 1 however the bins' finishing order varies.
// Bins arrive in any order and wait here (ids only; the in-process
// coordinator fetches after this) until every bin before them is out.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "index/manifest.h"
#include "shards/bin_executor.h"

namespace dps {

class BinOrder {
 public:
  // `bins`: the query's bins, ascending.
  BinOrder(const std::vector<BinId>& bins, uint64_t skip);

  // Takes a finished bin of the query.
  void Add(BinResult result);
  // The next bin in order, its first results dropped while the skip lasts
  // (a bin wholly skipped comes out with count 0); false when the next bin
  // has not arrived yet.
  bool Next(BinResult* out);
  // The lowest bin still waiting, whether or not the bins before it came
  // (a cluster's client does not know which bins a query touches: it
  // drains once every server has answered); false when none waits.
  bool Drain(BinResult* out);
  // Results dropped so far by the skip.
  uint64_t skipped() const { return skipped_; }

 private:
  std::vector<BinId> bins_;
  size_t next_ = 0;
  uint64_t skip_left_;
  uint64_t skipped_ = 0;
  std::map<uint32_t, BinResult> waiting_;  // by bin
  void Skip(BinResult* out);
};

}  // namespace dps
