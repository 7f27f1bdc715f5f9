// Property test of the whole search path: query text -> parse -> plan ->
// coordinator (in-process) or cluster client -> shard servers (over
// loopback) -> bins, on corpora whose posting lists span many blocks
// (thousands of documents, Zipf term frequencies, several files per tablet),
// after appends, replacements, deletes and compactions. Every answer (ids,
// counts, limits, pages) is compared with a brute-force evaluation of the model,
// and every matched document's weights with the model's term frequencies.
// Each failure names the scenario's seed (SCOPED_TRACE).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "index/compaction.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "ingest/analyzer.h"
#include "query/cluster_client.h"
#include "query/coordinator.h"
#include "query/parser.h"
#include "shards/server.h"
#include "shards/snippet.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using testing::ModelDoc;

// A document as a search returns it.
struct Hit {
  uint32_t bin = 0;
  DocId docid = 0;
  std::string id;
};

struct Answer {
  std::vector<Hit> hits;
  uint64_t count = 0;
};

struct Scenario {
  uint64_t seed = 0;
  testing::TempDir dir;
  size_t vocab = 0;
  std::map<std::string, ModelDoc> live;
  std::unique_ptr<IndexReader> index;
};

// A first commit of at least 1,000 documents a bin (lists of many blocks),
// 2-3 more whose ids overlap it (replacements, several files a tablet),
// deletes, then a compaction of one tablet (one file) followed by more
// deletes (tombstones in a single-file bin: the kernel must not run there).
void Build(Scenario* s) {
  std::mt19937_64 rng(s->seed);
  IndexOptions options;
  options.bins = 1 + static_cast<uint32_t>(rng() % 4);
  options.tablets = 1 + static_cast<uint32_t>(rng() % options.bins);
  s->vocab = 80 + rng() % 300;
  auto writer = IndexWriter::Open(s->dir.path(), options);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  const size_t id_space = 1000 * options.bins + 2000;
  auto delete_some = [&](size_t n) {
    std::vector<std::string> gone;
    for (size_t k = 0; k < n && !s->live.empty(); ++k) {
      auto it = s->live.begin();
      std::advance(it, rng() % s->live.size());
      gone.push_back(it->first);
      s->live.erase(it);
    }
    gone.push_back("never-ingested");
    ASSERT_TRUE((*writer)->Delete(gone).ok());
  };
  const int commits = 3 + static_cast<int>(rng() % 2);
  for (int c = 0; c < commits; ++c) {
    const size_t n = c == 0 ? 1000 * options.bins + rng() % 1000 : 300 + rng() % 1200;
    auto docs = testing::RandomCorpus(rng, n, s->vocab, 20 + rng() % 60);
    std::set<std::string> seen;
    std::vector<ModelDoc> unique;
    for (auto& d : docs) {
      d.id = "doc-" + std::to_string(rng() % id_space);
      if (seen.insert(d.id).second) unique.push_back(std::move(d));
    }
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(unique)).ok());
    for (auto& d : unique) s->live[d.id] = d;
    if (rng() % 2 == 0) delete_some(60);
    if (::testing::Test::HasFatalFailure()) return;
  }
  if (options.tablets >= 2) {  // the others keep their files
    CompactionStats cstats;
    Status st = CompactTablet(writer->get(), rng() % options.tablets, &cstats);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  delete_some(100);
  if (::testing::Test::HasFatalFailure()) return;
  auto index = IndexReader::Open(s->dir.path());
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  s->index = std::move(index).value();
  // The reach this test exists for: a tablet of several files, and a list
  // of many 128-posting blocks (skip table, seeks across blocks) in a file.
  size_t most_files = 0;
  std::string files_per_tablet;
  for (size_t t = 0; t < s->index->tablet_count(); ++t) {
    most_files = std::max(most_files, s->index->tablet(t).files().size());
    files_per_tablet += std::to_string(s->index->tablet(t).files().size()) + " ";
  }
  EXPECT_GE(most_files, 2u) << "files per tablet: " << files_per_tablet;
  TermTable table;
  ASSERT_TRUE(table.Add(s->index->global(), testing::VocabTerm(0)).ok());
  uint32_t longest = 0;
  for (const auto& ref : table.entries[0].second.refs) longest = std::max(longest, ref.df);
  EXPECT_GE(longest, 4u * 128) << "the most frequent term's longest list in one file";
}

// A random query: the test utilities' trees (mostly frequent terms, AND /
// OR / NOT; prefix_percent of their leaves prefixes), or a conjunction of
// 2-3 terms drawn uniformly from the vocabulary (rare leaders: the
// kernel's seeks across blocks).
QueryNode RandomSearch(std::mt19937_64& rng, size_t vocab, int prefix_percent) {
  if (rng() % 3 != 0) return testing::RandomQuery(rng, vocab, 0, prefix_percent);
  std::vector<QueryNode> terms;
  const size_t n = 2 + rng() % 2;
  for (size_t i = 0; i < n; ++i) terms.push_back(QueryNode::Term(testing::VocabTerm(rng() % vocab)));
  return QueryNode::And(std::move(terms));
}

