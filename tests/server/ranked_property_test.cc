// Ranked retrieval (issue 18) against brute force: random corpora (1 to 32
// bins, several commits with replacements, deletes, sometimes a
// compaction) x random AND/OR/NOT queries x K in {1, 10, 100, more than
// the matches}, with default and random BM25 parameters. The in-process
// searcher (inline and fanned out) and a cluster of four shard servers
// (two tablet ranges, two replicas each, over loopback: protocol 4) must
// return exactly the brute-force BM25's K best (tests/testing/bm25_oracle,
// the same formula and term order, so scores agree to the bit), best
// first, ties by (bin, docid); every document carries its own score; a
// page (offset) is the same slice of that ranking everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

#include "index/compaction.h"
#include "index/field_key.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "ingest/analyzer.h"
#include "query/cluster_client.h"
#include "query/coordinator.h"
#include "query/parser.h"
#include "shards/server.h"
#include "tests/testing/bm25_oracle.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

struct Ranked {
  std::string id;
  double score;
  uint32_t bin;
  DocId docid;
};

// Some of the query's terms become phrases (negated ones stay negated):
// mostly two or three tokens side by side in a live document (so they
// match, repeated words included), else random words (mostly no match).
QueryNode WithPhrases(QueryNode q, std::mt19937_64& rng, const std::vector<const testing::ModelDoc*>& docs,
                      size_t vocab) {
  if (q.kind == QueryNode::Kind::kTerm) {
    if (rng() % 3 != 0) return q;
    std::vector<std::string> words;
    const testing::ModelDoc& d = *docs[rng() % docs.size()];
    const size_t n = 2 + rng() % 2;
    // A field's term becomes a phrase of that field (words of its stream).
    const std::vector<std::string> stream = testing::StreamOf(d, q.term);
    if (rng() % 4 != 0 && stream.size() >= n) {
      const size_t at = rng() % (stream.size() - n + 1);
      words.assign(stream.begin() + static_cast<ptrdiff_t>(at), stream.begin() + static_cast<ptrdiff_t>(at + n));
    } else {
      for (size_t i = 0; i < n; ++i) {
        const std::string w = testing::VocabTerm(rng() % vocab);
        words.push_back(IsFieldKey(q.term) ? FieldKey(FieldOfKey(q.term), w) : w);
      }
    }
    // A third of the phrases are proximity phrases ("a b"~N).
    return QueryNode::Phrase(std::move(words), q.negated, rng() % 3 == 0 ? static_cast<uint32_t>(1 + rng() % 4) : 0);
  }
  for (auto& c : q.children) c = WithPhrases(std::move(c), rng, docs, vocab);
  return q;
}

