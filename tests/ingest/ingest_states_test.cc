// The ingest pipeline through an index's whole life: fresh, appended with
// replacements (across ingests and within one), deleted, compacted; after
// each step every random query equals a brute-force evaluation of the
// documents that should be live. Replacement and deletion find old
// documents by scanning stored ids (there is no id index), with decimal
// and string ids both, and with spilled runs.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <string>

#include "index/compaction.h"
#include "index/index_writer.h"
#include "ingest/ingest.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

std::string Describe(const std::set<std::string>& ids) {
  std::string s;
  for (const auto& id : ids) s += id + " ";
  return s;
}

void ExpectAnswers(const std::string& dir, const std::map<std::string, testing::ModelDoc>& live,
                   std::mt19937_64& rng, size_t vocab, const std::string& step) {
  for (int q = 0; q < 12; ++q) {
    QueryNode query = testing::RandomQuery(rng, vocab);
    std::set<std::string> want;
    for (const auto& [id, d] : live) {
      if (testing::Matches(query, d.terms)) want.insert(id);
    }
    const std::set<std::string> got = testing::RunQuery(dir, query);
    ASSERT_EQ(got, want) << step << ": " << query.ToString() << "\n got:  " << Describe(got)
                         << "\n want: " << Describe(want);
  }
}

// Ids from a small space, so ingests collide with earlier ones and with
// themselves: decimal ("17"), decimal-looking strings ("017") and words.
std::string RandomId(std::mt19937_64& rng) {
  std::string id = std::to_string(rng() % 90);
  switch (rng() % 3) {
    case 0: return id;
    case 1:
      id.insert(id.begin(), '0');  // (not "0" + ...: GCC 12 -Wrestrict false positive)
      return id;
    default: {
      std::string word = "doc-";
      return word.append(id);
    }
  }
}

TEST(IngestStates, EveryStateAnswersLikeBruteForce) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    testing::TempDir dir;
    const size_t vocab = 4 + rng() % 30;
    IngestOptions options;
    options.index.bins = 1 + static_cast<uint32_t>(rng() % 6);
    options.index.tablets = 1 + static_cast<uint32_t>(rng() % options.index.bins);
    options.index.store_text = rng() % 2 == 0;
    options.threads = 1 + static_cast<unsigned>(rng() % 2);
    std::map<std::string, testing::ModelDoc> live;
    for (int round = 0; round < 4; ++round) {
      auto docs = testing::RandomCorpus(rng, 1 + rng() % 150, vocab, 1 + rng() % 20);
      const std::string input = dir.path() + "/in" + std::to_string(round) + ".jsonl";
      {
        std::ofstream out(input);
        for (auto& d : docs) {
          d.id = RandomId(rng);
          std::string text;
          for (const auto& [term, tf] : d.terms) {
            for (uint32_t k = 0; k < tf; ++k) text += term + " ";
          }
          out << "{\"id\": \"" << d.id << "\", \"title\": \"t\", \"text\": \"" << text << "\"}\n";
        }
      }
      // Tiny budgets spill runs; the join must see every placed id then too.
      options.memory_budget = rng() % 2 ? (1u << 16) : (64u << 20);
      IngestStats stats;
      const std::string index = dir.path() + "/index";
      Status s = Ingest(index, {input}, options, &stats);
      ASSERT_TRUE(s.ok()) << s.ToString();
      uint64_t replaced = 0;
      for (const auto& d : docs) {
        // A repeat within the ingest or of a live document replaces one.
        replaced += live.count(d.id);
        live[d.id] = d;
      }
      EXPECT_EQ(stats.replaced, replaced);
      ExpectAnswers(index, live, rng, vocab, "ingest " + std::to_string(round));

      auto writer = IndexWriter::Open(index, options.index);
      ASSERT_TRUE(writer.ok());
      std::vector<std::string> gone;
      for (int k = 0; k < 6; ++k) gone.push_back(RandomId(rng));
      CommitStats cstats;
      ASSERT_TRUE((*writer)->Delete(gone, &cstats).ok());
      uint64_t deleted = 0;
      for (const auto& id : gone) deleted += live.erase(id);
      EXPECT_EQ(cstats.deleted, deleted);
      ExpectAnswers(index, live, rng, vocab, "delete " + std::to_string(round));
      if (rng() % 2 == 0) {
        CompactionStats compaction;
        ASSERT_TRUE(CompactTablet(writer->get(), rng() % options.index.tablets, &compaction).ok());
        ExpectAnswers(index, live, rng, vocab, "compact " + std::to_string(round));
      }
    }
  }
}

}  // namespace
}  // namespace dps