std::set<std::string> Ids(const std::vector<Hit>& hits) {
  std::set<std::string> ids;
  for (const auto& h : hits) ids.insert(h.id);
  return ids;
}

std::string Describe(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += x + " ";
  return out;
}

// Runs a query through a searcher, fetching ids and titles.
Answer Search(Searcher* searcher, const QueryNode& root, SearchOptions options) {
  Answer a;
  options.fetch = Fetch::kIdsAndTitles;
  SearchStats stats;
  Status s = searcher->Run(root, options, [&](const BinResult& b) {
    a.count += b.count;
    EXPECT_EQ(b.stored.size(), options.count_only ? 0 : b.docs.size());
    for (size_t i = 0; i < b.stored.size(); ++i) a.hits.push_back({b.bin.value, b.docs[i], b.stored[i].id});
    return true;
  }, &stats);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(stats.partial);
  return a;
}

// Within each bin docids ascend; every hit is a distinct document; each
// positive term's weight in a hit is the model's tf (and a term the model
// document lacks is absent from its postings).
void CheckHits(const Scenario& s, const QueryNode& root, const std::vector<Hit>& hits) {
  std::map<uint32_t, DocId> last;
  std::set<std::pair<uint32_t, DocId>> seen;
  for (const auto& h : hits) {
    auto it = last.find(h.bin);
    EXPECT_TRUE(it == last.end() || h.docid > it->second) << "docid order in bin " << h.bin;
    last[h.bin] = h.docid;
    EXPECT_TRUE(seen.insert({h.bin, h.docid}).second) << "duplicate hit " << h.id;
  }
  std::vector<std::string> positive;
  PositiveTerms(root, &positive);
  size_t checked = 0;
  for (const auto& h : hits) {
    if (++checked > 150) break;  // enough to cover every layout; keeps the test quick
    const ModelDoc& doc = s.live.at(h.id);
    for (const auto& term : positive) {
      auto postings = s.index->OpenTerm(BinId{h.bin}, term);
      ASSERT_TRUE(postings.ok()) << postings.status().ToString();
      const auto want = doc.terms.find(term);
      if (*postings == nullptr) {
        EXPECT_TRUE(want == doc.terms.end()) << h.id << " lost term " << term;
        continue;
      }
      const bool found = (*postings)->Seek(h.docid) == h.docid;
      EXPECT_EQ(found, want != doc.terms.end()) << h.id << " term " << term;
      if (found && want != doc.terms.end()) {
        EXPECT_EQ((*postings)->weight(), want->second) << h.id << " weight of " << term;
      }
    }
  }
}

