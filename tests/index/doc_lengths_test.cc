#include "index/doc_lengths.h"

#include <gtest/gtest.h>

#include <random>

#include "index/compaction.h"
#include "index/index_reader.h"
#include "index/index_writer.h"
#include "tests/testing/bm25_oracle.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

std::vector<uint32_t> RandomLengths(std::mt19937_64& rng, size_t n) {
  std::vector<uint32_t> v(n);
  const unsigned widest = static_cast<unsigned>(rng() % 33);  // 0 to 32 bits
  for (auto& l : v) {
    l = widest == 0 ? 0 : static_cast<uint32_t>(rng() & ((uint64_t{1} << widest) - 1));
    if (rng() % 5 == 0) l = 0;  // absent docids and empty documents
  }
  return v;
}

// docs/FORMAT.md's example, byte for byte.
TEST(DocLengths, BytesAreAsDocumented) {
  std::string region;
  EncodeDocLengths({3, 0, 5}, &region);
  const std::string want("\x08\0\0\0\0\0\0\0"   // total 8
                         "\x0c\0\0\0"               // frame 0 at byte 12
                         "\x03\x43\x01"              // width 3: 011, 000, 101 from the lowest bit
                         "\0\0\0\0\0\0\0\0",     // padding
                         23);
  EXPECT_EQ(region, want);
  DocLengthsReader r;
  ASSERT_TRUE(r.Open(region, 7, 9, "t").ok());
  EXPECT_EQ(r.Get(7), 3u);
  EXPECT_EQ(r.Get(8), 0u);
  EXPECT_EQ(r.Get(9), 5u);
}

TEST(DocLengths, RoundTripAcrossFramesAndWidths) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    const size_t n = 1 + rng() % 700;
    const auto lengths = RandomLengths(rng, n);
    const DocId min = static_cast<DocId>(rng() % 100000);
    std::string region;
    EncodeDocLengths(lengths, &region);
    DocLengthsReader r;
    ASSERT_TRUE(r.Open(region, min, static_cast<DocId>(min + n - 1), "t").ok()) << "round " << round;
    uint64_t total = 0;
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(r.Get(static_cast<DocId>(min + i)), lengths[i]) << "round " << round << " doc " << i;
      total += lengths[i];
    }
    EXPECT_EQ(r.total_tokens(), total);
  }
}

// Flipped or cut bytes: Open refuses them (the total, the layout or the
// padding no longer hold) or, where the region stays well formed, reads
// lengths without leaving it; never a crash under ASan.
TEST(DocLengths, DamagedRegionsAreRefused) {
  std::mt19937_64 rng(5);
  const auto lengths = RandomLengths(rng, 300);
  std::string region;
  EncodeDocLengths(lengths, &region);
  DocLengthsReader r;
  for (size_t cut = 0; cut < region.size(); ++cut) {
    EXPECT_FALSE(r.Open(std::string_view(region).substr(0, cut), 10, 309, "t").ok()) << "cut at " << cut;
  }
  EXPECT_FALSE(r.Open(region, 10, 310, "t").ok());  // a range the region does not hold
  size_t refused = 0;
  for (size_t i = 0; i < region.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = region;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      if (!r.Open(bad, 10, 309, "t").ok()) ++refused;
    }
  }
  // Every flip changes a length (and so the total's agreement), a width, an
  // offset, the total itself or the padding: all are caught.
  EXPECT_EQ(refused, region.size() * 8);
}

// Through the real writer: every stored document's length is the sum of
// its terms' tf, in every file (several commits, replacements, deletes);
// N and the token total count every stored version until compaction.
TEST(DocLengths, EveryFileKnowsItsDocumentsLengths) {
  std::mt19937_64 rng(21);
  testing::TempDir dir;
  IndexOptions options;
  options.bins = 4;
  options.tablets = 2;
  auto writer = IndexWriter::Open(dir.path(), options);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  std::vector<testing::ModelDoc> stored;
  for (int commit = 0; commit < 3; ++commit) {
    auto docs = testing::RandomCorpus(rng, 150, 60, 30);
    for (auto& d : docs) d.id = std::to_string(1000 + rng() % 300);  // replacements across commits
    std::map<std::string, testing::ModelDoc> batch;
    for (auto& d : docs) batch[d.id] = d;  // a later duplicate in a batch wins
    for (auto& [id, d] : batch) stored.push_back(d);
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
  }
  std::vector<const testing::ModelDoc*> all;
  for (const auto& d : stored) all.push_back(&d);
  const CollectionStats want = testing::ModelStats(all);
  auto index = IndexReader::Open(dir.path());
  ASSERT_TRUE(index.ok());
  EXPECT_EQ((*index)->collection_stats().documents, want.documents);
  EXPECT_EQ((*index)->collection_stats().tokens, want.tokens);
  // Each file's lengths against its own documents' model.
  std::multimap<std::string, uint32_t> model_lengths;
  for (const auto& d : stored) {
    uint32_t n = 0;
    for (const auto& [t, tf] : d.terms) n += tf;
    model_lengths.emplace(d.id, n);
  }
  size_t checked = 0;
  for (size_t t = 0; t < (*index)->tablet_count(); ++t) {
    for (const auto& file : (*index)->tablet(t).files()) {
      for (size_t i = 0; i < file->bin_count(); ++i) {
        if (file->bin(i).num_docs == 0) continue;
        std::vector<StoredDoc> docs;
        ASSERT_TRUE(file->docs(i).ReadAll(&docs).ok());
        for (const auto& d : docs) {
          const uint32_t got = file->lengths(i).Get(d.docid);
          auto [lo, hi] = model_lengths.equal_range(d.id);
          bool found = false;
          for (auto it = lo; it != hi; ++it) found |= it->second == got;
          EXPECT_TRUE(found) << d.id << " has length " << got;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, stored.size());
  // After a full compaction only live documents count.
  for (size_t t = 0; t < (*writer)->manifest().tablets.size(); ++t) {
    CompactionStats cs;
    ASSERT_TRUE(CompactTablet(writer->get(), t, &cs).ok());
  }
  std::map<std::string, testing::ModelDoc> live;
  for (const auto& d : stored) live[d.id] = d;  // the last stored version of each id
  std::vector<const testing::ModelDoc*> live_docs;
  for (const auto& [id, d] : live) live_docs.push_back(&d);
  auto compacted = IndexReader::Open(dir.path());
  ASSERT_TRUE(compacted.ok());
  EXPECT_EQ((*compacted)->collection_stats().documents, live.size());
  EXPECT_EQ((*compacted)->collection_stats().tokens, testing::ModelStats(live_docs).tokens);
}

}  // namespace
}  // namespace dps
