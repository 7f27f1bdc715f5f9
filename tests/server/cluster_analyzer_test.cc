// Queries cross the wire analyzed, so a cluster's coordinator must analyze
// them as the servers' index analyzed its documents: the client takes the
// analyzer from the servers' Welcome (docs/PROTOCOL.md, version 5), and a
// query analyzed with it finds what the in-process searcher finds.
#include <gtest/gtest.h>

#include "ingest/analyzer.h"
#include "query/coordinator.h"
#include "query/parser.h"
#include "tests/server/cluster_fixture.h"

namespace dps {
namespace {

using namespace cluster_testing;

// An index made with `spec`, its documents analyzed by that analyzer.
std::unique_ptr<IndexReader> MakeIndex(const std::string& dir, const AnalyzerSpec& spec,
                                       const std::vector<std::pair<std::string, std::string>>& docs) {
  IndexOptions options;
  options.bins = 4;
  options.tablets = 2;
  options.analyzer = spec;
  auto writer = IndexWriter::Open(dir, options);
  EXPECT_TRUE(writer.ok());
  auto analyzer = Analyzer::Create(spec);
  EXPECT_TRUE(analyzer.ok());
  std::vector<AnalyzedDocument> batch;
  for (const auto& [id, text] : docs) {
    AnalyzedDocument d;
    d.id = id;
    d.text = text;
    std::vector<std::string> tokens;
    (*analyzer)->Analyze(text, &tokens, nullptr);
    std::map<std::string, uint32_t> tf;
    for (const auto& t : tokens) ++tf[t];
    d.terms.assign(tf.begin(), tf.end());
    batch.push_back(std::move(d));
  }
  EXPECT_TRUE((*writer)->Commit(batch).ok());
  auto reader = IndexReader::Open(dir);
  EXPECT_TRUE(reader.ok());
  return std::move(reader).value();
}

std::set<std::string> Ids(Searcher* searcher, const std::string& query) {
  auto analyzer = Analyzer::Create(searcher->analyzer_spec());
  EXPECT_TRUE(analyzer.ok());
  auto root = ParseQuery(query, analyzer->get());
  EXPECT_TRUE(root.ok()) << root.status().ToString();
  std::set<std::string> ids;
  SearchOptions options;
  options.fetch = Fetch::kIdsAndTitles;
  Status s = searcher->Run(std::move(root).value(), options, [&](const BinResult& b) {
    for (const auto& d : b.stored) ids.insert(d.id);
    return true;
  }, nullptr);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return ids;
}

TEST(ClusterAnalyzer, TheClientAnalyzesWithTheServersIndexAnalyzer) {
  testing::TempDir dir;
  const AnalyzerSpec spec = *AnalyzerSpec::Parse("icu fold-accents stem=english");
  auto index = MakeIndex(dir.path(), spec,
                         {{"a", "the dog was running"}, {"b", "she runs daily"}, {"c", "a café in town"},
                          {"d", "nothing here"}, {"e", "Run, Forrest"}, {"f", "cafes and bars"}});
  ServerOptions options;
  options.workers = 1;
  options.log = [](const std::string&) {};
  auto server = ShardServer::Start(index.get(), 0, 1, options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto client = Client({{0, 1, {Addr((*server)->port())}}});
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(client->analyzer_spec(), spec);
  Coordinator local(index.get(), CoordinatorOptions{1});
  EXPECT_EQ(local.analyzer_spec(), spec);
  for (const std::string query : {"running", "RUN", "Café", "cafe OR dog"}) {
    EXPECT_EQ(Ids(client.get(), query), Ids(&local, query)) << query;
  }
  EXPECT_EQ(Ids(client.get(), "running"), (std::set<std::string>{"a", "b", "e"}));
  EXPECT_EQ(Ids(client.get(), "CAFÉ"), (std::set<std::string>{"c", "f"}));
}

}  // namespace
}  // namespace dps
