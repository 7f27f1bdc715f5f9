// Ranked evaluation of one bin (issue 18): the bin's matches scored with
// BM25 (index/bm25.h) over index-wide statistics, the K best kept in the
// documented order (shards/top_k.h). This first version scores every
// match (exhaustive); block-max pruning will replace the scoring loop and
// must give the same answer (the tests compare both with brute force).
#pragma once

#include <atomic>
#include <vector>

#include "common/status.h"
#include "index/bm25.h"
#include "index/query_plan.h"
#include "index/tablet.h"
#include "shards/top_k.h"

namespace dps {

// What every bin of one ranked query shares: the formula and each positive
// term's idf, in the order scores add them (the plan's `highlight`). A
// field's term scores with its field's statistics and document lengths
// (its column: docs/design/ranking.md "Fields").
struct RankContext {
  explicit RankContext(const QueryPlan& plan, const CollectionStats& stats, Bm25Params params);
  // The context of another query, as the constructor makes it; the vectors
  // keep their room (a searcher reuses one context query after query).
  void Reset(const QueryPlan& plan, const CollectionStats& stats, Bm25Params params);
  // The formula of `column` below (the default field's when the query's
  // terms lie in several columns): what the pruned rankings use.
  Bm25 bm25;
  // The one length column every scored term and phrase of the query lies
  // in, or -1 when they mix fields (then only RankBin scores: the pruned
  // rankings share one document norm between terms).
  int column = 0;
  std::vector<double> idf;  // by plan.highlight index; 0 for a term absent from the index
  // By plan.phrases index: the sum of the phrase's words' idfs (Lucene's
  // PhraseQuery under BM25; ../shared/peers' ceiling scores it alike).
  std::vector<double> phrase_idf;
  // The length column of each highlight term and each phrase, and each
  // column's formula (by column; an unused column's is never read).
  std::vector<uint32_t> term_column, phrase_column;
  std::vector<Bm25> column_bm25;
};

// What pruning did in one bin (tests prove it prunes; benchmarks count).
struct RankStats {
  uint64_t scored = 0;          // matches whose exact score was computed
  uint64_t skipped_ranges = 0;  // docid ranges (AND) or candidates (OR) passed over on their bound alone
};

// Scores `matches` (docids of `bin`, ascending) and keeps the K best into
// *out, best first: exhaustive, for any query shape and any bin. A query
// of more than kMaxDocAtATimeTerms positive terms is scored term at a time
// (RankBinByTerm). `phrase_occurrences`, when it has every plan phrase's
// occurrences of every match (SearchBin's fast path gives them), is used
// instead of reading the phrases' positions again.
inline constexpr size_t kMaxDocAtATimeTerms = 16;
Status RankBin(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank,
               const std::vector<DocId>& matches, size_t k, std::vector<ScoredDoc>* out,
               const std::vector<std::vector<uint32_t>>* phrase_occurrences = nullptr);

// RankBin's answer, to the bit, term at a time (shards/term_at_a_time.cc):
// each positive term's postings in the bin are merged with the matches
// (galloping over whichever side is behind) and add their scores to the
// matches they hold, in the plan's highlight order, so every document's
// additions happen in the same order as RankBin's. A query of thousands of
// terms (a prefix's expansions) costs the sum over its terms of the
// smaller of a term's postings and the matches, where document at a time
// would probe every term for every match.
Status RankBinByTerm(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank,
                     const std::vector<DocId>& matches, size_t k, std::vector<ScoredDoc>* out);

// Block-max AND (Ding & Suel, "Faster top-k document retrieval using
// block-max indexes", SIGIR 2011) for a pure conjunction in a bin whose
// postings sit in one file with nothing deleted (the intersection fast
// path's case): the terms' blocks are located from the skip tables
// without decoding, and a docid range whose blocks' impacts bound every
// score in it below the threshold (the bin's K-th best, or the query's
// across bins in `shared`) is skipped whole. The answer is RankBin's,
// exactly. *handled is false when the bin is not such a case (the caller
// then ranks exhaustively).
// `cancel` (may be null), once set, stops it within kCancelStride
// candidates (pruned_terms.h): *out is then partial, for a bin the caller
// reports cancelled.
Status RankBinBlockMax(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank, size_t k,
                       SharedThreshold* shared, std::vector<ScoredDoc>* out, bool* handled,
                       RankStats* stats = nullptr, const std::atomic<bool>* cancel = nullptr);

// MaxScore for a disjunction of plain terms in such a bin: the terms
// whose list bounds add up to less than the threshold cannot make a
// document enter on their own, so only the other terms' documents are
// candidates, and a candidate stops being probed once its bound falls
// below the threshold. The answer is RankBin's, exactly; *handled as above.
// Stops on `cancel` as RankBinBlockMax does.
Status RankBinMaxScore(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank, size_t k,
                       SharedThreshold* shared, std::vector<ScoredDoc>* out, bool* handled,
                       RankStats* stats = nullptr, const std::atomic<bool>* cancel = nullptr);

}  // namespace dps
