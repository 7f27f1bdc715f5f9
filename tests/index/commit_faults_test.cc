// Commits on a failing disk (issue 21): a commit, a delete and a compaction
// are run again and again, the first time with their first write (fsync,
// directory fsync, rename) failing, then the second, and so on until one
// goes through. Every failure must be an I/O error naming the file, leave
// the index at its previous generation with `check` clean and the same
// answers, and leave no file the MANIFEST does not name once the writer is
// gone; the run that goes through must answer like the model.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <random>

#include "common/fault_injection.h"
#include "index/compaction.h"
#include "tests/testing/fault_testing.h"

namespace dps {
namespace {

using faults::Op;
using testing::FaultedIndex;

constexpr size_t kVocab = 50;

// Fails the (n+1)-th `op` call of `change` for n = 0, 1, ... until it
// succeeds; returns how many calls it made then.
uint64_t FailEachCallInTurn(FaultedIndex& index, Op op, const std::function<Status(IndexWriter*)>& change) {
  const auto before = index.Take();
  for (uint64_t n = 0;; ++n) {
    SCOPED_TRACE(std::string(faults::OpName(op)) + " call " + std::to_string(n + 1));
    auto writer = IndexWriter::Open(index.dir(), index.options());
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    if (!writer.ok()) return 0;
    testing::FailCall(op, n);
    const Status s = change(writer->get());
    const uint64_t calls = faults::Calls(op), failures = faults::Failures();
    faults::Disarm();
    if (s.ok()) {
      EXPECT_EQ(failures, 0u);
      EXPECT_EQ(calls, n) << "the calls counted differ from the failures seen";
      std::printf("%s: %llu calls, each failed in turn\n", faults::OpName(op), static_cast<unsigned long long>(n));
      return calls;
    }
    EXPECT_EQ(failures, 1u) << s.ToString();
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_EQ(s.message().rfind(index.dir(), 0), 0u) << "does not start with the file: " << s.message();
    EXPECT_NE(s.message().find(std::strerror(op == Op::kWrite ? ENOSPC : EIO)), std::string::npos) << s.message();
    writer->reset();
    index.ExpectAsBefore(before);
    if (::testing::Test::HasFailure()) return 0;
  }
}

class CommitFaults : public ::testing::TestWithParam<Op> {};

TEST_P(CommitFaults, ACommitFailingAtAnyCallLeavesThePreviousIndex) {
  std::mt19937_64 rng(21);
  FaultedIndex index(rng, kVocab, /*commits=*/2);
  auto docs = testing::RandomCorpus(rng, 120, kVocab, 12);
  for (size_t i = 0; i < docs.size(); ++i) docs[i].id = "doc-" + std::to_string(i * 3);  // a third replace
  const uint64_t calls = FailEachCallInTurn(index, GetParam(), [&](IndexWriter* w) {
    return w->Commit(testing::ToAnalyzed(docs));
  });
  // Two tablets (a file and its term list each), the global index and the
  // MANIFEST: the loop saw every one of them fail.
  EXPECT_GE(calls, GetParam() == Op::kWrite || GetParam() == Op::kSync ? 6u : 1u);
  index.Apply(docs, {});
  index.ExpectLikeModel();
}

TEST_P(CommitFaults, ADeleteFailingAtAnyCallLeavesThePreviousIndex) {
  std::mt19937_64 rng(22);
  FaultedIndex index(rng, kVocab, 2);
  std::vector<std::string> gone;
  for (int i = 0; i < 40; ++i) gone.push_back("doc-" + std::to_string(i * 5));
  EXPECT_GE(FailEachCallInTurn(index, GetParam(), [&](IndexWriter* w) { return w->Delete(gone); }), 1u);
  index.Apply({}, gone);
  index.ExpectLikeModel();
}

TEST_P(CommitFaults, ACompactionFailingAtAnyCallLeavesThePreviousIndex) {
  std::mt19937_64 rng(23);
  FaultedIndex index(rng, kVocab, 3);
  std::vector<std::string> gone = {"doc-1", "doc-2", "doc-30"};
  index.Delete(gone);
  CompactionStats stats;
  EXPECT_GE(FailEachCallInTurn(index, GetParam(), [&](IndexWriter* w) { return CompactTablet(w, 1, &stats); }),
            1u);
  EXPECT_EQ(index.FilesOf(1), 1u) << "the compaction that went through left more than one file";
  index.ExpectLikeModel();
}

INSTANTIATE_TEST_SUITE_P(EachCall, CommitFaults, ::testing::Values(Op::kWrite, Op::kSync, Op::kSyncDir, Op::kRename),
                         [](const auto& info) { return std::string(faults::OpName(info.param)); });

// A disk with B bytes free, for B = 1, 2, 4, ... until the commit fits:
// the write that crosses B is cut short, the next one refused.
TEST(CommitFaults, ACommitOnAFullDiskLeavesThePreviousIndex) {
  std::mt19937_64 rng(24);
  FaultedIndex index(rng, kVocab, 2);
  auto docs = testing::RandomCorpus(rng, 300, kVocab, 30);
  for (size_t i = 0; i < docs.size(); ++i) docs[i].id = "doc-" + std::to_string(i * 2);
  const auto before = index.Take();
  uint64_t failed = 0;
  for (uint64_t free = 1;; free *= 2) {
    SCOPED_TRACE(std::to_string(free) + " bytes free");
    auto writer = IndexWriter::Open(index.dir(), index.options());
    ASSERT_TRUE(writer.ok());
    faults::Rule full;
    full.bytes = free;
    faults::Arm(full);
    const Status s = (*writer)->Commit(testing::ToAnalyzed(docs));
    faults::Disarm();
    if (s.ok()) break;
    ++failed;
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_NE(s.message().find(std::strerror(ENOSPC)), std::string::npos) << s.message();
    writer->reset();
    index.ExpectAsBefore(before);
    ASSERT_FALSE(::testing::Test::HasFailure());
  }
  EXPECT_GE(failed, 10u) << "the commit wrote less than 1 KB";
  std::printf("a full disk failed the commit %llu times\n", static_cast<unsigned long long>(failed));
  index.Apply(docs, {});
  index.ExpectLikeModel();
}

// PostgreSQL's fsync lesson: a failed fsync is never retried into a
// success. The commit fails, and the writer's next commit starts from the
// index on disk (the previous generation), not from the one that failed.
TEST(CommitFaults, AfterAFailedFsyncTheSameWriterCommitsFromThePreviousIndex) {
  std::mt19937_64 rng(25);
  FaultedIndex index(rng, kVocab, 1);
  const auto before = index.Take();
  auto writer = IndexWriter::Open(index.dir(), index.options());
  ASSERT_TRUE(writer.ok());
  auto lost = testing::RandomCorpus(rng, 50, kVocab, 10);
  for (size_t i = 0; i < lost.size(); ++i) lost[i].id = "lost-" + std::to_string(i);
  faults::Rule rule;
  rule.op = Op::kSync;
  rule.path = "MANIFEST";
  faults::Arm(rule);
  const Status s = (*writer)->Commit(testing::ToAnalyzed(lost));
  faults::Disarm();
  EXPECT_EQ(s.message(), index.dir() + "/MANIFEST.tmp: fsync: " + std::strerror(EIO));
  EXPECT_EQ((*writer)->manifest().generation, before.generation);
  auto kept = testing::RandomCorpus(rng, 50, kVocab, 10);
  for (size_t i = 0; i < kept.size(); ++i) kept[i].id = "kept-" + std::to_string(i);
  ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(kept)).ok());
  writer->reset();
  index.Apply(kept, {});
  index.ExpectLikeModel();  // no lost-* document
}

}  // namespace
}  // namespace dps