// One scenario: prefix_percent of the queries' leaves are prefixes; with
// `fields`, the documents have title and author fields and the queries
// ask them (testing::InRandomFields).
void CheckScenario(uint64_t seed, int prefix_percent, bool fields = false) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  testing::TempDir dir;
  IndexOptions options;
  options.bins = 1 + static_cast<uint32_t>(rng() % 32);
  options.tablets = 1 + static_cast<uint32_t>(rng() % std::min<uint32_t>(options.bins, 4));
  // Two seeds in three index positions and ask phrases too.
  options.positions = seed % 3 != 0;
  if (fields) options.fields = testing::ModelFields();
  const size_t vocab = 30 + rng() % 60;
  std::vector<testing::ModelDoc> stored;  // every version still in the files
  std::map<std::string, testing::ModelDoc> live;
  {
    auto writer = IndexWriter::Open(dir.path(), options);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    const int commits = 1 + static_cast<int>(rng() % 3);
    for (int c = 0; c < commits; ++c) {
      auto docs = testing::RandomCorpus(rng, 100 + rng() % 300, vocab, 25);
      for (auto& d : docs) d.id = std::to_string(10000 + rng() % 600);  // replacements across commits
      if (fields) testing::AddRandomFields(rng, vocab, &docs);
      std::map<std::string, testing::ModelDoc> batch;
      for (auto& d : docs) batch[d.id] = d;
      for (auto& [id, d] : batch) {
        stored.push_back(d);
        live[id] = d;
      }
      ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs, options.positions)).ok());
    }
    std::vector<std::string> gone;
    for (const auto& [id, d] : live) {
      if (rng() % 10 == 0) gone.push_back(id);
    }
    if (!gone.empty()) {
      ASSERT_TRUE((*writer)->Delete(gone).ok());
    }
    for (const auto& id : gone) live.erase(id);
    if (rng() % 2 == 0) {  // compaction drops deleted and replaced versions
      for (size_t t = 0; t < (*writer)->manifest().tablets.size(); ++t) {
        CompactionStats cs;
        ASSERT_TRUE(CompactTablet(writer->get(), t, &cs).ok());
      }
      stored.clear();
      for (const auto& [id, d] : live) stored.push_back(d);
    }
  }
  auto index = IndexReader::Open(dir.path());
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  std::vector<const testing::ModelDoc*> stored_ptrs;
  for (const auto& d : stored) stored_ptrs.push_back(&d);
  // Where each live document is: (bin, docid) from the doc stores.
  std::map<std::string, std::pair<uint32_t, DocId>> where;
  for (size_t t = 0; t < (*index)->tablet_count(); ++t) {
    const Tablet& tablet = (*index)->tablet(t);
    for (const auto& file : tablet.files()) {
      for (size_t i = 0; i < file->bin_count(); ++i) {
        std::vector<StoredDoc> docs;
        ASSERT_TRUE(file->docs(i).ReadAll(&docs).ok());
        const BinId bin{file->bin(i).bin};
        for (const auto& d : docs) {
          if (!tablet.IsDeleted(bin, d.docid)) where[d.id] = {bin.value, d.docid};
        }
      }
    }
  }
  ASSERT_EQ(where.size(), live.size());

  auto analyzer = Analyzer::Create();
  ASSERT_TRUE(analyzer.ok());
  CoordinatorOptions fanned;
  fanned.threads = 2;
  fanned.parallel_threshold = 0;
  Coordinator inline_coordinator(index->get(), CoordinatorOptions{1}), parallel_coordinator(index->get(), fanned);
  // Four servers: the tablets split in two ranges (one when there is a
  // single tablet), each range on two servers hosting exactly it.
  std::vector<std::unique_ptr<ShardServer>> servers;
  std::vector<ClusterRange> ranges;
  const uint32_t tablets = static_cast<uint32_t>((*index)->tablet_count());
  for (auto [first, last] : {std::make_pair(0u, tablets / 2 - (tablets > 1 ? 1 : 0)),
                             std::make_pair(tablets > 1 ? tablets / 2 : 0u, tablets - 1)}) {
    ClusterRange r{first, last, {}};
    for (int k = 0; k < 2; ++k) {
      ServerOptions o;
      o.workers = 2;
      o.log = [](const std::string&) {};
      auto server = ShardServer::Start(index->get(), first, last, o);
      ASSERT_TRUE(server.ok()) << server.status().ToString();
      r.replicas.push_back("127.0.0.1:" + std::to_string((*server)->port()));
      servers.push_back(std::move(server).value());
    }
    ranges.push_back(r);
    if (tablets == 1) break;
  }
  auto cluster = ClusterClient::Connect(ranges, ClusterOptions{});
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  const std::vector<std::pair<const char*, Searcher*>> searchers = {
      {"inline", &inline_coordinator}, {"parallel", &parallel_coordinator}, {"cluster", cluster->get()}};

  std::vector<const testing::ModelDoc*> live_ptrs;
  for (const auto& [id, d] : live) live_ptrs.push_back(&d);
  for (int q = 0; q < 60; ++q) {
    QueryNode generated = testing::RandomQuery(rng, vocab, 0, prefix_percent);
    if (fields) generated = testing::InRandomFields(rng, std::move(generated));
    if (options.positions && !live_ptrs.empty() && q % 2 == 1) generated = WithPhrases(std::move(generated), rng, live_ptrs, vocab);
    auto parsed = ParseQuery(generated.ToString(), analyzer->get(), &options.fields);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    SCOPED_TRACE("query " + parsed->ToString());
    // Every third query with other BM25 parameters (k1 0 and b 0 and 1 included).
    Bm25Params params;
    if (q % 3 == 2) params = {static_cast<double>(rng() % 7) / 2, static_cast<double>(rng() % 5) / 4};
    SCOPED_TRACE("k1 " + std::to_string(params.k1) + " b " + std::to_string(params.b));
    const auto scores = testing::BruteForceScores(live, stored_ptrs, *parsed, params, options.fields);
    std::vector<Ranked> want;
    for (const auto& [id, score] : scores) want.push_back({id, score, where.at(id).first, where.at(id).second});
    std::sort(want.begin(), want.end(), [](const Ranked& a, const Ranked& b) {
      return std::tie(b.score, a.bin, a.docid) < std::tie(a.score, b.bin, b.docid);
    });
    for (auto [name, searcher] : searchers) {  // the exact count too
      SearchOptions count;
      count.count_only = true;
      uint64_t n = 0;
      ASSERT_TRUE(searcher->Run(*parsed, count, [&](const BinResult& b) {
        n += b.count;
        return true;
      }, nullptr).ok());
      EXPECT_EQ(n, want.size()) << name << " count";
    }
    for (size_t k : {size_t{1}, size_t{10}, size_t{100}, want.size() + 5}) {
      SCOPED_TRACE("k " + std::to_string(k));
      for (auto [name, searcher] : searchers) {
        SCOPED_TRACE(name);
        SearchOptions ranked;
        ranked.top_k = k;
        ranked.bm25 = params;
        ranked.fetch = Fetch::kIdsAndTitles;
        std::vector<Ranked> got;
        SearchStats stats;
        ASSERT_TRUE(searcher->Run(*parsed, ranked, [&](const BinResult& b) {
          EXPECT_EQ(b.scores.size(), b.docs.size());
          EXPECT_EQ(b.stored.size(), b.docs.size());
          for (size_t i = 0; i < b.docs.size(); ++i) got.push_back({b.stored[i].id, b.scores[i], b.bin.value, b.docs[i]});
          return true;
        }, &stats).ok());
        EXPECT_FALSE(stats.partial);
        EXPECT_EQ(stats.results, got.size());
        ASSERT_EQ(got.size(), std::min(k, want.size()));
        for (size_t i = 0; i < got.size(); ++i) {
          EXPECT_EQ(got[i].id, want[i].id) << "rank " << i;
          EXPECT_EQ(got[i].score, want[i].score) << "rank " << i << " " << got[i].id;  // the same formula, bit for bit
          EXPECT_EQ(got[i].score, scores.at(got[i].id)) << got[i].id << " carries another document's score";
        }
      }
      // A page of the ranking: --offset skips the best ones (here K
      // after the offset; the servers are asked for K + offset a bin).
      SearchOptions page;
      page.top_k = std::min<size_t>(k, 12);
      page.offset = 1 + rng() % 9;
      page.bm25 = params;
      std::vector<std::pair<uint32_t, DocId>> want_page;
      for (size_t i = page.offset; i < std::min(page.offset + page.top_k, want.size()); ++i) {
        want_page.emplace_back(want[i].bin, want[i].docid);
      }
      for (auto [name, searcher] : searchers) {
        SCOPED_TRACE(std::string(name) + " offset " + std::to_string(page.offset));
        std::vector<std::pair<uint32_t, DocId>> page_docs;
        SearchStats stats;
        ASSERT_TRUE(searcher->Run(*parsed, page, [&](const BinResult& b) {
          for (DocId d : b.docs) page_docs.emplace_back(b.bin.value, d);
          return true;
        }, &stats).ok());
        EXPECT_EQ(page_docs, want_page);
        EXPECT_EQ(stats.skipped, std::min(page.offset, want.size()));
      }
    }
  }
}

class RankedProperty : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RankedProperty, TopKEqualsBruteForceBm25) { CheckScenario(GetParam(), 0); }

// A prefix ranks as the OR of its expansions (the oracle expands it over
// the stored documents' terms, in term order): `t*` gives more than 16
// terms (scored term at a time), `t1*` 11 (MaxScore when alone).
TEST_P(RankedProperty, PrefixTopKEqualsBruteForceBm25) { CheckScenario(GetParam(), 35); }

// Fields (title, author): a field's term scores with the field's N, df,
// lengths and avgdl; queries wholly in one field take the pruned rankings
// over that field's lengths and block scores, mixed ones score exhaustively.
TEST_P(RankedProperty, FieldTopKEqualsBruteForceBm25) { CheckScenario(GetParam(), 20, true); }

INSTANTIATE_TEST_SUITE_P(Seeds, RankedProperty, ::testing::Range<uint64_t>(1, 13));

}  // namespace
}  // namespace dps
