// PhraseMatcher's merge: a phrase of distinct words (slop 0) whose lists'
// positions are in a file, checked a candidate at a time straight out of
// each word's decoded value blocks. The gather (phrase_iterator.cc) copied
// every word's positions at every candidate into arrays, then merged the
// arrays; on dense pairs of frequent words ("webster 1913": nearly every
// posting of both lists is a candidate) the copies and the passes over
// them cost several hundred instructions a candidate. Here a candidate
// costs its two lookups, its lead word's positions turned into starts and
// a merge that stops at the first occurrence when only counting.
#include <algorithm>

#include "index/candidate_runs.h"
#include "index/position_merge.h"
#include "index/phrase_iterator.h"

namespace dps {

bool PhraseMatcher::Locate(size_t w, std::span<const DocId> candidates) {
  const PositionReader& reader = *readers_[w];
  const size_t m = candidates.size();
  value_at_[w].resize(m);
  value_tf_[w].resize(m);
  uint64_t* value_at = value_at_[w].data();
  uint32_t* value_tf = value_tf_[w].data();
  const uint64_t values = reader.values();
  uint64_t base = 0;  // the run's first value; below 2^40, so no sum here overflows
  bool missing = false;
  const bool done = ForEachCandidateRun(
      *cursors_[w], candidates.data(), m, &missing,
      [&](uint32_t block, uint64_t in_block, size_t) {
        base = reader.BlockValueStart(block);
        if (base != UINT64_MAX) base += in_block;
        return base != UINT64_MAX;
      },
      [&](size_t i, uint64_t off, uint32_t weight) {
        // Checked here, so the merge reads no value past the list's.
        value_at[i] = base + off;
        value_tf[i] = weight;
        return weight != 0 && base + off + weight <= values;
      },
      [](size_t, size_t) { return true; });
  if (done) return true;
  if (missing) return Fail(*cursors_[w]);
  status_ = Status::Corruption("a phrase's word has more positions at its candidates than in its list");
  return false;
}

bool PhraseMatcher::LocateSpotted(size_t w, size_t m, const CandidateSpots& spots) {
  const PositionReader& reader = *readers_[w];
  const PostingSpots& word = *spots.words[w];
  value_at_[w].resize(m);
  value_tf_[w].resize(m);
  uint64_t* value_at = value_at_[w].data();
  uint32_t* value_tf = value_tf_[w].data();
  const uint32_t* blocks = word.blocks.data();
  const uint64_t* in_blocks = word.in_blocks.data();
  const uint32_t* tfs = word.tfs.data();
  const uint32_t* rows = spots.rows;
  const uint64_t values = reader.values();
  for (size_t i = 0; i < m; ++i) {
    const uint32_t row = rows[i];
    const uint64_t base = reader.BlockValueStart(blocks[row]);
    const uint32_t tf = tfs[row];
    // Checked here, so the merge reads no value past the list's (a block
    // start and an in-block sum are below 2^40: no overflow).
    if (base == UINT64_MAX || tf == 0 || base + in_blocks[row] + tf > values) {
      status_ = Status::Corruption("a phrase's word has more positions at its candidates than in its list");
      return false;
    }
    value_at[i] = base + in_blocks[row];
    value_tf[i] = tf;
  }
  return true;
}

// Off the merge's common path (the values lie in the block decoded last):
// a block not decoded yet, read in place when the batch asks few of its
// values, or values spanning two blocks.
bool PhraseMatcher::ValuesAt(size_t w, size_t i, const uint32_t** out) {
  const uint64_t* value_at = value_at_[w].data();
  const uint32_t* value_tf = value_tf_[w].data();
  const uint64_t start = value_at[i];
  const uint32_t tf = value_tf[i];
  bool whole = gather_ != PhraseGather::kMergeInPlace;
  if (gather_ == PhraseGather::kAuto) {
    // How many values this candidate and the next ask of the block.
    const uint64_t block_end = (start / kBlockSize + 1) * kBlockSize;
    const size_t m = value_at_[w].size();
    uint64_t demand = 0;
    for (size_t j = i; j < m && demand <= kMostInPlace && value_at[j] < block_end; ++j) {
      demand += std::min<uint64_t>(value_tf[j], block_end - value_at[j]);
    }
    whole = demand > kMostInPlace;
  }
  std::vector<uint32_t>& scratch = scratch_[w];
  if (scratch.size() < tf) scratch.resize(std::max<size_t>(tf, 2 * scratch.size()));
  status_ = readers_[w]->Values(start, tf, whole, scratch.data(), out);
  return status_.ok();
}

// Two words, the commonest phrase: one merge of the two position streams
// with no starts array (word 0 at p and word 1 at p + 1 meet as p + 1 on
// both sides).
bool PhraseMatcher::MergePair(size_t m, std::vector<uint32_t>* kept, std::vector<uint32_t>* occurrences) {
  const uint64_t* at0 = value_at_[0].data();
  const uint64_t* at1 = value_at_[1].data();
  const uint32_t* tfs0 = value_tf_[0].data();
  const uint32_t* tfs1 = value_tf_[1].data();
  PositionReader* r0 = readers_[0];
  PositionReader* r1 = readers_[1];
  const bool first_only = occurrences == nullptr;
  for (size_t i = 0; i < m; ++i) {
    const uint32_t tf0 = tfs0[i], tf1 = tfs1[i];
    const uint32_t* v = r0->Decoded(at0[i], tf0);
    if (v == nullptr && !ValuesAt(0, i, &v)) return false;
    const uint32_t* u = r1->Decoded(at1[i], tf1);
    if (u == nullptr && !ValuesAt(1, i, &u)) return false;
    uint64_t p = uint64_t{v[0]} + 1, q = u[0];  // word 0's positions plus one, word 1's
    const uint32_t n = MergeOccurrences(v, tf0, u, tf1, first_only, &p, &q);
    // Positions ascend: the last read of each word is its largest read.
    if (p - 1 > kMaxPosition || q > kMaxPosition) {
      status_ = Status::Corruption("a phrase's word has a position past " + std::to_string(kMaxPosition));
      return false;
    }
    if (n == 0) continue;
    kept->push_back(static_cast<uint32_t>(i));
    if (occurrences != nullptr) occurrences->push_back(n);
  }
  return true;
}

bool PhraseMatcher::FilterByMerge(std::span<const DocId> candidates, std::vector<uint32_t>* kept,
                                  std::vector<uint32_t>* occurrences, const CandidateSpots* spots) {
  const size_t words = cursors_.size();
  if (value_at_.size() < words) {
    value_at_.resize(words);
    value_tf_.resize(words);
    scratch_.resize(words);
  }
  for (size_t w = 0; w < words; ++w) {
    const bool spotted = spots != nullptr && spots->words[w] != nullptr;
    if (!(spotted ? LocateSpotted(w, candidates.size(), *spots) : Locate(w, candidates))) return false;
  }
  const uint64_t* at[kMaxPhraseWords];
  const uint32_t* tfs[kMaxPhraseWords];
  PositionReader* readers[kMaxPhraseWords];
  for (size_t k = 0; k < words; ++k) {
    at[k] = value_at_[by_df_[k]].data();
    tfs[k] = value_tf_[by_df_[k]].data();
    readers[k] = readers_[by_df_[k]];
  }
  const uint32_t lead = by_df_[0];
  const bool first_only = occurrences == nullptr;
  if (words == 2) return MergePair(candidates.size(), kept, occurrences);
  for (size_t i = 0; i < candidates.size(); ++i) {
    // The lead word's positions give the candidate's possible starts (word
    // w stands at start + w).
    const uint32_t* v = readers[0]->Decoded(at[0][i], tfs[0][i]);
    if (v == nullptr && !ValuesAt(lead, i, &v)) return false;
    const uint32_t tf = tfs[0][i];
    if (merge_starts_.size() < tf) merge_starts_.resize(std::max<size_t>(tf, 2 * merge_starts_.size()));
    uint32_t* starts = merge_starts_.data();
    uint64_t p = v[0];
    size_t n = 0;
    for (uint32_t t = 0;;) {
      starts[n] = static_cast<uint32_t>(p - lead);
      n += p >= lead;
      if (++t == tf) break;
      p += uint64_t{v[t]} + 1;
    }
    if (p > kMaxPosition) {  // positions ascend: the last is the largest
      status_ = Status::Corruption("a phrase's word has a position past " + std::to_string(kMaxPosition));
      return false;
    }
    // Each other word, fewest postings first, keeps the starts it
    // confirms; the last one, when only counting, stops at the first.
    for (size_t k = 1; k < words && n > 0; ++k) {
      const uint32_t w = by_df_[k];
      const uint32_t* u = readers[k]->Decoded(at[k][i], tfs[k][i]);
      if (u == nullptr && !ValuesAt(w, i, &u)) return false;
      const uint32_t utf = tfs[k][i];
      const bool stop = first_only && k + 1 == words;
      size_t confirmed = 0;
      uint32_t j = 0;
      uint64_t q = u[0];
      for (size_t t = 0; t < n; ++t) {
        const uint64_t want = uint64_t{starts[t]} + w;
        while (q < want && ++j < utf) q += uint64_t{u[j]} + 1;
        if (j == utf) break;
        if (q != want) continue;
        starts[confirmed++] = starts[t];
        if (stop) break;
      }
      if (q > kMaxPosition) {  // the largest position read
        status_ = Status::Corruption("a phrase's word has a position past " + std::to_string(kMaxPosition));
        return false;
      }
      n = confirmed;
    }
    if (n == 0) continue;
    kept->push_back(static_cast<uint32_t>(i));
    if (occurrences != nullptr) occurrences->push_back(static_cast<uint32_t>(n));
  }
  return true;
}

}  // namespace dps
