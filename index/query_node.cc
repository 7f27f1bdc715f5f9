#include "index/query_node.h"

#include "index/field_key.h"

#include <algorithm>
#include <optional>

#include "index/and_iterator.h"
#include "index/or_iterator.h"
#include "index/phrase_iterator.h"
#include "index/prefix_expansion.h"
#include "index/union_iterator.h"

namespace dps {

std::string QueryNode::ToString() const {
  std::string out = negated ? "-" : "";
  // A field's key shows as `title:word` (index/field_key.h).
  if (kind == Kind::kTerm) return out + DisplayKey(term);
  if (kind == Kind::kPhrase) {
    if (!children.empty() && IsFieldKey(children[0].term)) {
      out.append(FieldOfKey(children[0].term));
      out.push_back(':');
    }
    out += '"';
    for (size_t i = 0; i < children.size(); ++i) {
      if (i > 0) out.push_back(' ');
      out.append(TermOfKey(children[i].term));
    }
    out.push_back('"');
    if (slop > 0) {
      out.push_back('~');
      out.append(std::to_string(slop));
    }
    return out;
  }
  if (kind == Kind::kPrefix) return out + DisplayKey(term) + "*";
  out += "(";
  for (size_t i = 0; i < children.size(); ++i) {
    if (i > 0) out += kind == Kind::kAnd ? " AND " : " OR ";
    out += children[i].ToString();
  }
  return out + ")";
}

namespace {
// Past this many terms, the ones seen are kept in a hash set: a prefix's
// expansions make thousands, where searching the list would be quadratic.
constexpr size_t kLinearTerms = 16;

// The terms seen so far, as the tree's own terms (it does not change
// during the walk): the first kLinearTerms in an array searched linearly
// (nothing allocated or even cleared for a common query), all of them in
// a flat hash table once past.
struct SeenTerms {
  const std::string* first[kLinearTerms];  // [0, n) set
  size_t n = 0;
  // Once past: every term in an open-addressing table of pointers to the
  // tree's terms (null: empty; at most half full), no allocation per term.
  std::vector<const std::string*> all;
  size_t count = 0;
  // False if `term` was seen already.
  bool Insert(const std::string& term) {
    if (n < kLinearTerms) {
      for (size_t i = 0; i < n; ++i) {
        if (*first[i] == term) return false;
      }
      first[n++] = &term;
      return true;
    }
    if (all.empty()) {
      all.assign(64, nullptr);
      for (const std::string* t : first) Place(t);
      count = kLinearTerms;
    }
    const size_t mask = all.size() - 1;
    size_t s = std::hash<std::string_view>()(term) & mask;
    for (; all[s] != nullptr; s = (s + 1) & mask) {
      if (*all[s] == term) return false;
    }
    all[s] = &term;
    if (2 * ++count > all.size()) Grow();
    return true;
  }

