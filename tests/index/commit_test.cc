// The global index across commits: term lists (.dic) live only during a
// commit, and refs stay right when files are appended or a suffix of a
// tablet's files is compacted (refs to the older files keep their
// positions, refs to the replaced ones come from the new file).
#include <gtest/gtest.h>

#include <unistd.h>

#include <random>

#include "common/file.h"
#include "index/check.h"
#include "index/compaction.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

size_t CountWithSuffix(const std::string& dir, const std::string& suffix) {
  auto names = ListDir(dir);
  EXPECT_TRUE(names.ok());
  size_t n = 0;
  for (const auto& name : *names) n += name.ends_with(suffix);
  return n;
}

TEST(Commit, TermListsAreGoneAfterCommitAndStraysAreRemoved) {
  std::mt19937_64 rng(3);
  testing::TempDir dir;
  IndexOptions options;
  options.bins = 4;
  options.tablets = 2;
  {
    auto writer = IndexWriter::Open(dir.path(), options);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(testing::RandomCorpus(rng, 100, 40, 10))).ok());
    EXPECT_EQ(CountWithSuffix(dir.path(), ".tab"), 2u);
    EXPECT_EQ(CountWithSuffix(dir.path(), ".dic"), 0u);
  }
  ASSERT_TRUE(WriteFileAtomically(dir.path() + "/000099.dic", "left by a crash").ok());
  auto writer = IndexWriter::Open(dir.path(), options);
  ASSERT_TRUE(writer.ok());
  EXPECT_EQ(CountWithSuffix(dir.path(), ".dic"), 0u);
  CheckReport report;
  EXPECT_TRUE(CheckIndex(dir.path(), &report).ok());
}

// One writer at a time: a second writer (another open file description,
// as another process has) is refused naming the holder's pid, and gets the
// lock once the first is gone; readers open meanwhile.
TEST(Commit, ASecondWriterIsRefusedNamingTheHolder) {
  std::mt19937_64 rng(4);
  testing::TempDir dir;
  IndexOptions options;
  options.bins = 2;
  options.tablets = 1;
  auto first = IndexWriter::Open(dir.path(), options);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE((*first)->Commit(testing::ToAnalyzed(testing::RandomCorpus(rng, 20, 10, 5))).ok());
  auto second = IndexWriter::Open(dir.path(), options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(), dir.path() + ": index is locked by pid " + std::to_string(::getpid()) +
                                           " (another process is writing to this index)");
  EXPECT_TRUE(IndexReader::Open(dir.path()).ok()) << "a reader was blocked by the lock";
  first->reset();
  EXPECT_TRUE(IndexWriter::Open(dir.path(), options).ok());
}

// A writer deletes what the MANIFEST does not name when it closes, but
// only the lock's holder: a refused writer must leave alone the files of
// the commit the holder is still writing.
TEST(Commit, ARefusedWriterLeavesTheHoldersFilesAlone) {
  std::mt19937_64 rng(5);
  testing::TempDir dir;
  IndexOptions options;
  options.bins = 2;
  options.tablets = 1;
  auto holder = IndexWriter::Open(dir.path(), options);
  ASSERT_TRUE(holder.ok());
  ASSERT_TRUE((*holder)->Commit(testing::ToAnalyzed(testing::RandomCorpus(rng, 20, 10, 5))).ok());
  const std::string in_progress = dir.path() + "/" + (*holder)->AllocateFileName(".run.tmp");
  ASSERT_TRUE(WriteFileAtomically(in_progress, "a spill run being written").ok());
  EXPECT_FALSE(IndexWriter::Open(dir.path(), options).ok());
  EXPECT_TRUE(FileExists(in_progress)) << "the refused writer deleted the holder's file";
  holder->reset();
  EXPECT_FALSE(FileExists(in_progress)) << "the holder's own stray survived it";
}

TEST(Commit, SuffixCompactionKeepsRefsOfOlderFiles) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed);
    testing::TempDir dir;
    IndexOptions options;
    options.bins = 3;
    options.tablets = 1;
    auto writer = IndexWriter::Open(dir.path(), options);
    ASSERT_TRUE(writer.ok());
    std::map<std::string, testing::ModelDoc> live;
    for (int c = 0; c < 4; ++c) {
      auto docs = testing::RandomCorpus(rng, 80, 30, 8);
      for (auto& d : docs) d.id = "doc-" + std::to_string(rng() % 150);
      ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
      for (auto& d : docs) live[d.id] = d;
    }
    ASSERT_EQ((*writer)->current().tablet(0).files().size(), 4u);
    CompactionStats stats;
    ASSERT_TRUE(CompactTabletSuffix(writer->get(), 0, 2, &stats).ok());
    ASSERT_EQ((*writer)->current().tablet(0).files().size(), 3u);
    CheckReport report;
    Status checked = CheckIndex(dir.path(), &report);
    ASSERT_TRUE(checked.ok()) << checked.ToString();
    for (int k = 0; k < 40; ++k) {
      const QueryNode q = testing::RandomQuery(rng, 30);
      std::set<std::string> want;
      for (const auto& [id, d] : live) {
        if (testing::Matches(q, d.terms)) want.insert(id);
      }
      ASSERT_EQ(testing::RunQuery(dir.path(), q), want) << "seed " << seed << " " << q.ToString();
    }
  }
}

}  // namespace
}  // namespace dps
