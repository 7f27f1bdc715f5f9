#include "tests/testing/fault_testing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "common/fault_injection.h"
#include "common/file.h"
#include "index/check.h"
#include "index/manifest.h"

namespace dps::testing {

void FailCall(faults::Op op, uint64_t n) {
  faults::Rule rule;
  rule.op = op;
  rule.skip = n;
  faults::Arm(rule);
}

std::vector<std::string> Strays(const std::string& dir) {
  std::vector<std::string> strays;
  auto manifest = ReadManifest(dir);
  auto names = ListDir(dir);
  EXPECT_TRUE(manifest.ok() && names.ok());
  if (!manifest.ok() || !names.ok()) return strays;
  std::set<std::string> live = {kManifestName, "LOCK", manifest->global_index};
  for (const auto& t : manifest->tablets) live.insert(t.files.begin(), t.files.end());
  for (const auto& name : *names) {
    if (!live.count(name)) strays.push_back(name);
  }
  return strays;
}

FaultedIndex::FaultedIndex(std::mt19937_64& rng, size_t vocab, int commits) {
  options_.bins = 6;
  options_.tablets = 2;
  auto writer = IndexWriter::Open(dir(), options_);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (int c = 0; c < commits && writer.ok(); ++c) {
    auto docs = RandomCorpus(rng, 150, vocab, 15);
    for (size_t i = 0; i < docs.size(); ++i) docs[i].id = "doc-" + std::to_string(c * 100 + i);
    const Status s = (*writer)->Commit(ToAnalyzed(docs));
    EXPECT_TRUE(s.ok()) << s.ToString();
    Apply(docs, {});
  }
  for (int q = 0; q < 24; ++q) queries_.push_back(RandomQuery(rng, vocab));
}

FaultedIndex::~FaultedIndex() { faults::Disarm(); }

std::unique_ptr<FaultedIndex> FaultedIndex::Clone() const {
  std::unique_ptr<FaultedIndex> copy(new FaultedIndex());
  std::filesystem::copy(dir(), copy->dir(), std::filesystem::copy_options::recursive);
  copy->options_ = options_;
  copy->live_ = live_;
  copy->queries_ = queries_;
  return copy;
}

FaultedIndex::State FaultedIndex::Take() const {
  State s;
  auto manifest = ReadManifest(dir());
  EXPECT_TRUE(manifest.ok()) << manifest.status().ToString();
  if (manifest.ok()) s.generation = manifest->generation;
  for (const auto& q : queries_) s.answers.push_back(RunQuery(dir(), q));
  return s;
}

void FaultedIndex::ExpectAsBefore(const State& before) const {
  CheckReport report;
  const Status checked = CheckIndex(dir(), &report);
  EXPECT_TRUE(checked.ok()) << checked.ToString();
  const State now = Take();
  EXPECT_EQ(now.generation, before.generation) << "the MANIFEST moved on";
  for (size_t q = 0; q < queries_.size(); ++q) {
    EXPECT_EQ(now.answers[q], before.answers[q]) << queries_[q].ToString();
  }
  EXPECT_EQ(Strays(dir()), std::vector<std::string>()) << "left by the failed writer";
  {
    auto next = IndexWriter::Open(dir(), options_);
    EXPECT_TRUE(next.ok()) << next.status().ToString();
  }
  EXPECT_EQ(Strays(dir()), std::vector<std::string>()) << "after the next writer";
}

void FaultedIndex::Apply(const std::vector<ModelDoc>& docs, const std::vector<std::string>& gone) {
  for (const auto& d : docs) live_[d.id] = d;
  for (const auto& id : gone) live_.erase(id);
}

void FaultedIndex::Delete(const std::vector<std::string>& gone) {
  auto writer = IndexWriter::Open(dir(), options_);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  const Status s = (*writer)->Delete(gone);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Apply({}, gone);
}

void FaultedIndex::ExpectLikeModel() const {
  CheckReport report;
  const Status checked = CheckIndex(dir(), &report);
  EXPECT_TRUE(checked.ok()) << checked.ToString();
  for (const auto& q : queries_) {
    std::set<std::string> want;
    for (const auto& [id, d] : live_) {
      if (Matches(q, d.terms)) want.insert(id);
    }
    EXPECT_EQ(RunQuery(dir(), q), want) << q.ToString();
  }
  EXPECT_EQ(Strays(dir()), std::vector<std::string>());
}

size_t FaultedIndex::FilesOf(size_t tablet) const {
  auto manifest = ReadManifest(dir());
  EXPECT_TRUE(manifest.ok());
  return manifest.ok() ? manifest->tablets.at(tablet).files.size() : 0;
}

}  // namespace dps::testing
