// Shared by the tests of servers that follow their index (issue 22): an
// index that keeps changing (batches committed, documents replaced,
// tablets compacted), with the reference model of every generation and a
// snapshot of each (hard links of the files its MANIFEST names: files are
// never changed in place, so a link keeps a generation whole after the
// writer deletes it), for the in-process answer at that generation.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "index/compaction.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index/manifest.h"
#include "tests/testing/test_util.h"

namespace dps::follow_testing {

constexpr size_t kVocab = 60;
constexpr uint32_t kBins = 8;

// The term every document of batch `k` carries (its visibility is timed).
inline std::string BatchTerm(size_t k) { return "batch" + std::to_string(k); }

class LiveIndex {
 public:
  using Docs = std::map<std::string, testing::ModelDoc>;

  // A new index of 8 bins in 4 tablets holding `docs` documents (batch 0).
  LiveIndex(uint64_t seed, size_t docs) : rng_(seed) {
    IndexOptions options;
    options.bins = kBins;
    options.tablets = 4;
    auto writer = IndexWriter::Open(dir_.path(), options);
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    writer_ = std::move(writer).value();
    Commit(docs, 0);
  }

  const std::string& dir() const { return dir_.path(); }

  // Commits `fresh` new documents and `replaced` new versions of existing
  // ids (all tagged with the batch's term); returns the new generation.
  uint64_t Commit(size_t fresh, size_t replaced) {
    const size_t k = batches_++;
    auto corpus = testing::RandomCorpus(rng_, fresh + replaced, kVocab, 30);
    std::vector<std::string> ids;
    for (const auto& [id, d] : live_) ids.push_back(id);
    for (size_t i = 0; i < corpus.size(); ++i) {
      corpus[i].id = i < fresh || ids.empty() ? "doc-" + std::to_string(next_id_++) : ids[rng_() % ids.size()];
      corpus[i].terms[BatchTerm(k)] = 1;
    }
    EXPECT_TRUE(writer_->Commit(testing::ToAnalyzed(corpus)).ok());
    for (auto& d : corpus) live_[d.id] = d;
    return Record();
  }

  // Compacts every tablet into one file (deleting the files it replaces);
  // returns the new generation (the same documents). Each tablet's
  // compaction commits a generation of its own, and a follower may open
  // any of them: each is recorded.
  uint64_t CompactAll() {
    uint64_t g = generation();
    for (size_t t = 0; t < 4; ++t) {
      CompactionStats stats;
      EXPECT_TRUE(CompactTablet(writer_.get(), t, &stats).ok());
      g = Record();
    }
    return g;
  }

  // The documents of generation `g`; waits (up to 10 s) for its commit to
  // be recorded: a follower may open it before Commit returns.
  Docs At(uint64_t g) {
    std::unique_lock<std::mutex> lock(mu_);
    recorded_.wait_for(lock, std::chrono::seconds(10), [&] { return by_generation_.count(g) > 0; });
    auto it = by_generation_.find(g);
    if (it == by_generation_.end()) {
      ADD_FAILURE() << "generation " << g << " was never recorded (a commit the model missed)";
      return Docs();
    }
    return it->second;
  }
  // The snapshot directory of generation `g` (after At(g) found it).
  std::string SnapshotDir(uint64_t g) const { return snapshots_.path() + "/gen-" + std::to_string(g); }

  uint64_t generation() const { return writer_->manifest().generation; }

  // The ids of `docs` matching `q`, by bin.
  static std::map<uint32_t, std::set<std::string>> WantByBin(const Docs& docs, const QueryNode& q) {
    std::map<uint32_t, std::set<std::string>> want;
    for (const auto& [id, d] : docs) {
      if (testing::Matches(q, d.terms)) want[BinOfId(id, kBins).value].insert(id);
    }
    return want;
  }

 private:
  uint64_t Record() {
    const Manifest& m = writer_->manifest();
    const std::string snap = SnapshotDir(m.generation);
    if (std::filesystem::exists(snap)) return m.generation;  // nothing changed (a no-op compaction)
    std::filesystem::create_directories(snap);
    std::vector<std::string> files = {kManifestName};
    if (!m.global_index.empty()) files.push_back(m.global_index);
    for (const auto& t : m.tablets) files.insert(files.end(), t.files.begin(), t.files.end());
    for (const auto& f : files) {
      EXPECT_EQ(::link((dir() + "/" + f).c_str(), (snap + "/" + f).c_str()), 0) << f;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      by_generation_[m.generation] = live_;
    }
    recorded_.notify_all();
    return m.generation;
  }

  testing::TempDir dir_, snapshots_;
  std::mt19937_64 rng_;
  std::unique_ptr<IndexWriter> writer_;
  Docs live_;
  size_t next_id_ = 0, batches_ = 0;
  std::mutex mu_;
  std::condition_variable recorded_;
  std::map<uint64_t, Docs> by_generation_;
};

}  // namespace dps::follow_testing
