// The ingest pipeline on a failing disk (issue 21). An ingest that spills
// runs (a small budget, so the spill merge builds the tablet files) fails
// at its first write, fsync, directory fsync or rename, then at its
// second, and so on until it goes through: each failure is an I/O error
// naming the file and leaves the index as it was (generation, check,
// answers, no strays). A failed read of a spill run or of the stored
// documents' spill is an error naming the file and offset. A compaction
// after the commit that finds no room leaves the commit standing.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "common/fault_injection.h"
#include "ingest/ingest.h"
#include "tests/testing/fault_testing.h"

namespace dps {
namespace {

using faults::Op;
using testing::FaultedIndex;

constexpr size_t kVocab = 40;

// Documents doc-0, doc-2, ... (some replace the index's) as JSONL in `dir`.
std::vector<testing::ModelDoc> WriteInput(std::mt19937_64& rng, size_t docs, const std::string& path) {
  auto corpus = testing::RandomCorpus(rng, docs, kVocab, 20);
  std::ofstream out(path);
  for (size_t i = 0; i < corpus.size(); ++i) {
    corpus[i].id = "doc-" + std::to_string(i * 2);
    std::string text;
    for (const auto& [term, tf] : corpus[i].terms) {
      for (uint32_t k = 0; k < tf; ++k) text += term + " ";
    }
    out << "{\"id\": \"" << corpus[i].id << "\", \"text\": \"" << text << "\"}\n";
  }
  return corpus;
}

IngestOptions SpillingOptions(const FaultedIndex& index) {
  IngestOptions options;
  options.index = index.options();
  options.memory_budget = 64 << 10;  // a run every few batches
  options.threads = 2;
  return options;
}

void ExpectFailureNamesAFile(const Status& s, const std::string& dir, int error) {
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(s.message().rfind(dir, 0), 0u) << "does not start with the file: " << s.message();
  EXPECT_NE(s.message().find(std::strerror(error)), std::string::npos) << s.message();
}

class IngestFaults : public ::testing::TestWithParam<Op> {};

TEST_P(IngestFaults, AnIngestFailingAtAnyCallLeavesThePreviousIndex) {
  const Op op = GetParam();
  std::mt19937_64 rng(41);
  FaultedIndex index(rng, kVocab, 2);
  testing::TempDir inputs;
  const auto docs = WriteInput(rng, 700, inputs.path() + "/in.jsonl");
  const IngestOptions options = SpillingOptions(index);
  const auto before = index.Take();
  for (uint64_t n = 0;; ++n) {
    SCOPED_TRACE(std::string(faults::OpName(op)) + " call " + std::to_string(n + 1));
    testing::FailCall(op, n);
    IngestStats stats;
    const Status s = Ingest(index.dir(), {inputs.path() + "/in.jsonl"}, options, &stats);
    const uint64_t calls = faults::Calls(op);
    faults::Disarm();
    if (s.ok()) {
      EXPECT_EQ(calls, n);
      EXPECT_GT(stats.runs, 1u) << "no spill merge ran";
      EXPECT_EQ(stats.compaction_error, "");
      std::printf("%s: %llu failed ingests\n", faults::OpName(op), static_cast<unsigned long long>(n));
      break;
    }
    ExpectFailureNamesAFile(s, index.dir(), op == Op::kWrite ? ENOSPC : EIO);
    index.ExpectAsBefore(before);
    ASSERT_FALSE(::testing::Test::HasFailure());
  }
  index.Apply(docs, {});
  index.ExpectLikeModel();
}

// A first ingest that fails anywhere, creating the index included (its
// directory's name, the LOCK, the first MANIFEST), leaves no directory.
TEST_P(IngestFaults, AFailedFirstIngestLeavesNoIndexBehind) {
  const Op op = GetParam();
  std::mt19937_64 rng(44);
  testing::TempDir root;
  WriteInput(rng, 300, root.path() + "/in.jsonl");
  IngestOptions options;
  options.index.bins = 4;
  options.index.tablets = 2;
  options.memory_budget = 64 << 10;
  const std::string index = root.path() + "/index";
  for (uint64_t n = 0;; ++n) {
    SCOPED_TRACE(std::string(faults::OpName(op)) + " call " + std::to_string(n + 1));
    testing::FailCall(op, n);
    IngestStats stats;
    const Status s = Ingest(index, {root.path() + "/in.jsonl"}, options, &stats);
    faults::Disarm();
    if (s.ok()) {
      EXPECT_EQ(stats.documents, 300u);
      std::printf("%s: %llu failed first ingests\n", faults::OpName(op), static_cast<unsigned long long>(n));
      break;
    }
    ExpectFailureNamesAFile(s, root.path(), op == Op::kWrite ? ENOSPC : EIO);
    ASSERT_FALSE(std::filesystem::exists(index)) << "left behind: " << s.ToString();
  }
}

INSTANTIATE_TEST_SUITE_P(EachCall, IngestFaults, ::testing::Values(Op::kWrite, Op::kSync, Op::kSyncDir, Op::kRename),
                         [](const auto& info) { return std::string(faults::OpName(info.param)); });

TEST(IngestFaults, AFailedReadOfASpillIsAnErrorNamingFileAndOffset) {
  std::mt19937_64 rng(42);
  FaultedIndex index(rng, kVocab, 1);
  testing::TempDir inputs;
  WriteInput(rng, 700, inputs.path() + "/in.jsonl");
  const auto before = index.Take();
  for (const char* spill : {".run.tmp", ".spill.tmp"}) {
    SCOPED_TRACE(spill);
    faults::Rule rule;
    rule.op = Op::kRead;
    rule.path = spill;
    rule.skip = 3;  // a read in the middle, not the first
    faults::Arm(rule);
    IngestStats stats;
    const Status s = Ingest(index.dir(), {inputs.path() + "/in.jsonl"}, SpillingOptions(index), &stats);
    faults::Disarm();
    ExpectFailureNamesAFile(s, index.dir(), EIO);
    EXPECT_NE(s.message().find(std::string(spill) + ": read at offset "), std::string::npos) << s.message();
    index.ExpectAsBefore(before);
  }
}

// Files of similar size make the ingest compact after its commit. Every
// write of the ingest and the compaction fails in turn, each from a copy
// of the same index: a failure before the commit leaves the index as it
// was; one in the compaction leaves the commit standing, reported.
TEST(IngestFaults, ACompactionWithNoRoomLeavesTheCommitStanding) {
  std::mt19937_64 rng(43);
  FaultedIndex base(rng, kVocab, 2);
  testing::TempDir inputs;
  const auto docs = WriteInput(rng, 150, inputs.path() + "/in.jsonl");
  uint64_t failed = 0, put_off = 0;
  for (uint64_t n = 0;; ++n) {
    SCOPED_TRACE("write " + std::to_string(n + 1));
    auto index = base.Clone();
    const auto before = index->Take();
    testing::FailCall(Op::kWrite, n);
    IngestStats stats;
    const Status s = Ingest(index->dir(), {inputs.path() + "/in.jsonl"}, SpillingOptions(*index), &stats);
    faults::Disarm();
    if (!s.ok()) {
      ++failed;
      ExpectFailureNamesAFile(s, index->dir(), ENOSPC);
      index->ExpectAsBefore(before);
    } else if (!stats.compaction_error.empty()) {
      ++put_off;
      EXPECT_EQ(stats.compaction_error.rfind(index->dir(), 0), 0u) << stats.compaction_error;
      // The commit, and the tablets compacted before the one that failed.
      EXPECT_GT(index->Take().generation, before.generation) << "the commit is gone";
      index->Apply(docs, {});
      index->ExpectLikeModel();
    } else {
      EXPECT_GT(stats.compacted_tablets, 0u) << "no compaction: the test proves nothing";
      break;
    }
    ASSERT_FALSE(::testing::Test::HasFailure());
  }
  std::printf("%llu failed ingests, %llu compactions put off\n", static_cast<unsigned long long>(failed),
              static_cast<unsigned long long>(put_off));
  EXPECT_GT(failed, 0u);
  EXPECT_GT(put_off, 0u);
}

}  // namespace
}  // namespace dps
