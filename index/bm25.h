// BM25 as Lucene computes it, with exact document lengths (issue 18;
// docs/design/ranking.md): the one place the formula is written, shared
// by the bin executor, the servers and the tests' brute-force oracle.
//
//   score(d) = sum over the query's positive terms t that d holds of
//              idf(t) * tf / (tf + k1 * (1 - b + b * dl / avgdl))
//   idf(t)   = ln(1 + (N - df + 0.5) / (df + 0.5))
//
// tf is the posting's weight (occurrences in title + text), dl the
// document's token count, N, avgdl and df index-wide.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "index/block_impacts.h"
#include "index/field_key.h"

namespace dps {

struct Bm25Params {
  double k1 = 1.2;
  double b = 0.75;
};

// Index-wide statistics: every bin, every tablet (documents deleted but not
// yet compacted away included, as Lucene's statistics include them).
struct CollectionStats {
  CollectionStats() = default;
  CollectionStats(uint64_t n, uint64_t token_total) : documents(n), tokens(token_total) {}
  uint64_t documents = 0;  // N
  uint64_t tokens = 0;     // the sum of every document's length
  double avgdl() const { return documents == 0 ? 0.0 : static_cast<double>(tokens) / static_cast<double>(documents); }

  // Fields (index/field_key.h): the index's fields and, for each, the
  // documents with a length above 0 in it and their tokens in it, which
  // are N and the token total of the field's terms (Lucene's docCount and
  // sumTotalTermFreq of a field; docs/design/ranking.md "Fields").
  FieldSet fields;
  struct FieldTotals {
    uint64_t documents = 0, tokens = 0;
  };
  std::vector<FieldTotals> field_totals;  // by field, as `fields` lists them
  // The statistics BM25 uses for the terms of `column` (0: the default
  // field, title + text; 1 + f: field f).
  CollectionStats Column(size_t column) const {
    CollectionStats out;
    if (column == 0) {
      out.documents = documents;
      out.tokens = tokens;
    } else if (column - 1 < field_totals.size()) {
      out.documents = field_totals[column - 1].documents;
      out.tokens = field_totals[column - 1].tokens;
    }
    return out;
  }
};

inline double Bm25Idf(uint64_t documents, uint64_t df) {
  const double n = static_cast<double>(documents), d = static_cast<double>(df);
  return std::log(1.0 + (n - d + 0.5) / (d + 0.5));
}

class Bm25 {
 public:
  Bm25(Bm25Params params, const CollectionStats& stats)
      : k1_(params.k1), b_(params.b), avgdl_(stats.avgdl()) {}

  // One term's contribution (REQUIRES tf >= 1). Written as
  // idf / (1 + norm / tf), not idf * tf / (tf + norm): each step is then a
  // correctly rounded operation monotone in tf (up) and dl (down), so the
  // computed score itself is monotone and a bound taken at (max tf, min dl)
  // is at least every score it bounds, to the last bit (with the other
  // form, idf * 3 / 3 can exceed idf * 7 / 7 by an ulp when k1 = 0, and a
  // pruned query would lose a document). Equal to the textbook form within
  // a few ulps. An empty collection (avgdl 0) has norm k1.
  double TermScore(double idf, uint32_t tf, uint32_t dl) const { return ScoreWithNorm(idf, tf, Norm(dl)); }
  // TermScore in two steps, bit for bit the same: the length's part once
  // per document, then each term's (a document's terms share its norm).
  double Norm(uint32_t dl) const {
    return avgdl_ > 0 ? k1_ * ((1.0 - b_) + b_ * (static_cast<double>(dl) / avgdl_)) : k1_;
  }
  static double ScoreWithNorm(double idf, uint32_t tf, double norm) {
    return idf / (1.0 + norm / static_cast<double>(tf));
  }
  // An upper bound of TermScore over postings with tf <= max_tf and
  // dl >= min_dl: the score grows with tf and falls with dl for every
  // k1, b >= 0, so the corner is the bound (block-max and per-term maxima).
  // A query's bound is the sum of its terms' bounds added in the same
  // order as its scores' terms (floating addition is monotone too).
  double Bound(double idf, uint32_t max_tf, uint32_t min_dl) const { return TermScore(idf, max_tf, min_dl); }

  // Whether block scores (index/block_impacts.h) bound this query's
  // scores: they were computed for the default k1 and b.
  bool UsesBlockScores() const { return k1_ == kBlockScoreK1 && b_ == kBlockScoreB && avgdl_ > 0; }
  // An upper bound of TermScore over a block whose block score is q,
  // computed at reference avgdl A (the bin record's score_avgdl). With
  // c = k1 (1 - b), X = k1 b dl / (tf A) and S = kBlockScoreSteps, a
  // posting has 1 / r(A) = 1 + c / tf + X >= S / q. At the query's avgdl,
  // 1 / r = 1 + c / tf + rho X with rho = A / avgdl: for rho < 1 that is
  // >= rho / r(A) + 1 - rho >= rho S / q + 1 - rho; for rho >= 1 it is
  // >= 1 / r(A). The margin
  // covers the rounding of the score and of this bound (a few ulps each).
  // REQUIRES UsesBlockScores(), q >= 1.
  double BlockScoreBound(double idf, uint32_t q, double score_avgdl) const {
    const double rho = std::min(1.0, score_avgdl / avgdl_);
    return idf * (1 + 1e-9) / (rho * (kBlockScoreSteps / q) + (1 - rho));
  }
  // A score that some posting of such a block reaches (its best one's,
  // rounded down): q rounds the best r at A up by less than a step, so that
  // posting has r > (q - 1) / S at A. At the query's avgdl its 1 / r = 1 +
  // c / tf + rho X is at most 1 / r(A) for rho <= 1, and at most
  // rho / r(A) for rho > 1. The margin covers the rounding of the stored r
  // and of the score. REQUIRES UsesBlockScores(), q >= 1.
  double BlockScoreFloor(double idf, uint32_t q, double score_avgdl) const {
    const double rho = std::max(1.0, score_avgdl / avgdl_);
    return idf * (1 - 1e-9) * ((q - 1) / kBlockScoreSteps) / rho;
  }

 private:
  double k1_, b_, avgdl_;
};

}  // namespace dps
