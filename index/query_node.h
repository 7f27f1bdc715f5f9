// A boolean query tree over analyzed terms, as the planner hands it to each
// bin: Term leaves, Phrase leaves (two or more terms at consecutive
// positions, kept as Term children in order), AND nodes whose children may
// be negated (Accumulo's IntersectingIterator "not" flag), and OR nodes.
// The query parser (query/) produces it; tests build it directly.
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
  enum class Kind { kTerm, kAnd, kOr, kPhrase };
  Kind kind = Kind::kTerm;
  std::string term;               // kTerm only
  bool negated = false;           // only meaningful for children of kAnd
  std::vector<QueryNode> children;  // kAnd / kOr; kPhrase: its words, Term nodes in order

  static QueryNode Term(std::string t, bool negated = false) {
    QueryNode n;
    n.term = std::move(t);
    n.negated = negated;
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
  static QueryNode Phrase(std::vector<std::string> words, bool negated = false) {
    QueryNode n;
    n.kind = Kind::kPhrase;
    n.negated = negated;
    for (auto& w : words) n.children.push_back(Term(std::move(w)));
    return n;
  }
  // "(a OR b) c -d" style text, for messages and test failure output.
  std::string ToString() const;
};

// The distinct positive terms of a query (for planning and highlighting),
// in their first order of appearance; a phrase's words are terms here.
void PositiveTerms(const QueryNode& node, std::vector<std::string>* terms);

// What a ranked query scores: its distinct positive bare terms and its
// distinct positive phrases (word lists), each in first order of appearance.
// A phrase's words are not bare terms unless they also stand alone.
void PositiveClauses(const QueryNode& node, std::vector<std::string>* bare_terms,
                     std::vector<std::vector<std::string>>* phrases);

// InvalidArgument unless every AND has a positive child, no child of an OR
// (or the root) is negated, no AND/OR is empty, and every phrase has two or
// more words, plain terms; the message names the
// rule (only negations in the query, in an OR branch, under a NOT, in a
// nested AND) and the offending node.
Status ValidateQuery(const QueryNode& node);

// Builds the iterator tree evaluating `node` in one bin of `tablet`; each
// term opens from its refs in `terms` (the planner's global entries; a term
// missing from the table is InvalidArgument).
// REQUIRES: ValidateQuery(node).ok(), tablet.HoldsBin(bin).
Result<std::unique_ptr<DocIterator>> BuildIterator(const Tablet& tablet, BinId bin,
                                                   const QueryNode& node, const TermTable& terms);
// The same, looking the terms up in the index's global index first.
Result<std::unique_ptr<DocIterator>> BuildIterator(const IndexReader& index, BinId bin,
                                                   const QueryNode& node);
// The phrase `words` in one bin: null when a word is absent from the bin.
Result<std::unique_ptr<PhraseIterator>> OpenPhrase(const Tablet& tablet, BinId bin,
                                                   const std::vector<std::string>& words, const TermTable& terms);
// Adds every term of `node` (negated ones too) to `table`, looked up once.
Status LookupTerms(const GlobalIndexReader* global, const QueryNode& node, TermTable* table);

}  // namespace dps
