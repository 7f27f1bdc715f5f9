// The one searcher interface (xapian's LocalSubMatch / RemoteSubMatch):
// `query`, batch mode and `bench` run a query tree through a Searcher and
// cannot tell whether the bins are in this process (Coordinator) or behind
// shard servers (ClusterClient). Results stream to the sink one bin at a
// time, unordered across bins (or in bin order when asked: paging), docids
// ascending within a bin.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/analyzer_spec.h"
#include "index/bm25.h"
#include "index/prefix_expansion.h"
#include "index/query_node.h"
#include "shards/bin_executor.h"

namespace dps {

struct SearchOptions {
  bool count_only = false;
  size_t limit = 0;              // 0: every match
  // Paging: results in (bin, docid) order instead of as bins finish, the
  // first `offset` of them skipped; each bin then evaluates up to
  // offset + limit matches (no shared budget). Ignored when count_only.
  bool ordered = false;
  size_t offset = 0;
  // Ranked (issue 18): the top_k best by BM25 (after skipping `offset` of
  // them), best first across bins, each with its score in
  // BinResult::scores; delivered once every bin has answered. `limit` and
  // `ordered` do not apply. Ignored when count_only.
  size_t top_k = 0;
  Bm25Params bm25;
  // Ranked: score every match, pruning nothing (tests compare the two).
  bool exhaustive = false;
  Fetch fetch = Fetch::kNone;    // ignored when count_only
  // Prefixes (`netw*`) may expand to this many terms in all; a query past
  // it is refused (InvalidArgument with the count it would need), never
  // cut short (index/prefix_expansion.h). Over a cluster each server
  // expands with this cap against the same global index.
  uint64_t max_expansions = kDefaultMaxExpansions;
  // In-process, an untimed query reads no clock (stats then hold counts
  // only): batch counting, where a 4 us query spent 3% in clock reads.
  bool timed = true;
};

struct BinTiming {
  uint32_t bin = 0;
  uint32_t tablet = 0;
  double queue_wait_us = 0;  // from fan-out (or the server's receipt) to the bin's start
  double service_us = 0;     // the bin's evaluation and fetch
  uint64_t results = 0;
  bool fast_path = false;
};

struct SearchStats {
  double total_us = 0;
  double ttfr_us = -1;       // first result delivered; -1 if none
  double ttlr_us = -1;       // last result delivered
  int64_t last_tablet = -1;  // the tablet whose bin finished last
  uint64_t results = 0;
  uint64_t bins_visited = 0;
  bool cancelled = false;    // stopped early by the limit or the sink
  uint64_t skipped = 0;      // matches passed over by SearchOptions::offset
  std::vector<BinTiming> bins;  // in completion order
  // Over shard servers (zero in-process):
  uint64_t requests = 0;     // Query frames sent (hedges and failovers included)
  uint64_t hedged = 0;       // second requests sent because the first was slow
  uint64_t failovers = 0;    // requests re-sent after a server failed
  // Tied requests (--tied): pairs sent, twins cancelled because the other
  // started first, and twins seen to start although cancelled (their work
  // duplicated; one whose Started arrives after the query ended is missed).
  uint64_t tied = 0, tied_cancelled = 0, tied_both_started = 0;
  // Bins a server ran to their end whose answer went unused: the other
  // replica's came first (a hedge, a tied twin), or the request had been
  // cancelled when it arrived. The work replicas cost, in bins.
  uint64_t wasted_bins = 0;
  std::vector<std::string> asked;  // each request's server, in sending order
  // Over servers: the index generations whose answers were used,
  // ascending, once each (issue 22: servers follow their index; one
  // generation with ClusterOptions::consistent). Empty in-process (one
  // generation, the index's: batch counting allocates nothing per query).
  std::vector<uint64_t> generations;
  bool partial = false;      // some tablets did not answer (deadline or no replica left)
  std::vector<std::string> missing;  // "first-last" tablet ranges without a complete answer
};

// Receives one bin's results; returns false to stop the query (like a limit).
using ResultSink = std::function<bool(const BinResult& bin)>;

class Searcher {
 public:
  virtual ~Searcher() = default;
  // Runs one query; `stats` may be null. InvalidArgument for a query the index cannot run; partial
  // answers over servers are flagged in *stats, not an error.
  // The query is taken by value: pass an rvalue to save a copy.
  virtual Status Run(QueryNode query, const SearchOptions& options, const ResultSink& sink,
                     SearchStats* stats) = 0;
  // Whether Fetch::kSnippet returns snippets (both searchers do; a
  // searcher over an index without stored text returns empty ones).
  virtual bool returns_text() const = 0;
  // The analyzer of the index searched (its MANIFEST's, or the servers'
  // Welcome's): queries must be analyzed with it to find its terms.
  virtual const AnalyzerSpec& analyzer_spec() const = 0;
  // The index's fields (title, then the declared ones): the parser reads
  // NAME:word for these.
  virtual const FieldSet& fields() const = 0;
};

}  // namespace dps
