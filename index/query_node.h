// A boolean query tree over analyzed terms, as the planner hands it to each
// bin: Term leaves, Phrase leaves (two or more terms at consecutive
// positions, kept as Term children in order), AND nodes whose children may
// be negated (Accumulo's IntersectingIterator "not" flag), and OR nodes.
// The query parser (query/) produces it; tests build it directly. A Prefix
// leaf (`netw*`) stands for the OR of the index's terms that start with it:
// the planner replaces it by that OR (index/prefix_expansion.h) before any
// bin sees the tree.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/doc_iterator.h"
#include "index/index_reader.h"
#include "index/phrase_iterator.h"
#include "index/tablet.h"

namespace dps {

struct QueryNode {
  enum class Kind { kTerm, kAnd, kOr, kPrefix, kPhrase };
  Kind kind = Kind::kTerm;
  std::string term;               // kTerm: the term; kPrefix: the prefix (analyzed, without '*')
  bool negated = false;           // only meaningful for children of kAnd
  uint32_t slop = 0;              // kPhrase: "a b"~slop (index/phrase_iterator.h CountPhrase)
  std::vector<QueryNode> children;  // kAnd / kOr; kPhrase: its words, Term nodes in order

  static QueryNode Term(std::string t, bool negated = false) {
    QueryNode n;
    n.term = std::move(t);
    n.negated = negated;
    return n;
  }
  static QueryNode Prefix(std::string p, bool negated = false) {
    QueryNode n = Term(std::move(p), negated);
    n.kind = Kind::kPrefix;
    return n;
  }
  static QueryNode And(std::vector<QueryNode> c) {
    QueryNode n;
    n.kind = Kind::kAnd;
    n.children = std::move(c);
    return n;
  }
  static QueryNode Or(std::vector<QueryNode> c) {
    QueryNode n;
    n.kind = Kind::kOr;
    n.children = std::move(c);
    return n;
  }
  static QueryNode Phrase(std::vector<std::string> words, bool negated = false, uint32_t slop = 0) {
    QueryNode n;
    n.kind = Kind::kPhrase;
    n.negated = negated;
    n.slop = slop;
    for (auto& w : words) n.children.push_back(Term(std::move(w)));
    return n;
  }
  // "(a OR b) c -d netw* \"e f\"" style text, for messages and test failure
  // output (the parser reads it back as the same tree).
  std::string ToString() const;
};

// The distinct positive terms of a query (for planning and highlighting),
// in their first order of appearance, into *terms (empty); a phrase's words
// are terms here. Prefixes are not terms: an expanded query has none left.
void PositiveTerms(const QueryNode& node, std::vector<std::string>* terms);

// A phrase clause: its words and its slop (0: side by side).
struct PhraseClause {
  std::vector<std::string> words;
  uint32_t slop = 0;
  bool operator==(const PhraseClause&) const = default;
};
// What a ranked query scores: its distinct positive bare terms and its
// distinct positive phrases (words and slop), each in first order of
// appearance. A phrase's words are not bare terms unless they also stand alone.
void PositiveClauses(const QueryNode& node, std::vector<std::string>* bare_terms,
                     std::vector<PhraseClause>* phrases);

// What a result's snippet marks: the query's positive words and its
// positive prefixes (a prefix marks every word it starts; its expansions,
// thousands of them, are not searched for one by one).
struct SnippetTerms {
  std::vector<std::string> words;
  std::vector<std::string> prefixes;
};
// Of a query before expansion.
SnippetTerms PositiveSnippetTerms(const QueryNode& node);

// Whether the tree holds a prefix (one not yet expanded).
bool HasPrefix(const QueryNode& node);

// InvalidArgument unless every AND has a positive child, no child of an OR
// (or the root) is negated, no AND/OR is empty, no term or prefix is empty
// and every phrase has two or more words, plain terms; the message names
// the rule (only negations in the query, in an OR branch, under a NOT, in a
// nested AND) and the offending node.
Status ValidateQuery(const QueryNode& node);

// Builds the iterator tree evaluating `node` in one bin of `tablet`; each
// term opens from its refs in `terms` (the planner's global entries; a term
// missing from the table, or a prefix not expanded, is InvalidArgument).
// An OR of many children is materialized (index/union_iterator.h).
// REQUIRES: ValidateQuery(node).ok(), tablet.HoldsBin(bin).
Result<std::unique_ptr<DocIterator>> BuildIterator(const Tablet& tablet, BinId bin,
                                                   const QueryNode& node, const TermTable& terms);
// The same, looking the terms up in the index's global index first (and
// expanding prefixes there, at most kDefaultMaxExpansions terms).
Result<std::unique_ptr<DocIterator>> BuildIterator(const IndexReader& index, BinId bin,
                                                   const QueryNode& node);
// The phrase `words` (with `slop`) in one bin: null when a word is absent
// from the bin.
Result<std::unique_ptr<PhraseIterator>> OpenPhrase(const Tablet& tablet, BinId bin,
                                                   const std::vector<std::string>& words, const TermTable& terms,
                                                   uint32_t slop = 0);
// Adds every term of `node` (negated ones too) to `table`, looked up once
// (or taken from `known`). REQUIRES: no prefix in `node` (InvalidArgument
// otherwise).
Status LookupTerms(const GlobalIndexReader* global, const QueryNode& node, TermTable* table,
                   KnownTerms* known = nullptr);

}  // namespace dps
