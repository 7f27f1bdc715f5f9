#include "tests/testing/bm25_oracle.h"

#include <algorithm>
#include <set>

namespace dps::testing {

namespace {
uint32_t Length(const ModelDoc& d) {
  uint32_t n = 0;
  for (const auto& [term, tf] : d.terms) n += tf;
  return n;
}

// The query's distinct positive terms in their first order of appearance,
// a prefix standing for the stored terms that start with it, in term
// order (what the engine's expansion means, computed from the model).
void ScoredTerms(const QueryNode& q, const std::set<std::string>& vocabulary, std::vector<std::string>* out) {
  if (q.negated) return;
  auto add = [out](const std::string& t) {
    if (std::find(out->begin(), out->end(), t) == out->end()) out->push_back(t);
  };
  switch (q.kind) {
    case QueryNode::Kind::kTerm:
      return add(q.term);
    case QueryNode::Kind::kPrefix:
      for (auto it = vocabulary.lower_bound(q.term); it != vocabulary.end() && it->starts_with(q.term); ++it) add(*it);
      return;
    case QueryNode::Kind::kAnd:
    case QueryNode::Kind::kOr:
      for (const auto& c : q.children) ScoredTerms(c, vocabulary, out);
  }
}
}  // namespace

CollectionStats ModelStats(const std::vector<const ModelDoc*>& stored) {
  CollectionStats s;
  for (const ModelDoc* d : stored) {
    ++s.documents;
    s.tokens += Length(*d);
  }
  return s;
}

std::map<std::string, double> BruteForceScores(const std::map<std::string, ModelDoc>& live,
                                               const std::vector<const ModelDoc*>& stored,
                                               const QueryNode& q, Bm25Params params) {
  const CollectionStats stats = ModelStats(stored);
  const Bm25 bm25(params, stats);
  std::set<std::string> vocabulary;
  for (const ModelDoc* d : stored) {
    for (const auto& [t, tf] : d->terms) vocabulary.insert(t);
  }
  std::vector<std::string> terms;
  ScoredTerms(q, vocabulary, &terms);
  std::vector<double> idf;
  for (const auto& t : terms) {
    uint64_t df = 0;
    for (const ModelDoc* d : stored) df += d->terms.count(t);
    idf.push_back(Bm25Idf(stats.documents, df));
  }
  std::map<std::string, double> out;
  for (const auto& [id, doc] : live) {
    if (!Matches(q, doc.terms)) continue;
    const uint32_t dl = Length(doc);
    double score = 0;
    for (size_t i = 0; i < terms.size(); ++i) {  // the query's term order, as the engine adds them
      auto it = doc.terms.find(terms[i]);
      if (it != doc.terms.end()) score += bm25.TermScore(idf[i], it->second, dl);
    }
    out[id] = score;
  }
  return out;
}

}  // namespace dps::testing
