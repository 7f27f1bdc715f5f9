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

// The query's distinct positive terms in their first order of appearance
// (a phrase's words too), a prefix standing for the stored terms that start
// with it, in term order (what the engine's expansion means, computed from
// the model); *bare: those that score alone (not only inside phrases);
// *phrases: the distinct positive phrases.
void ScoredTerms(const QueryNode& q, const std::set<std::string>& vocabulary, std::vector<std::string>* out,
                 std::set<std::string>* bare, std::vector<std::vector<std::string>>* phrases) {
  if (q.negated) return;
  auto add = [out](const std::string& t) {
    if (std::find(out->begin(), out->end(), t) == out->end()) out->push_back(t);
  };
  switch (q.kind) {
    case QueryNode::Kind::kTerm:
      bare->insert(q.term);
      return add(q.term);
    case QueryNode::Kind::kPrefix:
      for (auto it = vocabulary.lower_bound(q.term); it != vocabulary.end() && it->starts_with(q.term); ++it) {
        bare->insert(*it);
        add(*it);
      }
      return;
    case QueryNode::Kind::kPhrase: {
      std::vector<std::string> words;
      for (const auto& w : q.children) {
        add(w.term);
        words.push_back(w.term);
      }
      if (std::find(phrases->begin(), phrases->end(), words) == phrases->end()) phrases->push_back(words);
      return;
    }
    case QueryNode::Kind::kAnd:
    case QueryNode::Kind::kOr:
      for (const auto& c : q.children) ScoredTerms(c, vocabulary, out, bare, phrases);
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
  auto idf_of = [&](const std::string& t) {
    uint64_t df = 0;
    for (const ModelDoc* d : stored) df += d->terms.count(t);
    return Bm25Idf(stats.documents, df);
  };
  // The terms that score alone in the order of the query's positive terms
  // (phrase words included, then left out), then the phrases: the engine's
  // order of addition.
  std::vector<std::string> terms;
  std::set<std::string> bare;
  std::vector<std::vector<std::string>> phrases;
  ScoredTerms(q, vocabulary, &terms, &bare, &phrases);
  std::erase_if(terms, [&](const std::string& t) { return bare.count(t) == 0; });
  std::vector<double> idf, phrase_idf;
  for (const auto& t : terms) idf.push_back(idf_of(t));
  for (const auto& words : phrases) {
    double sum = 0;
    for (const auto& w : words) sum += idf_of(w);
    phrase_idf.push_back(sum);
  }
  std::map<std::string, double> out;
  for (const auto& [id, doc] : live) {
    if (!Matches(q, doc)) continue;  // phrases (negated ones too) read the token stream
    const uint32_t dl = Length(doc);
    double score = 0;
    for (size_t i = 0; i < terms.size(); ++i) {
      auto it = doc.terms.find(terms[i]);
      if (it != doc.terms.end()) score += bm25.TermScore(idf[i], it->second, dl);
    }
    for (size_t p = 0; p < phrases.size(); ++p) {
      const uint32_t tf = PhraseOccurrences(doc.tokens, phrases[p]);
      if (tf != 0) score += bm25.TermScore(phrase_idf[p], tf, dl);
    }
    out[id] = score;
  }
  return out;
}

}  // namespace dps::testing
