#include "tests/testing/bm25_oracle.h"

#include <algorithm>

namespace dps::testing {

namespace {
uint32_t Length(const ModelDoc& d) {
  uint32_t n = 0;
  for (const auto& [term, tf] : d.terms) n += tf;
  return n;
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
  auto idf_of = [&](const std::string& t) {
    uint64_t df = 0;
    for (const ModelDoc* d : stored) df += d->terms.count(t);
    return Bm25Idf(stats.documents, df);
  };
  // The terms that score alone, in the order of the query's positive terms
  // (phrase words included, then left out), then the phrases: the engine's
  // order of addition.
  std::vector<std::string> terms, bare;
  std::vector<std::vector<std::string>> phrases;
  PositiveTerms(q, &terms);
  PositiveClauses(q, &bare, &phrases);
  std::erase_if(terms, [&](const std::string& t) { return std::find(bare.begin(), bare.end(), t) == bare.end(); });
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
