#include "tests/testing/test_util.h"

#include "index/entry_cursor.h"
#include "index/index_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "index/index_reader.h"

namespace dps::testing {

TempDir::TempDir() {
  // tmpfs when available: the tests commit thousands of small indexes and
  // fsync would dominate their run time on a disk.
  const char* base = std::getenv("TMPDIR");
  std::string root = base ? base : std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  std::string tmpl = root + "/dpsearch-test-XXXXXX";
  char* made = ::mkdtemp(tmpl.data());
  if (made == nullptr) std::abort();
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string VocabTerm(size_t rank) {
  std::string term = std::to_string(rank);
  term.insert(term.begin(), 't');  // (not "t" + ...: GCC 12 -Wrestrict false positive)
  return term;
}

std::vector<ModelDoc> RandomCorpus(std::mt19937_64& rng, size_t docs, size_t vocab,
                                   size_t max_len) {
  // Zipf(1) over ranks via inverse transform on a precomputed CDF.
  std::vector<double> cdf(vocab);
  double sum = 0;
  for (size_t r = 0; r < vocab; ++r) cdf[r] = sum += 1.0 / static_cast<double>(r + 1);
  std::uniform_real_distribution<double> u(0, sum);
  std::uniform_int_distribution<size_t> len(0, max_len);
  std::vector<ModelDoc> out(docs);
  for (size_t i = 0; i < docs; ++i) {
    out[i].id = "doc-" + std::to_string(i);
    const size_t n = len(rng);
    for (size_t k = 0; k < n; ++k) {
      size_t r = static_cast<size_t>(std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin());
      out[i].tokens.push_back(VocabTerm(std::min(r, vocab - 1)));
      ++out[i].terms[out[i].tokens.back()];
    }
  }
  return out;
}

std::map<std::string, std::vector<uint32_t>> PositionsOf(const ModelDoc& d) {
  std::map<std::string, std::vector<uint32_t>> out;
  for (size_t i = 0; i < d.tokens.size(); ++i) out[d.tokens[i]].push_back(static_cast<uint32_t>(i));
  for (const auto& [field, stream] : d.fields) {
    for (size_t i = 0; i < stream.size(); ++i) out[FieldKey(field, stream[i])].push_back(static_cast<uint32_t>(i));
  }
  return out;
}

FieldSet ModelFields() { return FieldSet({"title", "author"}); }

void AddRandomFields(std::mt19937_64& rng, size_t vocab, std::vector<ModelDoc>* docs) {
  std::geometric_distribution<size_t> rank(0.2);
  for (ModelDoc& d : *docs) {
    for (const auto& [field, most] : {std::pair<std::string, size_t>{"title", 4}, {"author", 6}}) {
      auto& stream = d.fields[field];
      stream.clear();
      const size_t n = rng() % (most + 1);
      for (size_t i = 0; i < n; ++i) {
        stream.push_back(VocabTerm(std::min(rank(rng), vocab - 1)));
        ++d.terms[FieldKey(field, stream.back())];
      }
    }
  }
}

std::vector<std::string> StreamOf(const ModelDoc& d, const std::string& key) {
  if (!IsFieldKey(key)) return d.tokens;
  std::vector<std::string> out;
  const auto it = d.fields.find(std::string(FieldOfKey(key)));
  if (it == d.fields.end()) return out;
  for (const auto& w : it->second) out.push_back(FieldKey(FieldOfKey(key), w));
  return out;
}

AnalyzedDocument ToAnalyzed(const ModelDoc& d, bool with_positions) {
  AnalyzedDocument a;
  a.id = d.id;
  a.title = "title of " + d.id;
  const auto positions = with_positions ? PositionsOf(d) : std::map<std::string, std::vector<uint32_t>>();
  for (const auto& [t, tf] : d.terms) {
    a.terms.emplace_back(t, tf);
    for (uint32_t k = 0; k < tf && !IsFieldKey(t); ++k) a.text += t + " ";
    if (with_positions) {
      const auto& p = positions.at(t);
      a.positions.insert(a.positions.end(), p.begin(), p.end());
    }
  }
  return a;
}

std::vector<AnalyzedDocument> ToAnalyzed(const std::vector<ModelDoc>& docs, bool with_positions) {
  std::vector<AnalyzedDocument> out;
  for (const auto& d : docs) out.push_back(ToAnalyzed(d, with_positions));
  return out;
}

namespace {
// `doc` null: a model without token streams (no phrase may be asked).
bool MatchesIn(const QueryNode& q, const std::map<std::string, uint32_t>& terms, const ModelDoc* doc) {
  switch (q.kind) {
    case QueryNode::Kind::kTerm:
      return terms.count(q.term) > 0;
    case QueryNode::Kind::kPhrase: {
      if (doc == nullptr || q.children.empty()) {
        ADD_FAILURE() << "a phrase asked of a model without token streams";
        return false;
      }
      std::vector<std::string> words;
      for (const auto& w : q.children) words.push_back(w.term);
      return PhraseOccurrences(StreamOf(*doc, words[0]), words, q.slop) > 0;
    }
    case QueryNode::Kind::kPrefix: {  // any term starting with it
      auto it = terms.lower_bound(q.term);
      return it != terms.end() && it->first.starts_with(q.term);
    }
    case QueryNode::Kind::kAnd:
      for (const auto& c : q.children) {
        if (MatchesIn(c, terms, doc) == c.negated) return false;
      }
      return true;
    case QueryNode::Kind::kOr:
      for (const auto& c : q.children) {
        if (MatchesIn(c, terms, doc)) return true;
      }
      return false;
  }
  return false;
}
}  // namespace

bool Matches(const QueryNode& q, const std::map<std::string, uint32_t>& terms) {
  return MatchesIn(q, terms, nullptr);
}

bool Matches(const QueryNode& q, const ModelDoc& d) { return MatchesIn(q, d.terms, &d); }

namespace {
// Whether words[i..] can take distinct positions (not in `used`) whose
// offsets q - i keep [lo, hi] within `slop`.
bool SloppyFrom(const std::vector<std::string>& tokens, const std::vector<std::string>& words, size_t i,
                int64_t lo, int64_t hi, uint32_t slop, std::vector<size_t>* used) {
  if (i == words.size()) return true;
  for (size_t q = 0; q < tokens.size(); ++q) {
    if (tokens[q] != words[i] || std::find(used->begin(), used->end(), q) != used->end()) continue;
    const int64_t v = static_cast<int64_t>(q) - static_cast<int64_t>(i);
    const int64_t nlo = std::min(lo, v), nhi = std::max(hi, v);
    if (nhi - nlo > static_cast<int64_t>(slop)) continue;
    used->push_back(q);
    const bool ok = SloppyFrom(tokens, words, i + 1, nlo, nhi, slop, used);
    used->pop_back();
    if (ok) return true;
  }
  return false;
}
}  // namespace

uint32_t PhraseOccurrences(const std::vector<std::string>& tokens, const std::vector<std::string>& words,
                           uint32_t slop) {
  uint32_t n = 0;
  if (slop > 0) {
    for (size_t p = 0; p < tokens.size(); ++p) {
      if (tokens[p] != words[0]) continue;
      std::vector<size_t> used = {p};
      n += SloppyFrom(tokens, words, 1, static_cast<int64_t>(p), static_cast<int64_t>(p), slop, &used);
    }
    return n;
  }
  for (size_t s = 0; s + words.size() <= tokens.size(); ++s) {
    n += std::equal(words.begin(), words.end(), tokens.begin() + static_cast<ptrdiff_t>(s));
  }
  return n;
}

QueryNode RandomQuery(std::mt19937_64& rng, size_t vocab, int depth, int prefix_percent) {
  std::uniform_int_distribution<int> coin(0, 99);
  // Mostly frequent terms so that queries match something; a few unknown.
  auto term = [&]() {
    std::geometric_distribution<size_t> g(0.15);
    size_t r = g(rng);
    return coin(rng) < 3 ? std::string("absent") : VocabTerm(std::min(r, vocab - 1));
  };
  auto leaf = [&]() {
    // A prefix of a term ("t", "t1", "t12", the whole term), sometimes of
    // none ("absent" cut: no expansion).
    if (prefix_percent == 0 || coin(rng) >= prefix_percent) return QueryNode::Term(term());
    const std::string t = term();
    return QueryNode::Prefix(t.substr(0, 1 + rng() % t.size()));
  };
  if (depth >= 3 || coin(rng) < 35) return leaf();
  std::uniform_int_distribution<int> arity(1, 4);
  const bool is_and = coin(rng) < 60;
  std::vector<QueryNode> children;
  const int n = arity(rng);
  for (int i = 0; i < n; ++i) children.push_back(RandomQuery(rng, vocab, depth + 1, prefix_percent));
  if (is_and) {
    for (size_t i = 1; i < children.size(); ++i) children[i].negated = coin(rng) < 30;
    std::shuffle(children.begin(), children.end(), rng);
    if (std::all_of(children.begin(), children.end(), [](const auto& c) { return c.negated; })) {
      children[0].negated = false;
    }
    return QueryNode::And(std::move(children));
  }
  return QueryNode::Or(std::move(children));
}

namespace {
void MoveIntoField(QueryNode* q, const std::string& field) {
  if (q->kind == QueryNode::Kind::kTerm || q->kind == QueryNode::Kind::kPrefix) {
    q->term = FieldKey(field, q->term);
    return;
  }
  for (auto& c : q->children) MoveIntoField(&c, field);
}
void LeavesIntoFields(std::mt19937_64& rng, QueryNode* q) {
  if (q->kind == QueryNode::Kind::kAnd || q->kind == QueryNode::Kind::kOr) {
    for (auto& c : q->children) LeavesIntoFields(rng, &c);
    return;
  }
  const uint64_t r = rng() % 3;
  if (r < 2) MoveIntoField(q, r == 0 ? "title" : "author");
}
}  // namespace

QueryNode InRandomFields(std::mt19937_64& rng, QueryNode q) {
  if (rng() % 3 == 0) {
    MoveIntoField(&q, rng() % 2 ? "title" : "author");
  } else {
    LeavesIntoFields(rng, &q);
  }
  return q;
}

std::set<std::string> RunQuery(const std::string& index_dir, const QueryNode& q) {
  std::set<std::string> ids;
  auto index = IndexReader::Open(index_dir);
  EXPECT_TRUE(index.ok()) << index.status().ToString();
  if (!index.ok()) return ids;
  for (uint32_t bin = 0; bin < (*index)->bins(); ++bin) {
    const Tablet& tablet = (*index)->TabletOf(BinId{bin});
    auto it = BuildIterator(**index, BinId{bin}, q);
    EXPECT_TRUE(it.ok()) << it.status().ToString();
    if (!it.ok()) continue;
    DocId last = 0;
    bool first = true;
    for (DocId d = (*it)->doc(); d != kEndDoc; d = (*it)->Next()) {
      EXPECT_TRUE(first || d > last) << "docids must ascend within a bin";
      first = false;
      last = d;
      StoredDoc doc;
      Status s = tablet.GetDocument(BinId{bin}, d, &doc);
      EXPECT_TRUE(s.ok()) << s.ToString();
      ids.insert(doc.id);
    }
    EXPECT_TRUE((*it)->status().ok()) << (*it)->status().ToString();
  }
  return ids;
}

Status ReadAllPositions(const std::string& dir, PositionsByEntry* out) {
  out->clear();
  DPS_ASSIGN_OR_RETURN(auto index, IndexReader::Open(dir));
  std::vector<uint32_t> positions;
  for (size_t t = 0; t < index->tablet_count(); ++t) {
    const Tablet& tablet = index->tablet(t);
    EntryCursor cursor(index->global(), &tablet, 0, /*with_positions=*/true);
    for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next()) {
      StoredDoc doc;
      DPS_RETURN_IF_ERROR(tablet.GetDocument(BinId{cursor.key().bin}, cursor.key().docid, &doc, nullptr, false, false));
      DPS_RETURN_IF_ERROR(cursor.positions(&positions));
      if (positions.size() != cursor.weight()) return Status::Corruption("positions and weight disagree");
      (*out)[{std::string(cursor.key().term), doc.id}] = positions;
    }
    DPS_RETURN_IF_ERROR(cursor.status());
  }
  return Status::OK();
}

}  // namespace dps::testing
