#include "ingest/ingest_request.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/file.h"
#include "ingest/stemmer.h"

namespace dps {

namespace {
std::string Plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}
}  // namespace

Status CheckIngestRequest(const std::vector<std::string>& inputs, const IngestOptions& options) {
  const IndexOptions& shape = options.index;
  if (shape.bins < 1 || shape.bins > kMaxBins) {
    return Status::InvalidArgument("--bins " + std::to_string(shape.bins) + ": must be 1 to " +
                                   std::to_string(kMaxBins));
  }
  if (shape.tablets < 1 || shape.tablets > shape.bins) {
    return Status::InvalidArgument("--tablets " + std::to_string(shape.tablets) +
                                   ": must be 1 to the number of bins (" + std::to_string(shape.bins) +
                                   "); a tablet holds whole bins");
  }
  DPS_RETURN_IF_ERROR(shape.analyzer.Validate());
  if (!shape.analyzer.stem.empty()) DPS_RETURN_IF_ERROR(Stemmer::CheckLanguage(shape.analyzer.stem));
  if (inputs.empty()) return Status::InvalidArgument("ingest: no input given");
  for (const auto& input : inputs) {
    if (input == "-") continue;
    // A missing or unreadable input (ENOENT, EACCES) is the user's input error.
    if (access(input.c_str(), R_OK) != 0) return Status::InvalidArgument(input + ": " + std::strerror(errno));
  }
  return Status::OK();
}

Status CheckShapeMatches(const std::string& index_dir, const Manifest& existing, const IngestOptions& options) {
  const std::string fixed = " (fixed when the index was created)";
  if (options.bins_set && options.index.bins != existing.bins) {
    return Status::InvalidArgument("--bins " + std::to_string(options.index.bins) + ": the index at " +
                                   index_dir + " has " + Plural(existing.bins, "bin", "bins") + fixed);
  }
  if (options.tablets_set && options.index.tablets != existing.tablets.size()) {
    return Status::InvalidArgument("--tablets " + std::to_string(options.index.tablets) + ": the index at " +
                                   index_dir + " has " +
                                   Plural(existing.tablets.size(), "tablet", "tablets") + fixed);
  }
  if (options.store_text_set && options.index.store_text != existing.store_text) {
    return Status::InvalidArgument(
        std::string(options.index.store_text ? "storing text" : "--no-store-text") + ": the index at " +
        index_dir + (existing.store_text ? " stores document text" : " does not store document text") + fixed);
  }
  // Terms of two analyzers in one index would answer neither's queries.
  if (options.analyzer_set && options.index.analyzer != existing.analyzer) {
    return Status::InvalidArgument("analyzer '" + options.index.analyzer.ToString() + "': the index at " +
                                   index_dir + " uses analyzer '" + existing.analyzer.ToString() + "'" + fixed +
                                   "; without analyzer flags ingest uses it");
  }
  if (options.fields_set && !(options.index.fields == existing.fields)) {
    return Status::InvalidArgument("--field: the index at " + index_dir + " has the fields " + existing.fields.List() +
                                   fixed + "; without --field ingest uses them");
  }
  if (options.positions_set && options.index.positions != existing.positions) {
    return Status::InvalidArgument(
        std::string(options.index.positions ? "indexing positions" : "--no-positions") + ": the index at " +
        index_dir + (existing.positions ? " has word positions" : " has no word positions") + fixed);
  }
  return Status::OK();
}

}  // namespace dps