 private:
  void Place(const std::string* t) {
    const size_t mask = all.size() - 1;
    size_t s = std::hash<std::string_view>()(*t) & mask;
    while (all[s] != nullptr) s = (s + 1) & mask;
    all[s] = t;
  }
  void Grow() {
    std::vector<const std::string*> old(all.size() * 2, nullptr);
    old.swap(all);
    for (const std::string* t : old) {
      if (t != nullptr) Place(t);
    }
  }
};

void AddPositiveTerms(const QueryNode& node, std::vector<std::string>* terms, SeenTerms* seen) {
  if (node.negated || node.kind == QueryNode::Kind::kPrefix) return;
  if (node.kind == QueryNode::Kind::kTerm) {
    if (seen->Insert(node.term)) terms->push_back(node.term);
    return;
  }
  for (const auto& c : node.children) AddPositiveTerms(c, terms, seen);
}

void AddSnippetPrefixes(const QueryNode& node, std::vector<std::string>* prefixes) {
  if (node.negated) return;
  if (node.kind == QueryNode::Kind::kPrefix) {
    if (std::find(prefixes->begin(), prefixes->end(), node.term) == prefixes->end()) prefixes->push_back(node.term);
    return;
  }
  for (const auto& c : node.children) AddSnippetPrefixes(c, prefixes);
}
}  // namespace

void PositiveTerms(const QueryNode& node, std::vector<std::string>* terms) {
  SeenTerms seen;
  AddPositiveTerms(node, terms, &seen);
}

SnippetTerms PositiveSnippetTerms(const QueryNode& node) {
  SnippetTerms out;
  PositiveTerms(node, &out.words);
  AddSnippetPrefixes(node, &out.prefixes);
  return out;
}

bool HasPrefix(const QueryNode& node) {
  if (node.kind == QueryNode::Kind::kPrefix) return true;
  return std::any_of(node.children.begin(), node.children.end(), [](const QueryNode& c) { return HasPrefix(c); });
}

void PositiveClauses(const QueryNode& node, std::vector<std::string>* bare_terms,
                     std::vector<PhraseClause>* phrases) {
  if (node.negated) return;
  if (node.kind == QueryNode::Kind::kTerm) {
    if (std::find(bare_terms->begin(), bare_terms->end(), node.term) == bare_terms->end()) {
      bare_terms->push_back(node.term);
    }
    return;
  }
  if (node.kind == QueryNode::Kind::kPhrase) {
    PhraseClause clause;
    for (const auto& w : node.children) clause.words.push_back(w.term);
    clause.slop = node.slop;
    if (std::find(phrases->begin(), phrases->end(), clause) == phrases->end()) phrases->push_back(std::move(clause));
    return;
  }
  for (const auto& c : node.children) PositiveClauses(c, bare_terms, phrases);
}

namespace {
// `parent` is null at the root. The messages say which rule breaks where:
// parsed queries are checked with positions before (query/parser.cc); these
// name the node, for trees from elsewhere (a server's requests, tests).
Status Validate(const QueryNode& node, const QueryNode* parent) {
  const bool in_and = parent != nullptr && parent->kind == QueryNode::Kind::kAnd;
  if (node.negated && !in_and) {
    return Status::InvalidArgument("NOT is only allowed beside a positive term: " + node.ToString());
  }
  if (node.kind == QueryNode::Kind::kTerm || node.kind == QueryNode::Kind::kPrefix) {
    if (node.term.empty()) {
      return Status::InvalidArgument(node.kind == QueryNode::Kind::kTerm ? "empty term" : "empty prefix");
    }
    return Status::OK();
  }
  if (node.kind == QueryNode::Kind::kPhrase) {
    if (node.children.size() < 2 || node.children.size() > kMaxPhraseWords) {
      return Status::InvalidArgument("a phrase needs 2 to " + std::to_string(kMaxPhraseWords) + " words: " + node.ToString());
    }
    for (const auto& w : node.children) {
      if (w.kind != QueryNode::Kind::kTerm || w.negated || w.term.empty()) {
        return Status::InvalidArgument("a phrase holds plain words only: " + node.ToString());
      }
      // Proximity within one field (a field's positions are its own).
      if (FieldOfKey(w.term) != FieldOfKey(node.children[0].term)) {
        return Status::InvalidArgument("a phrase's words are of one field: " + node.ToString());
      }
    }
    if (node.slop > kMaxPhraseSlop) {
      return Status::InvalidArgument("a phrase's slop is at most " + std::to_string(kMaxPhraseSlop) + ": " +
                                     node.ToString());
    }
    return Status::OK();
  }
  if (node.children.empty()) return Status::InvalidArgument("empty AND/OR");
  bool positive = false;
  for (const auto& c : node.children) {
    DPS_RETURN_IF_ERROR(Validate(c, &node));
    positive |= !c.negated;
  }
  if (positive) return Status::OK();
  // Only an AND gets here: a negated child of an OR failed above.
  const char* what = "a query of only negations matches nothing to subtract from: ";
  if (parent != nullptr && !in_and) what = "an OR branch cannot be only negations: ";
  if (in_and && node.negated) what = "a double negation is not supported: ";
  if (in_and && !node.negated) what = "a nested AND cannot be only negations: ";
  return Status::InvalidArgument(what + node.ToString());
}
}  // namespace

Status ValidateQuery(const QueryNode& node) { return Validate(node, nullptr); }

namespace {
Status NotExpanded(const QueryNode& node) {
  return Status::InvalidArgument("prefix '" + node.term + "*' was not expanded (the planner expands prefixes)");
}
}  // namespace

Status LookupTerms(const GlobalIndexReader* global, const QueryNode& node, TermTable* table,
                   KnownTerms* known) {
  if (node.kind == QueryNode::Kind::kPrefix) return NotExpanded(node);
  if (node.kind != QueryNode::Kind::kTerm) {
    for (const auto& c : node.children) DPS_RETURN_IF_ERROR(LookupTerms(global, c, table, known));
    return Status::OK();
  }
  return table->Add(global, node.term, known).status();
}

Result<std::unique_ptr<DocIterator>> BuildIterator(const IndexReader& index, BinId bin,
                                                   const QueryNode& node) {
  TermTable table;
  if (HasPrefix(node)) {
    if (index.global() == nullptr) return std::unique_ptr<DocIterator>(new EmptyIterator());
    QueryNode expanded = node;
    KnownTerms found;
    DPS_RETURN_IF_ERROR(ExpandPrefixes(&expanded, *index.global(), kDefaultMaxExpansions, &found));
    DPS_RETURN_IF_ERROR(LookupTerms(index.global(), expanded, &table, &found));
    return BuildIterator(index.TabletOf(bin), bin, expanded, table);
  }
  DPS_RETURN_IF_ERROR(LookupTerms(index.global(), node, &table));
  return BuildIterator(index.TabletOf(bin), bin, node, table);
}

Result<std::unique_ptr<PhraseIterator>> OpenPhrase(const Tablet& tablet, BinId bin,
                                                   const std::vector<std::string>& phrase, const TermTable& terms,
                                                   uint32_t slop) {
  PhraseSlots slots = SplitPhrase(std::span<const std::string>(phrase));
  std::vector<std::unique_ptr<TermIterator>> words;
  for (size_t first : slots.first) {
    const std::string& w = phrase[first];
    const GlobalTermInfo* info = terms.Find(w);
    if (info == nullptr) return Status::InvalidArgument("term '" + w + "' was not looked up");
    DPS_ASSIGN_OR_RETURN(auto it, tablet.OpenRefs(bin, info->RefsOf(bin), /*with_positions=*/true));
    if (it == nullptr) return std::unique_ptr<PhraseIterator>();  // a word absent from the bin
    words.push_back(std::move(it));
  }
  return std::make_unique<PhraseIterator>(std::move(words), std::move(slots.slot_word), slop);
}

namespace {
Result<std::unique_ptr<DocIterator>> BuildPhraseIterator(const Tablet& tablet, BinId bin, const QueryNode& node,
                                                         const TermTable& terms) {
  std::vector<std::string> words;
  for (const auto& w : node.children) words.push_back(w.term);
  DPS_ASSIGN_OR_RETURN(auto it, OpenPhrase(tablet, bin, words, terms, node.slop));
  if (it == nullptr) return std::unique_ptr<DocIterator>(new EmptyIterator());
  return std::unique_ptr<DocIterator>(std::move(it));
}

// An OR of many children, materialized (index/union_iterator.h).
Result<std::unique_ptr<DocIterator>> BuildUnion(const Tablet& tablet, BinId bin, const QueryNode& node,
                                                const TermTable& terms) {
  UnionBuilder builder(tablet, bin);
  size_t hint = 0;  // an expansion's entries sit in its order
  for (const auto& c : node.children) {
    if (c.kind == QueryNode::Kind::kTerm) {
      const GlobalTermInfo* info = terms.FindFrom(c.term, &hint);
      if (info == nullptr) return Status::InvalidArgument("term '" + c.term + "' was not looked up");
      DPS_RETURN_IF_ERROR(builder.AddRefs(info->RefsOf(bin)));
      continue;
    }
    DPS_ASSIGN_OR_RETURN(auto it, BuildIterator(tablet, bin, c, terms));
    DPS_RETURN_IF_ERROR(builder.AddIterator(it.get()));
  }
  return builder.Finish();
}
}  // namespace

Result<std::unique_ptr<DocIterator>> BuildIterator(const Tablet& tablet, BinId bin,
                                                   const QueryNode& node, const TermTable& terms) {
  if (node.kind == QueryNode::Kind::kPhrase) return BuildPhraseIterator(tablet, bin, node, terms);
  if (node.kind == QueryNode::Kind::kPrefix) return NotExpanded(node);
  if (node.kind == QueryNode::Kind::kOr && node.children.size() > kMaxOrIteratorChildren) {
    return BuildUnion(tablet, bin, node, terms);
  }
  if (node.kind == QueryNode::Kind::kTerm) {
    const GlobalTermInfo* info = terms.Find(node.term);
    if (info == nullptr) return Status::InvalidArgument("term '" + node.term + "' was not looked up");
    DPS_ASSIGN_OR_RETURN(auto it, tablet.OpenRefs(bin, info->RefsOf(bin)));
    if (it == nullptr) return std::unique_ptr<DocIterator>(new EmptyIterator());
    return std::unique_ptr<DocIterator>(std::move(it));
  }
  std::vector<std::unique_ptr<DocIterator>> positive, negative;
  for (const auto& c : node.children) {
    DPS_ASSIGN_OR_RETURN(auto it, BuildIterator(tablet, bin, c, terms));
    if (node.kind == QueryNode::Kind::kAnd) {
      // An empty positive child empties the AND: skip building the rest.
      if (!c.negated && it->doc() == kEndDoc && it->status().ok()) {
        return std::unique_ptr<DocIterator>(new EmptyIterator());
      }
      if (c.negated && it->doc() == kEndDoc && it->status().ok()) continue;
      (c.negated ? negative : positive).push_back(std::move(it));
    } else {
      if (it->doc() == kEndDoc && it->status().ok()) continue;
      positive.push_back(std::move(it));
    }
  }
  if (positive.empty()) return std::unique_ptr<DocIterator>(new EmptyIterator());
  if (positive.size() == 1 && negative.empty()) return std::move(positive[0]);
  if (node.kind == QueryNode::Kind::kOr) {
    return std::unique_ptr<DocIterator>(new class OrIterator(std::move(positive)));
  }
  return std::unique_ptr<DocIterator>(new AndIterator(std::move(positive), std::move(negative)));
}

}  // namespace dps
