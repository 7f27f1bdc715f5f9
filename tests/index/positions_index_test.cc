// Word positions through the whole write path: commits (appends,
// replacements, deletes) and compaction of an index with positions keep
// every live (term, document)'s positions exactly; lists of every form
// (singletons, inline lists, one block, many blocks, long position runs).
// The oracle is the model documents' token streams.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "index/compaction.h"
#include "index/entry_cursor.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using Model = std::map<std::string, testing::ModelDoc>;  // live documents by id

// Every entry of the index, with its positions, against the model.
void ExpectPositionsMatch(const std::string& dir, const Model& live) {
  testing::PositionsByEntry want, got;
  for (const auto& [id, doc] : live) {
    for (const auto& [term, positions] : testing::PositionsOf(doc)) want[{term, id}] = positions;
  }
  const Status s = testing::ReadAllPositions(dir, &got);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(got.size(), want.size());
  for (const auto& [key, positions] : want) {
    auto it = got.find(key);
    ASSERT_NE(it, got.end()) << key.first << " in " << key.second;
    EXPECT_EQ(it->second, positions) << key.first << " in " << key.second;
  }
}

TEST(PositionsIndex, CommitsDeletesAndCompactionKeepEveryPosition) {
  for (uint64_t seed : {1, 2, 3}) {
    std::mt19937_64 rng(seed);
    testing::TempDir dir;
    IndexOptions options;
    options.bins = 1 + static_cast<uint32_t>(rng() % 4);
    options.tablets = 1;
    options.positions = true;
    auto writer = IndexWriter::Open(dir.path(), options);
    ASSERT_TRUE(writer.ok());
    Model live;
    // Few terms and long documents: lists of many blocks and postings with
    // hundreds of positions; a long vocabulary tail: singletons and inline lists.
    for (int commit = 0; commit < 4; ++commit) {
      auto docs = testing::RandomCorpus(rng, 150 + rng() % 200, commit % 2 ? 40 : 4000, commit == 2 ? 900 : 60);
      for (auto& d : docs) d.id = "doc-" + std::to_string(rng() % 500);  // replacements, across commits too
      std::map<std::string, testing::ModelDoc> last;  // within a commit the last copy wins
      for (auto& d : docs) last[d.id] = d;
      ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs, true)).ok());
      for (auto& [id, d] : last) live[id] = d;
      std::vector<std::string> doomed;
      for (int k = 0; k < 10; ++k) doomed.push_back("doc-" + std::to_string(rng() % 500));
      ASSERT_TRUE((*writer)->Delete(doomed).ok());
      for (const auto& id : doomed) live.erase(id);
    }
    ExpectPositionsMatch(dir.path(), live);
    CompactionStats stats;
    ASSERT_TRUE(CompactTablet(writer->get(), 0, &stats).ok());
    EXPECT_EQ((*writer)->current().tablet(0).files().size(), 1u);
    ExpectPositionsMatch(dir.path(), live);
  }
}

TEST(PositionsIndex, DocumentsWithoutTheirPositionsAreRefused) {
  std::mt19937_64 rng(4);
  auto docs = testing::RandomCorpus(rng, 5, 10, 10);
  for (bool index_positions : {true, false}) {
    testing::TempDir dir;
    IndexOptions options;
    options.positions = index_positions;
    auto writer = IndexWriter::Open(dir.path(), options);
    ASSERT_TRUE(writer.ok());
    const Status s = (*writer)->Commit(testing::ToAnalyzed(docs, !index_positions));
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  }
}

}  // namespace
}  // namespace dps
