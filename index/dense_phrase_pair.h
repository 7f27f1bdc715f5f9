// A phrase of two distinct words ("webster 1913", "a of") whose lists are
// long and of similar length, checked in one walk of both lists. The
// general path (the dense AND kernel's candidates, each word's positions
// located at them, then PhraseMatcher's merge) costs gcide's heaviest
// phrases about 350 instructions a candidate, most of them spent
// materializing arrays of 10^5 candidates, spots and value offsets. Here
// the two lists' decoded runs are merged as they come, each list's offset
// into its value stream is carried along by adding weights, and a common
// document's positions are read straight out of each word's value block
// decoded last (value blocks are read in order, once each). Lucene's
// ExactPhraseMatcher walks its conjunction the same way.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "index/positions.h"
#include "index/posting_list.h"

namespace dps {

struct PairPhraseMatches {
  uint64_t count = 0;               // documents holding the phrase
  std::vector<DocId>* docs = nullptr;  // if set: those documents, ascending
  // If set: how many times each of them holds it (its tf); else a
  // document's check stops at its first occurrence.
  std::vector<uint32_t>* occurrences = nullptr;
  uint64_t limit = 0;  // stop after this many documents (0: no limit)
};

// The documents where `first`'s word stands right before `second`'s (slop
// 0) and that every list of `others` holds (the conjunction's other terms:
// "of the" 1913), each cursor on its list's first posting, each word's
// positions in a file (`first_positions`, `second_positions`: their lists'
// readers). Corruption when a list's weights, positions or tables disagree.
Status MatchDensePhrasePair(PostingCursor* first, PositionReader* first_positions, PostingCursor* second,
                            PositionReader* second_positions, std::span<PostingCursor* const> others,
                            PairPhraseMatches* out);

}  // namespace dps
