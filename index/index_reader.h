// An opened index: its MANIFEST, one Tablet per bin range and the global
// index. Immutable after Open and safe to share between threads; a later
// commit is seen by opening the index again.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/bm25.h"
#include "index/global_index.h"
#include "index/bm25.h"
#include "index/manifest.h"
#include "index/bm25.h"
#include "index/tablet.h"

namespace dps {

class IndexReader {
 public:
  static Result<std::unique_ptr<IndexReader>> Open(const std::string& dir);

  const Manifest& manifest() const { return manifest_; }
  const std::string& dir() const { return dir_; }
  uint32_t bins() const { return manifest_.bins; }
  size_t tablet_count() const { return tablets_.size(); }
  const Tablet& tablet(size_t i) const { return *tablets_[i]; }
  const Tablet& TabletOf(BinId bin) const { return *tablets_[manifest_.TabletOf(bin.value)]; }
  // Null when the index has no global index yet (an empty index).
  const GlobalIndexReader* global() const { return global_.get(); }
  // BM25's index-wide N and token total: every stored document of every
  // file (deleted or replaced ones too, until compaction drops them), so
  // every coordinator and server of this generation scores alike.
  const CollectionStats& collection_stats() const { return stats_; }
  // The term's live postings in `bin` (global lookup, then the tablet's
  // files); null when the bin has none.
  Result<std::unique_ptr<TermIterator>> OpenTerm(BinId bin, std::string_view term) const;

 private:
  IndexReader() = default;
  std::string dir_;
  Manifest manifest_;
  std::vector<std::unique_ptr<Tablet>> tablets_;
  std::unique_ptr<GlobalIndexReader> global_;
  CollectionStats stats_;
};

}  // namespace dps
