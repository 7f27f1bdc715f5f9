// What `Ingest` checks before it touches the index directory: a user who
// mistypes an input or a flag gets a one-line error and no half-made index
// (a first ingest failing later is undone by IndexWriter::AbandonNewIndex).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "index/manifest.h"
#include "ingest/ingest.h"

namespace dps {

// Bins of a new index: at most this many (each bin costs buffers at ingest
// and a dictionary lookup per query term; DESIGN.md's largest layout is far
// below it).
inline constexpr uint32_t kMaxBins = 65536;

// InvalidArgument for a shape no index can have (bins or tablets out of
// range, more tablets than bins), an analyzer no index can have (options
// that do not go together, a stemmer libstemmer lacks) and for an input
// that does not exist.
Status CheckIngestRequest(const std::vector<std::string>& inputs, const IngestOptions& options);

// InvalidArgument when an explicitly requested shape differs from the
// existing index's (bins, tablets, text storage and the analyzer are fixed
// at creation).
Status CheckShapeMatches(const std::string& index_dir, const Manifest& existing,
                         const IngestOptions& options);

}  // namespace dps
