#include "shards/ranking.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <array>
#include <optional>

#include "shards/bin_lengths.h"

namespace dps {

namespace {

// A key naming no field of the index matches nothing (the writer refuses
// such terms): it scores in the default column with an idf of 0.
uint32_t ColumnOfKey(const CollectionStats& stats, std::string_view key) {
  const int c = stats.fields.ColumnOf(key);
  return c < 0 ? 0 : static_cast<uint32_t>(c);
}

}  // namespace

RankContext::RankContext(const QueryPlan& plan, const CollectionStats& stats, Bm25Params params)
    : bm25(params, stats) {
  Reset(plan, stats, params);
}

void RankContext::Reset(const QueryPlan& plan, const CollectionStats& stats, Bm25Params params) {
  bm25 = Bm25(params, stats);
  idf.clear();
  phrase_idf.clear();
  term_column.clear();
  phrase_column.clear();
  column_bm25.clear();
  for (size_t c = 0; c < stats.fields.columns(); ++c) column_bm25.emplace_back(params, stats.Column(c));
  idf.reserve(plan.highlight.size());
  term_column.reserve(plan.highlight.size());
  for (size_t h = 0; h < plan.highlight.size(); ++h) {
    // entries[h] is highlight[h]'s (an empty plan may have no entries).
    const uint64_t df = h < plan.terms.entries.size() ? plan.terms.entries[h].second.df : 0;
    const uint32_t c = ColumnOfKey(stats, plan.highlight[h]);
    term_column.push_back(c);
    idf.push_back(df == 0 ? 0.0 : Bm25Idf(stats.Column(c).documents, df));
  }
  for (const auto& words : plan.phrases) {
    double sum = 0;
    for (size_t w : words) sum += idf[w];
    phrase_idf.push_back(sum);
    phrase_column.push_back(words.empty() ? 0 : term_column[words[0]]);  // a phrase's words share a field
  }
  // The query's one column, if its scored terms and phrases have one.
  int common = -2;  // none seen yet
  auto see = [&](uint32_t c) { common = common == -2 || common == static_cast<int>(c) ? static_cast<int>(c) : -1; };
  for (size_t h = 0; h < term_column.size(); ++h) {
    if (h >= plan.scored_terms.size() || plan.scored_terms[h]) see(term_column[h]);
  }
  for (uint32_t c : phrase_column) see(c);
  column = common == -2 ? 0 : common;
  if (column > 0) bm25 = column_bm25[static_cast<size_t>(column)];
}

Status RankBin(const Tablet& tablet, const QueryPlan& plan, BinId bin, const RankContext& rank,
               const std::vector<DocId>& matches, size_t k, std::vector<ScoredDoc>* out,
               const std::vector<std::vector<uint32_t>>* phrase_occurrences) {
  out->clear();
  if (k == 0 || matches.empty()) return Status::OK();
  // Term at a time knows no phrases: a query with phrases and a large
  // prefix is scored document at a time too.
  if (plan.highlight.size() > kMaxDocAtATimeTerms && plan.phrases.empty()) {
    return RankBinByTerm(tablet, plan, bin, rank, matches, k, out);
  }
  // The length columns the query's terms and phrases lie in (most often
  // one: the default field).
  // On the stack: this runs once per bin of every exhaustively ranked query.
  const size_t columns = rank.column_bm25.size();
  std::array<std::optional<BinLengths>, kMaxFields + 1> lengths;
  std::array<double, kMaxFields + 1> norm{};
  for (uint32_t c : rank.term_column) {
    if (!lengths[c]) lengths[c].emplace(tablet, bin, c);
  }
  for (uint32_t c : rank.phrase_column) {
    if (!lengths[c]) lengths[c].emplace(tablet, bin, c);
  }
  // One cursor per positive term, walked forward with the matches.
  // A term only inside phrases scores through them (plan.scored_terms).
  std::vector<std::unique_ptr<TermIterator>> terms(plan.highlight.size());
  for (size_t t = 0; t < terms.size() && t < plan.terms.entries.size(); ++t) {
    if (!plan.scored_terms[t]) continue;
    DPS_ASSIGN_OR_RETURN(terms[t], tablet.OpenRefs(bin, plan.terms.entries[t].second.RefsOf(bin)));
  }
  bool known = phrase_occurrences != nullptr && phrase_occurrences->size() == plan.phrases.size();
  for (size_t p = 0; known && p < plan.phrases.size(); ++p) known = (*phrase_occurrences)[p].size() == matches.size();
  std::vector<std::unique_ptr<PhraseIterator>> phrases(plan.phrases.size());
  for (size_t p = 0; p < phrases.size() && !known; ++p) {
    std::vector<std::string> words;
    for (size_t w : plan.phrases[p]) words.push_back(plan.highlight[w]);
    DPS_ASSIGN_OR_RETURN(phrases[p], OpenPhrase(tablet, bin, words, plan.terms, plan.phrase_slops[p]));
  }
  TopK top(k);
  std::vector<uint32_t> tf(terms.size()), occurrences(phrases.size());
  for (size_t i = 0; i < matches.size(); ++i) {
    const DocId d = matches[i];
    // Weights first (0: the document lacks the term, an OR's), then the
    // arithmetic, whose divisions overlap with no call between them.
    for (size_t t = 0; t < terms.size(); ++t) {
      tf[t] = terms[t] != nullptr && terms[t]->Seek(d) == d ? terms[t]->weight() : 0;
    }
    for (size_t p = 0; p < phrases.size(); ++p) {
      if (known) {
        occurrences[p] = (*phrase_occurrences)[p][i];
      } else {
        occurrences[p] = phrases[p] != nullptr && phrases[p]->Seek(d) == d ? phrases[p]->Occurrences() : 0;
      }
    }
    for (size_t c = 0; c < columns; ++c) {
      if (lengths[c]) norm[c] = rank.column_bm25[c].Norm(lengths[c]->Of(d));
    }
    double score = 0;
    for (size_t t = 0; t < terms.size(); ++t) {  // the same order for every document and bound
      if (tf[t] != 0) score += Bm25::ScoreWithNorm(rank.idf[t], tf[t], norm[rank.term_column[t]]);
    }
    for (size_t p = 0; p < phrases.size(); ++p) {  // then the phrases, in query order
      if (occurrences[p] != 0) {
        score += Bm25::ScoreWithNorm(rank.phrase_idf[p], occurrences[p], norm[rank.phrase_column[p]]);
      }
    }
    top.Offer({score, bin.value, d});
  }
  for (const auto& t : terms) {
    if (t != nullptr) DPS_RETURN_IF_ERROR(t->status());
  }
  for (const auto& p : phrases) {
    if (p != nullptr) DPS_RETURN_IF_ERROR(p->status());
  }
  *out = top.Take();
  return Status::OK();
}

}  // namespace dps

