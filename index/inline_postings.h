// Short posting lists kept in the dictionary instead of the tablet file
// (Lucene "pulses" df = 1 into its terms dictionary; dpsearch goes up to
// kMaxInlineDf): on gcide a list of 2 postings costs 7 bytes this way,
// against 6 bytes of (df, offset, len) ref plus 6.4 bytes of blocks in the
// file; blocks win from about 9 postings on. Shared by the term list and the global index, which copies the
// bytes. Layout: docs/FORMAT.md ("Inline postings").
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "index/types.h"

namespace dps {

// The writer keeps lists of 2..kMaxInlineDf postings inline. Whole gcide
// index (4 bins) by the limit: 1 (singletons only) 9.22 MB, 4 8.80, 6 8.74,
// 8 8.72, 12 8.73; linuxdoc 3.91, 3.70, 3.67, 3.67, 3.67.
inline constexpr uint32_t kMaxInlineDf = 8;
// The largest inline df a reader accepts (one cursor block).
inline constexpr uint32_t kMaxInlineDfRead = 128;

// Appends the payload of docs (ascending, <= kMaxDocId) and weights (>= 1):
// first docid, gaps minus one, then the weights unless all are 1. Returns
// whether it wrote weights.
bool EncodeInlinePostings(std::span<const DocId> docs, std::span<const uint32_t> weights,
                          std::string* out);

// Parses a payload of `df` postings at [p, end); returns the byte after it,
// or nullptr if it is malformed (truncated, a docid past kMaxDocId, a zero
// weight). Writes docids and weights (1 when !has_weights) when the out
// pointers are set (room for df each).
const uint8_t* ParseInlinePostings(const uint8_t* p, const uint8_t* end, uint32_t df,
                                   bool has_weights, DocId* docs, uint32_t* weights);

// The end of a payload of `df` postings at [p, end), or nullptr if it runs
// past `end`: only counts varints (a query looks up every term's refs but
// opens few of them; the cursor checks the values, PostingCursor::InitInline).
const uint8_t* SkipInlinePostings(const uint8_t* p, const uint8_t* end, uint32_t df,
                                  bool has_weights);

}  // namespace dps
