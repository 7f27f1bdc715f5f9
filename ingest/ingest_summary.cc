#include "ingest/ingest_summary.h"

#include <cstdio>

namespace dps {

namespace {

// "1 document", "0 documents", "2 documents".
std::string Count(uint64_t n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

}  // namespace

std::string FormatIngestSummary(const IngestStats& stats) {
  std::string line = "ingested " + Count(stats.documents, "document", "documents") + " (" +
                     std::to_string(stats.replaced) + " replaced, " +
                     std::to_string(stats.skipped) + " skipped)";
  if (stats.invalid_utf8 > 0) {
    line += ", " +
            Count(stats.invalid_utf8, "invalid UTF-8 sequence", "invalid UTF-8 sequences") +
            " replaced";
  }
  const double mb = static_cast<double>(stats.bytes_read) / 1e6;
  char measured[128];
  std::snprintf(measured, sizeof measured, ", %.1f MB in %.2f s, %.1f MB/s, ", mb, stats.seconds,
                stats.seconds > 0 ? mb / stats.seconds : 0.0);
  char index[64];
  std::snprintf(index, sizeof index, " spilled, index %.1f MB",
                static_cast<double>(stats.index_bytes) / 1e6);
  return line + measured + Count(stats.postings, "posting", "postings") + ", " +
         Count(stats.runs, "run", "runs") + index;
}

}  // namespace dps
