// The MANIFEST: which files are live in each tablet, and the index's shape.
// A small text file (readable with cat, diffable) ending in a checksum line;
// replaced atomically (temp + fsync + rename + fsync dir) so a crash leaves
// the previous or the new index, never a mix. Layout: docs/FORMAT.md
// ("MANIFEST").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/analyzer_spec.h"
#include "index/field_key.h"
#include "index/types.h"

namespace dps {

// 2 added `analyzer`, 3 `fields`; older versions are refused (re-ingest).
inline constexpr uint32_t kManifestVersion = 3;
inline constexpr const char* kManifestName = "MANIFEST";

struct TabletEntry {
  uint32_t first_bin = 0;  // inclusive
  uint32_t last_bin = 0;   // inclusive
  std::vector<std::string> files;  // oldest first: docids grow along this order
};

struct Manifest {
  std::string index_id;   // 32 hex digits, fixed at creation; servers check it
  uint64_t generation = 0;  // incremented by every commit
  uint32_t bins = 0;
  bool store_text = true;
  AnalyzerSpec analyzer;  // fixed at creation; queries are analyzed with it
  // Word positions are indexed (phrases can be answered); fixed at creation.
  bool positions = false;
  // The fields declared at creation (`ingest --field`), none by default.
  FieldSet fields;
  uint64_t next_file_number = 1;
  std::string global_index;  // file name of the global index, empty if none
  std::vector<TabletEntry> tablets;  // contiguous, ascending bin ranges covering [0, bins)

  std::string Encode() const;
  // `path` names the file in errors (line numbers are 1-based).
  static Result<Manifest> Decode(const std::string& text, const std::string& path);
  // Tablet index holding `bin`.
  size_t TabletOf(uint32_t bin) const;
};

// The bin a document lives in: a stable hash of its external id (DESIGN.md),
// so re-ingesting an id lands where the old document is. Every writer
// places documents with this one function.
BinId BinOfId(std::string_view id, uint32_t bins);

// Reads DIR/MANIFEST. NotFound if the index does not exist.
Result<Manifest> ReadManifest(const std::string& dir);
// Atomically replaces DIR/MANIFEST.
Status WriteManifest(const std::string& dir, const Manifest& manifest);

// Splits [0, bins) into `tablets` contiguous ranges of near-equal size.
std::vector<TabletEntry> SplitBins(uint32_t bins, uint32_t tablets);

}  // namespace dps