// Every query of a scenario, through every searcher, against brute force.
void CheckScenario(uint64_t seed, int prefix_percent) {
  Scenario s;
  s.seed = seed;
  SCOPED_TRACE("seed " + std::to_string(s.seed));
  Build(&s);
  if (::testing::Test::HasFatalFailure()) return;
  auto analyzer = Analyzer::Create();
  ASSERT_TRUE(analyzer.ok());

  // In-process: one worker (inline) and two workers with every plan fanned
  // out (parallel_threshold 0).
  CoordinatorOptions fanned;
  fanned.threads = 2;
  fanned.parallel_threshold = 0;
  Coordinator inline_coordinator(s.index.get(), CoordinatorOptions{1}),
      parallel_coordinator(s.index.get(), fanned);

  // Over servers: tablets split into two ranges, each served by two servers
  // that host exactly that range (a query routed to the wrong server fails).
  const uint32_t tablets = static_cast<uint32_t>(s.index->tablet_count());
  const uint32_t split = tablets / 2;
  std::vector<std::unique_ptr<ShardServer>> servers;
  std::vector<ClusterRange> ranges;
  auto serve_range = [&](uint32_t first, uint32_t last) {
    ClusterRange r{first, last, {}};
    for (int k = 0; k < 2; ++k) {
      ServerOptions o;
      o.workers = 2;
      o.log = [](const std::string&) {};
      auto server = ShardServer::Start(s.index.get(), first, last, o);
      ASSERT_TRUE(server.ok()) << server.status().ToString();
      r.replicas.push_back("127.0.0.1:" + std::to_string((*server)->port()));
      servers.push_back(std::move(server).value());
    }
    ranges.push_back(r);
  };
  if (split > 0) serve_range(0, split - 1);
  serve_range(split, tablets - 1);
  if (::testing::Test::HasFatalFailure()) return;
  auto client = ClusterClient::Connect(ranges, ClusterOptions{});
  ASSERT_TRUE(client.ok()) << client.status().ToString();

  std::mt19937_64 rng(s.seed * 7919);
  for (int q = 0; q < 40; ++q) {
    const QueryNode query = RandomSearch(rng, s.vocab, prefix_percent);
    const std::string text = query.ToString();
    SCOPED_TRACE("query " + text);
    auto parsed = ParseQuery(text, analyzer->get());
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    std::set<std::string> want;
    for (const auto& [id, d] : s.live) {
      if (testing::Matches(query, d.terms)) want.insert(id);
    }

    std::map<std::pair<uint32_t, DocId>, std::string> reference_snippets;
    for (auto [name, searcher] : {std::make_pair("inline", static_cast<Searcher*>(&inline_coordinator)),
                                  std::make_pair("parallel", static_cast<Searcher*>(&parallel_coordinator)),
                                  std::make_pair("cluster", static_cast<Searcher*>(client->get()))}) {
      SCOPED_TRACE(name);
      Answer a = Search(searcher, *parsed, SearchOptions());
      const auto got = Ids(a.hits);
      ASSERT_EQ(got, want) << "\n got:  " << Describe(got) << "\n want: " << Describe(want);
      EXPECT_EQ(a.count, want.size());
      EXPECT_EQ(a.hits.size(), want.size()) << "a document answered twice";
      CheckHits(s, *parsed, a.hits);
      SearchOptions count;
      count.count_only = true;
      EXPECT_EQ(Search(searcher, *parsed, count).count, want.size());
      SearchOptions limited;
      limited.limit = 1 + rng() % 40;
      Answer l = Search(searcher, *parsed, limited);
      EXPECT_EQ(l.count, std::min(limited.limit, want.size()));
      EXPECT_EQ(l.hits.size(), l.count);
      for (const auto& id : Ids(l.hits)) EXPECT_TRUE(want.count(id)) << "limited answer has " << id;
      // Paging: a page is the slice [offset, offset + limit) of the whole
      // answer in (bin, docid) order, however the bins finish.
      std::vector<std::pair<uint32_t, DocId>> all;
      for (const auto& h : a.hits) all.emplace_back(h.bin, h.docid);
      std::sort(all.begin(), all.end());
      SearchOptions page;
      page.ordered = true;
      page.offset = rng() % (want.size() + 3);
      page.limit = rng() % 3 == 0 ? 0 : 1 + rng() % 40;
      Answer p = Search(searcher, *parsed, page);
      std::vector<std::pair<uint32_t, DocId>> got_page;
      for (const auto& h : p.hits) got_page.emplace_back(h.bin, h.docid);
      const size_t from = std::min(page.offset, all.size());
      const size_t to = page.limit == 0 ? all.size() : std::min(all.size(), page.offset + page.limit);
      const std::vector<std::pair<uint32_t, DocId>> want_page(all.begin() + from, all.begin() + to);
      EXPECT_EQ(got_page, want_page)
          << "page offset " << page.offset << " limit " << page.limit;
      EXPECT_EQ(p.count, to - from);
      // Snippets: made where the text is, the same in-process and over
      // servers (one per hit, the query's terms marked).
      if (q % 8 == 0) {
        SearchOptions with_snippets;
        with_snippets.fetch = Fetch::kSnippet;
        std::map<std::pair<uint32_t, DocId>, std::string> snippets;
        ASSERT_TRUE(searcher->Run(*parsed, with_snippets, [&](const BinResult& b) {
          for (size_t i = 0; i < b.stored.size(); ++i) snippets[{b.bin.value, b.docs[i]}] = b.stored[i].text;
          return true;
        }, nullptr).ok());
        EXPECT_EQ(snippets.size(), want.size());
        if (std::string(name) == "inline") {
          reference_snippets = snippets;
          for (const auto& [key, snippet] : snippets) {
            EXPECT_NE(snippet.find(kSnippetMarkBegin), std::string::npos) << "no term marked in " << snippet;
          }
        } else {
          EXPECT_TRUE(snippets == reference_snippets) << "snippets differ from the inline searcher's";
        }
      }
    }
  }
}

class SearchProperty : public ::testing::TestWithParam<uint64_t> {};

TEST_P(SearchProperty, TextQueriesMatchBruteForceInProcessAndOverServers) { CheckScenario(GetParam(), 0); }

// Prefixes in the trees (`t1*`: t1, t10..t19; `t*`: every term, an OR of
// more than 16 materialized; prefixes of no term), parsed from text,
// expanded in-process and by each server alike.
TEST_P(SearchProperty, PrefixQueriesMatchBruteForceInProcessAndOverServers) { CheckScenario(GetParam(), 35); }

INSTANTIATE_TEST_SUITE_P(Seeds, SearchProperty, ::testing::Range<uint64_t>(1, 9));

}  // namespace
}  // namespace dps
