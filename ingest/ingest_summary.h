// The one-line summary `dpsearch ingest` prints when it is done, written
// here so its wording (counts with their nouns in singular or plural) is
// tested with the library and the CLI only prints it.
#pragma once

#include <string>

#include "ingest/ingest.h"

namespace dps {

// For example
//   ingested 1 document (0 replaced, 2 skipped), 3 invalid UTF-8 sequences
//   replaced, 0.1 MB in 0.02 s, 5.0 MB/s, 12 postings, 0 runs spilled,
//   index 0.0 MB
// (one line, no newline). The invalid UTF-8 part appears only when some
// were replaced: a clean input's line stays as short as before.
std::string FormatIngestSummary(const IngestStats& stats);

}  // namespace dps
