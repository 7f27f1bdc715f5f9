// Whole-index verification (`dpsearch check`): the MANIFEST, every page of
// every live file, a full walk of every tablet's entries in key order (which
// decodes every posting and weight block), every stored document, and the
// global index's entries. Stops at the first problem and names it.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace dps {

struct CheckReport {
  uint64_t files = 0;
  uint64_t bytes = 0;
  uint64_t pages = 0;
  uint64_t entries = 0;    // live (bin, term, docid) entries
  uint64_t documents = 0;  // stored, including deleted ones not yet compacted
  uint64_t terms = 0;      // global index terms
};

Status CheckIndex(const std::string& dir, CheckReport* report);

}  // namespace dps
