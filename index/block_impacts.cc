#include "index/block_impacts.h"

#include <algorithm>
#include <cmath>

#include "common/coding.h"

namespace dps {

uint32_t ScoreAvgdlUnits(double mean_length) {
  const double units = std::round(mean_length / kScoreAvgdlUnit);
  if (!(units >= 1)) return 1;  // NaN included
  return units >= static_cast<double>(UINT32_MAX) ? UINT32_MAX : static_cast<uint32_t>(units);
}

Impact BlockCorner(const uint32_t* tfs, const uint32_t* dls, size_t n) {
  Impact corner{tfs[0], dls[0]};
  for (size_t i = 1; i < n; ++i) {
    corner.tf = std::max(corner.tf, tfs[i]);
    corner.dl = std::min(corner.dl, dls[i]);
  }
  return corner;
}

uint16_t BlockScore(const uint32_t* tfs, const uint32_t* dls, size_t n, double score_avgdl) {
  const double slope = kBlockScoreK1 * kBlockScoreB / score_avgdl, flat = kBlockScoreK1 * (1 - kBlockScoreB);
  // The best r = tf / denom found by cross-multiplying (no division per
  // posting: this runs for every block an ingest writes).
  double best_tf = tfs[0], best_denom = best_tf + flat + slope * dls[0];
  for (size_t i = 1; i < n; ++i) {
    const double tf = tfs[i], denom = tf + flat + slope * dls[i];
    if (tf * best_denom > best_tf * denom) {
      best_tf = tf;
      best_denom = denom;
    }
  }
  const double best = best_tf / best_denom;
  // Rounded up past the few ulps of error of `best` (and of the comparisons,
  // which may pick a posting an ulp below the best): q / 65535 >= the exact r.
  const double q = std::ceil(best * kBlockScoreSteps * (1 + 1e-12));
  return static_cast<uint16_t>(std::clamp(q, 1.0, kBlockScoreSteps));
}

void EncodeCorner(const Impact& corner, std::string* out) {
  PutVarint32(out, corner.tf);
  PutVarint32(out, corner.dl);
}

const uint8_t* DecodeCorner(const uint8_t* p, const uint8_t* end, Impact* out) {
  p = GetVarint32(p, end, &out->tf);
  if (p != nullptr) p = GetVarint32(p, end, &out->dl);
  if (p == nullptr || out->tf == 0 || out->dl == 0) return nullptr;
  return p;
}

}  // namespace dps
