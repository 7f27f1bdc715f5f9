// Index statistics behind `dpsearch stats`: documents, terms and postings,
// bytes per tablet and per file, bin skew, the most frequent terms.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "index/index_reader.h"

namespace dps {

struct FileStats {
  std::string name;
  uint64_t bytes = 0;
  uint64_t documents = 0;  // stored in this file
  uint64_t postings = 0;
  uint64_t tombstones = 0;
};

struct TabletStats {
  uint32_t first_bin = 0, last_bin = 0;
  uint64_t live_documents = 0;
  uint64_t bytes = 0;
  std::vector<FileStats> files;
};

struct IndexStats {
  uint64_t live_documents = 0;
  uint64_t stored_documents = 0;  // including deleted ones awaiting compaction
  uint64_t terms = 0;             // distinct, from the global index
  uint64_t postings = 0;          // including those of deleted documents
  uint64_t bytes = 0;             // tablet files + global index
  uint64_t global_index_bytes = 0;
  std::vector<TabletStats> tablets;
  std::vector<uint64_t> bin_documents;  // live documents per bin
  double bin_skew = 0;                  // largest / median bin (0 if empty)
  std::vector<std::pair<std::string, uint64_t>> top_terms;  // bare terms by df, descending
  // Each field (index/field_key.h), in the MANIFEST's order: its stored
  // documents with a length above 0 in it (deleted ones too, until
  // compaction), their tokens in it, its distinct terms and its postings.
  struct FieldStats {
    std::string name;
    uint64_t documents = 0, tokens = 0, terms = 0, postings = 0;
  };
  std::vector<FieldStats> fields;
};

Status ComputeIndexStats(const IndexReader& index, size_t top_terms, IndexStats* stats);

}  // namespace dps
