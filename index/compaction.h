// Major compaction (Accumulo's term): rewrite a tablet's files into one,
// dropping deleted documents and their postings, so reads touch one file
// and tombstones stop costing. Docids are kept (they stay unique and
// ascending within each bin), so nothing else needs rewriting.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "index/index_writer.h"

namespace dps {

struct CompactionStats {
  uint64_t tablets = 0;
  uint64_t files_in = 0;
  uint64_t bytes_in = 0;
  uint64_t bytes_out = 0;
  uint64_t documents_dropped = 0;
};

// Compacts all files of tablet `t` into one (a no-op for a tablet of at most
// one file without tombstones).
Status CompactTablet(IndexWriter* writer, size_t t, CompactionStats* stats);

// Merges the newest files [first, end) of tablet `t` into one. Tombstones
// of those files that hit older files are carried over.
Status CompactTabletSuffix(IndexWriter* writer, size_t t, size_t first, CompactionStats* stats);

// The rule ingest applies after each commit, after Accumulo's compaction
// ratio: merge the longest run of newest files whose largest file holds at
// most 1/kCompactionRatio of the run's bytes. Appends of similar size then
// merge in a binary-counter pattern, so a tablet keeps O(log n) files.
// Also: everything when a tablet has more than kMaxFilesPerTablet files or
// tombstones cover more than a quarter of its stored documents.
inline constexpr double kCompactionRatio = 3.0;
inline constexpr size_t kMaxFilesPerTablet = 16;
// The first file of the run to merge, or files().size() for none.
size_t FilesToCompact(const Tablet& tablet);

// Applies the rule to every tablet.
Status CompactWhereNeeded(IndexWriter* writer, CompactionStats* stats);

}  // namespace dps
