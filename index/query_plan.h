// Physical planning: compiles a query tree into a plan once, with the global index's
// statistics (tantivy's Query -> Weight): which bins can match at all (the
// intersection of the AND terms' bin sets, the union for OR), an empty plan
// at once when a required term occurs nowhere, and for the common pure
// conjunction of terms the term order (rarest first) the per-bin fast path
// uses. Prefixes are expanded first (index/prefix_expansion.h): a plan
// holds plain terms only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/global_index.h"
#include "index/prefix_expansion.h"
#include "index/query_node.h"
#include "index/types.h"

namespace dps {

struct QueryPlan {
  QueryNode root;
  std::vector<BinId> bins;  // bins that can match, ascending
  // True when the global index proves there is no match: no shard is asked.
  bool empty = false;
  // A conjunction of plain terms (no OR, no NOT): the fast path applies.
  bool pure_and = false;
  // A conjunction of terms and at least one phrase (no OR, no NOT): the
  // fast path finds the documents holding every word (and_entries, rarest
  // first), then checks the phrases' positions on those alone.
  bool phrase_and = false;
  // Every term's global entry (refs per bin and file): shards open postings
  // from these, never searching a dictionary again. terms.entries[h] is the
  // entry of highlight[h] (the positive terms come first, in that order).
  TermTable terms;
  // pure_and or phrase_and: the conjunction's terms (a phrase's words
  // too), rarest first, as indexes into terms.entries.
  std::vector<size_t> and_entries;
  // The positive terms, in their first order of appearance (prefixes
  // expanded in term order; a phrase's words too): scores add in this order.
  std::vector<std::string> highlight;
  // Ranked scoring (PositiveClauses): which highlight terms score as bare
  // terms, and each positive phrase as indexes into highlight. Without
  // phrases every highlight term scores and `phrases` is empty.
  std::vector<bool> scored_terms;
  std::vector<std::vector<size_t>> phrases;
  std::vector<uint32_t> phrase_slops;  // by phrases index: each phrase's slop
  // A query with prefixes: its positive words and prefixes as written
  // (PositiveSnippetTerms), which snippets mark; highlight then holds every
  // expansion, up to thousands of words to search a text for.
  std::optional<SnippetTerms> written;
  const std::vector<std::string>& snippet_words() const { return written ? written->words : highlight; }
  const std::vector<std::string>& snippet_prefixes() const {
    static const std::vector<std::string> kNone;
    return written ? written->prefixes : kNone;
  }
  // Postings the query may have to touch, from global frequencies: the sum
  // of its positive terms' df (dense intersections decode every list), for
  // a conjunction at most 32 x terms x the rarest df (each candidate costs
  // a seek of at most one 32-docid part per other term). The coordinator
  // runs cheap plans inline.
  uint64_t estimated_postings = 0;

  // Empties the plan as a new one would be, its vectors keeping their room
  // (PlanQueryInto).
  void Clear();
};

// Below the shards (index/, not query/): the in-process coordinator and
// the shard server plan alike, each against the global index it opened.
//
// REQUIRES: ValidateQuery(root).ok(). `global` may be null (an index with no
// commit yet): then every plan is empty. A query whose prefixes expand to
// more than `max_expansions` terms is InvalidArgument (ExpandPrefixes).
// Takes the query by value: pass an rvalue to save a copy.
Result<QueryPlan> PlanQuery(QueryNode root, const GlobalIndexReader* global, uint32_t bins,
                            uint64_t max_expansions = kDefaultMaxExpansions);

// PlanQuery into *plan, which may hold another query's plan (cleared
// first, its vectors' room kept): a searcher planning query after query
// keeps one plan, and a median ranked query saves 5 of its 17
// allocations. On error *plan is no plan.
Status PlanQueryInto(QueryNode root, const GlobalIndexReader* global, uint32_t bins, uint64_t max_expansions,
                     QueryPlan* plan);

}  // namespace dps
