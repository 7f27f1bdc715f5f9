#include "index/compaction.h"

#include <gtest/gtest.h>

#include <random>

#include "index/check.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

TEST(Compaction, RewritesATabletIntoOneFileWithoutDeletedDocuments) {
  std::mt19937_64 rng(8);
  testing::TempDir dir;
  IndexOptions options;
  options.bins = 4;
  options.tablets = 1;
  auto writer = IndexWriter::Open(dir.path(), options);
  ASSERT_TRUE(writer.ok());
  auto docs = testing::RandomCorpus(rng, 200, 50, 20);
  ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
  auto again = testing::RandomCorpus(rng, 50, 50, 20);  // replaces doc-0..49
  ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(again)).ok());
  ASSERT_TRUE((*writer)->Delete({"doc-60", "doc-61"}).ok());
  const QueryNode q = QueryNode::Or({QueryNode::Term("t0"), QueryNode::Term("t1")});
  const auto before = testing::RunQuery(dir.path(), q);
  ASSERT_EQ((*writer)->current().tablet(0).files().size(), 3u);

  CompactionStats stats;
  ASSERT_TRUE(CompactTablet(writer->get(), 0, &stats).ok());
  EXPECT_EQ(stats.documents_dropped, 52u);  // 50 replaced + 2 deleted
  EXPECT_EQ(stats.files_in, 3u);
  const Tablet& tablet = (*writer)->current().tablet(0);
  ASSERT_EQ(tablet.files().size(), 1u);
  for (uint32_t bin = 0; bin < 4; ++bin) EXPECT_TRUE(tablet.deleted(BinId{bin}).empty());
  EXPECT_EQ(testing::RunQuery(dir.path(), q), before);
  CheckReport report;
  ASSERT_TRUE(CheckIndex(dir.path(), &report).ok());
  EXPECT_EQ(report.documents, 198u);
  // Old files are gone from the directory.
  EXPECT_EQ(report.files, 1u);
  // A second compaction of a clean single-file tablet does nothing.
  CompactionStats none;
  ASSERT_TRUE(CompactTablet(writer->get(), 0, &none).ok());
  EXPECT_EQ(none.tablets, 0u);
}

TEST(Compaction, RatioRuleKeepsFileCountsLogarithmic) {
  testing::TempDir dir;
  IndexOptions options;
  options.bins = 2;
  options.tablets = 1;
  auto writer = IndexWriter::Open(dir.path(), options);
  ASSERT_TRUE(writer.ok());
  std::mt19937_64 rng(9);
  size_t max_files = 0;
  for (int i = 0; i < 40; ++i) {
    auto docs = testing::RandomCorpus(rng, 20, 30, 10);
    for (auto& d : docs) d.id.append("-").append(std::to_string(i));
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
    CompactionStats stats;
    ASSERT_TRUE(CompactWhereNeeded(writer->get(), &stats).ok());
    max_files = std::max(max_files, (*writer)->current().tablet(0).files().size());
  }
  // 40 appends of similar size: a binary-counter pattern keeps ~log2(40).
  EXPECT_LE(max_files, 6u);
  EXPECT_GE(max_files, 2u);
}

}  // namespace
}  // namespace dps
