// Prefix queries (`netw*`): each prefix of a query becomes the OR of the
// index's terms that start with it, read from the global index's sorted
// dictionary (index/term_range.h: one seek, then a walk while terms start
// with it, never the whole dictionary), as Accumulo's wikisearch serves
// its wildcards from its global index. The planner expands first, so bins,
// iterators, ranking and servers see plain terms only: a prefix matches
// and ranks exactly as the OR of its expansions (each expansion a document
// holds adds its BM25 score).
//
// A cap bounds what one query may cost: past `max_expansions` terms over
// all its prefixes, the query is refused with the number it would have
// needed, never cut to its first terms (that would be a silently partial
// answer). The walk goes on counting past the cap (keys only, no entry
// parsed), so the message can say how many.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "index/global_index.h"
#include "index/query_node.h"

namespace dps {

// `--max-expansions`' default: thousands, as wikisearch's and Lucene's
// limits go (Lucene's BooleanQuery allows 1,024 clauses); a query past it
// is refused, and says what to raise it to.
inline constexpr uint64_t kDefaultMaxExpansions = 4096;
// The largest cap `--max-expansions` (and a server) takes: some hundred
// bytes of plan per expansion make this a few gigabytes already.
inline constexpr uint64_t kMaxMaxExpansions = 10'000'000;

// Expands every prefix of *root in place into the OR of its terms, in term
// order (one term alone), negated as the prefix was; an OR it lands in
// takes its terms directly. A prefix no term starts with becomes a term
// no document holds (the prefix itself: no term starts with it, so it is
// none), which matches and scores nothing, as an absent word does: an AND
// requiring it is empty, an OR or a NOT of it adds or subtracts nothing.
// Each expansion's global entry is put in *found, so planning need not
// look it up again. InvalidArgument, naming each prefix and its count,
// when the prefixes expand to more than `max_expansions` terms in all
// (*root is then not to be used).
// REQUIRES: ValidateQuery(*root).ok().
Status ExpandPrefixes(QueryNode* root, const GlobalIndexReader& global, uint64_t max_expansions,
                      KnownTerms* found);

}  // namespace dps
