// Evaluates one bin of a plan over the tablet holding it, with the index
// core's iterators: the no-virtual-call intersection kernel when the bin
// allows it (a conjunction of terms whose postings all sit in one file of
// the bin, nothing deleted there), the iterator tree otherwise. Stateless
// and thread-safe: any number of bins may be evaluated concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "common/status.h"
#include "index/query_plan.h"
#include "index/tablet.h"

namespace dps {

struct BinQuery {
  BinId bin;
  const QueryPlan* plan = nullptr;
  bool count_only = false;
  size_t limit = 0;  // stop after this many docids (0: all)
  const std::atomic<bool>* cancel = nullptr;  // checked every few thousand docids
  // Ranking wants each match's phrase occurrences: the fast path, which
  // finds them anyway, hands them over (BinMatches::phrase_occurrences).
  bool phrase_occurrences = false;
};

struct BinMatches {
  std::vector<DocId> docs;  // ascending; empty when count_only
  uint64_t count = 0;
  bool fast_path = false;  // evaluated by the kernel, not the iterator tree
  bool cancelled = false;  // stopped by `cancel`: not every match was seen
  bool limited = false;    // the bin holds more matches than the query's limit let through
  // When asked and the fast path found them: per plan phrase, each of
  // docs' occurrences of it (its tf). Empty otherwise.
  std::vector<std::vector<uint32_t>> phrase_occurrences;
};

// REQUIRES: tablet.HoldsBin(query.bin), query.plan the plan of this index.
Status SearchBin(const Tablet& tablet, const BinQuery& query, BinMatches* out);

}  // namespace dps
