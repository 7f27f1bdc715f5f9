// Conformance of EntryCursor (the SortedKeyValueIterator view) against a
// std::map model, over tablets with several files, replacements and
// deletions, with random seeks (also into the middle of bins and terms).
#include "index/entry_cursor.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <tuple>

#include "common/checksum.h"
#include "index/index_reader.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using Key = std::tuple<uint32_t, std::string, DocId>;

// The model is built from the index's own stored documents (docids are the
// index's to assign); a document is in the model iff it is live.
std::map<Key, uint32_t> ModelOf(const IndexReader& index,
                                const std::map<std::string, testing::ModelDoc>& live) {
  std::map<Key, uint32_t> model;
  for (size_t t = 0; t < index.tablet_count(); ++t) {
    const Tablet& tablet = index.tablet(t);
    for (const auto& file : tablet.files()) {
      for (size_t i = 0; i < file->bin_count(); ++i) {
        std::vector<StoredDoc> docs;
        EXPECT_TRUE(file->docs(i).ReadAll(&docs).ok());
        const uint32_t bin = file->bin(i).bin;
        for (const auto& d : docs) {
          if (tablet.IsDeleted(BinId{bin}, d.docid)) continue;
          auto it = live.find(d.id);
          EXPECT_NE(it, live.end()) << d.id;
          if (it == live.end()) continue;
          for (const auto& [term, tf] : it->second.terms) model[Key{bin, term, d.docid}] = tf;
        }
      }
    }
  }
  return model;
}

TEST(EntryCursor, ConformsToSortedMapWithRandomSeeks) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    testing::TempDir dir;
    IndexOptions options;
    options.bins = 1 + static_cast<uint32_t>(rng() % 6);
    options.tablets = 1 + static_cast<uint32_t>(rng() % options.bins);
    auto writer = IndexWriter::Open(dir.path(), options);
    ASSERT_TRUE(writer.ok());
    std::map<std::string, testing::ModelDoc> live;
    for (int c = 0; c < 3; ++c) {
      auto docs = testing::RandomCorpus(rng, 40, 30, 15);
      for (auto& d : docs) d.id = "id" + std::to_string(rng() % 60);
      ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
      for (auto& d : docs) live[d.id] = d;
      std::vector<std::string> gone = {"id" + std::to_string(rng() % 60)};
      ASSERT_TRUE((*writer)->Delete(gone).ok());
      live.erase(gone[0]);
    }
    auto index = IndexReader::Open(dir.path());
    ASSERT_TRUE(index.ok());
    const auto model = ModelOf(**index, live);
    std::map<Key, uint32_t> seen;
    for (size_t t = 0; t < (*index)->tablet_count(); ++t) {
      const Tablet& tablet = (*index)->tablet(t);
      EntryCursor cursor((*index)->global(), &tablet);
      for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next()) {
        EntryKey k = cursor.key();
        Key key{k.bin, std::string(k.term), k.docid};
        ASSERT_TRUE(seen.empty() || seen.rbegin()->first < key) << "seed " << seed;
        seen[key] = cursor.weight();
      }
      ASSERT_TRUE(cursor.status().ok());
      // Random seeks: compare with the model's lower_bound inside this tablet.
      for (int s = 0; s < 300; ++s) {
        uint32_t bin = tablet.first_bin() + static_cast<uint32_t>(rng() % (tablet.last_bin() - tablet.first_bin() + 1));
        std::string term = rng() % 5 == 0 ? "" : testing::VocabTerm(rng() % 32);
        if (rng() % 4 == 0) term += "0";  // between terms
        DocId docid = static_cast<DocId>(rng() % 50);
        cursor.Seek(bin, term, docid);
        auto want = model.lower_bound(Key{bin, term, docid});
        const bool want_valid = want != model.end() && std::get<0>(want->first) <= tablet.last_bin();
        ASSERT_EQ(cursor.Valid(), want_valid) << "seed " << seed;
        if (want_valid) {
          EntryKey k = cursor.key();
          ASSERT_EQ((Key{k.bin, std::string(k.term), k.docid}), want->first) << "seed " << seed;
          ASSERT_EQ(cursor.weight(), want->second);
          // Next after a seek continues in order.
          cursor.Next();
          auto after = std::next(want);
          const bool after_valid = after != model.end() && std::get<0>(after->first) <= tablet.last_bin();
          ASSERT_EQ(cursor.Valid(), after_valid);
          if (after_valid) {
            ASSERT_EQ(std::get<2>(after->first), cursor.key().docid);
          }
        }
      }
    }
    ASSERT_EQ(seen, model) << "seed " << seed;
  }
}

}  // namespace
}  // namespace dps
