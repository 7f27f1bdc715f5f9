#include "tests/testing/bm25_oracle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace dps::testing {

namespace {
// The document's length in a column: its bare terms' (0), a field's words.
uint32_t Length(const ModelDoc& d, const FieldSet& fields, size_t column = 0) {
  if (column > 0) {
    const auto it = d.fields.find(fields.names()[column - 1]);
    return it == d.fields.end() ? 0 : static_cast<uint32_t>(it->second.size());
  }
  uint32_t n = 0;
  for (const auto& [term, tf] : d.terms) n += IsFieldKey(term) ? 0 : tf;
  return n;
}

// The query's distinct positive terms in their first order of appearance
// (a phrase's words too), a prefix standing for the stored terms that start
// with it, in term order (what the engine's expansion means, computed from
// the model); *bare: those that score alone (not only inside phrases);
// *phrases: the distinct positive phrases.
void ScoredTerms(const QueryNode& q, const std::set<std::string>& vocabulary, std::vector<std::string>* out,
                 std::set<std::string>* bare, std::vector<PhraseClause>* phrases) {
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
      PhraseClause clause;
      for (const auto& w : q.children) {
        add(w.term);
        clause.words.push_back(w.term);
      }
      clause.slop = q.slop;
      if (std::find(phrases->begin(), phrases->end(), clause) == phrases->end()) phrases->push_back(clause);
      return;
    }
    case QueryNode::Kind::kAnd:
    case QueryNode::Kind::kOr:
      for (const auto& c : q.children) ScoredTerms(c, vocabulary, out, bare, phrases);
  }
}
}  // namespace

CollectionStats ModelStats(const std::vector<const ModelDoc*>& stored, const FieldSet& fields) {
  CollectionStats s;
  s.fields = fields;
  s.field_totals.resize(fields.names().size());
  for (const ModelDoc* d : stored) {
    ++s.documents;
    s.tokens += Length(*d, fields);
    for (size_t f = 0; f < fields.names().size(); ++f) {
      const uint32_t l = Length(*d, fields, f + 1);
      s.field_totals[f].documents += l != 0;
      s.field_totals[f].tokens += l;
    }
  }
  return s;
}

std::map<std::string, double> BruteForceScores(const std::map<std::string, ModelDoc>& live,
                                               const std::vector<const ModelDoc*>& stored,
                                               const QueryNode& q, Bm25Params params, const FieldSet& fields) {
  const CollectionStats stats = ModelStats(stored, fields);
  std::vector<Bm25> bm25;  // by column
  for (size_t c = 0; c < fields.columns(); ++c) bm25.emplace_back(params, stats.Column(c));
  auto column_of = [&](const std::string& t) {
    const int c = fields.ColumnOf(t);
    EXPECT_GE(c, 0) << t;
    return static_cast<size_t>(std::max(c, 0));
  };
  std::set<std::string> vocabulary;
  for (const ModelDoc* d : stored) {
    for (const auto& [t, tf] : d->terms) vocabulary.insert(t);
  }
  auto idf_of = [&](const std::string& t) {
    uint64_t df = 0;
    for (const ModelDoc* d : stored) df += d->terms.count(t);
    return Bm25Idf(stats.Column(column_of(t)).documents, df);
  };
  // The terms that score alone in the order of the query's positive terms
  // (phrase words included, then left out), then the phrases: the engine's
  // order of addition.
  std::vector<std::string> terms;
  std::set<std::string> bare;
  std::vector<PhraseClause> phrases;
  ScoredTerms(q, vocabulary, &terms, &bare, &phrases);
  std::erase_if(terms, [&](const std::string& t) { return bare.count(t) == 0; });
  std::vector<double> idf, phrase_idf;
  for (const auto& t : terms) idf.push_back(idf_of(t));
  for (const auto& clause : phrases) {
    double sum = 0;
    for (const auto& w : clause.words) sum += idf_of(w);
    phrase_idf.push_back(sum);
  }
  std::map<std::string, double> out;
  for (const auto& [id, doc] : live) {
    if (!Matches(q, doc)) continue;  // phrases (negated ones too) read the token stream
    double score = 0;
    for (size_t i = 0; i < terms.size(); ++i) {
      auto it = doc.terms.find(terms[i]);
      const size_t c = column_of(terms[i]);
      if (it != doc.terms.end()) score += bm25[c].TermScore(idf[i], it->second, Length(doc, fields, c));
    }
    for (size_t p = 0; p < phrases.size(); ++p) {
      const uint32_t tf = PhraseOccurrences(StreamOf(doc, phrases[p].words[0]), phrases[p].words, phrases[p].slop);
      const size_t c = column_of(phrases[p].words[0]);
      if (tf != 0) score += bm25[c].TermScore(phrase_idf[p], tf, Length(doc, fields, c));
    }
    out[id] = score;
  }
  return out;
}

}  // namespace dps::testing
