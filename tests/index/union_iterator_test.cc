// The materialized union (index/union_iterator.h) against a std::set of
// the same terms' docids read through their own iterators: several files
// a tablet, deletions, terms absent from a bin; Next and Seek follow the
// DocIterator contract.
#include "index/union_iterator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

// A source of fixed docids.
class VectorIterator final : public DocIterator {
 public:
  explicit VectorIterator(std::vector<DocId> docs) : docs_(std::move(docs)) {}
  DocId doc() const override { return i_ < docs_.size() ? docs_[i_] : kEndDoc; }
  DocId Next() override {
    ++i_;
    return doc();
  }
  DocId Seek(DocId target) override {
    while (doc() < target) ++i_;
    return doc();
  }
  uint64_t cost() const override { return docs_.size() - i_; }
  Status status() const override { return Status::OK(); }

 private:
  std::vector<DocId> docs_;
  size_t i_ = 0;
};

TEST(UnionIterator, EqualsTheSetOfItsSourcesDocids) {
  std::mt19937_64 rng(5);
  testing::TempDir dir;
  IndexOptions options;
  options.bins = 3;
  options.tablets = 2;
  constexpr size_t kVocab = 50;
  {
    auto writer = IndexWriter::Open(dir.path(), options);
    ASSERT_TRUE(writer.ok());
    for (int c = 0; c < 3; ++c) {  // several files a tablet; replacements delete old versions
      auto docs = testing::RandomCorpus(rng, 400, kVocab, 12);
      for (auto& d : docs) d.id = std::to_string(rng() % 700);
      ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
    }
    std::vector<std::string> gone;
    for (int i = 0; i < 60; ++i) gone.push_back(std::to_string(rng() % 700));
    ASSERT_TRUE((*writer)->Delete(gone).ok());
  }
  auto index = IndexReader::Open(dir.path());
  ASSERT_TRUE(index.ok());
  for (uint32_t b = 0; b < options.bins; ++b) {
    const BinId bin{b};
    const Tablet& tablet = (*index)->TabletOf(bin);
    ASSERT_FALSE(tablet.deleted(bin).empty()) << "the test wants deletions in every bin";
    for (int trial = 0; trial < 20; ++trial) {
      UnionBuilder builder(tablet, bin);
      std::set<DocId> want;
      const size_t n = 1 + rng() % 30;
      for (size_t k = 0; k < n; ++k) {
        const std::string term = rng() % 10 == 0 ? "absent" : testing::VocabTerm(rng() % kVocab);
        bool found = false;
        GlobalTermInfo info;
        ASSERT_TRUE((*index)->global()->Lookup(term, &found, &info).ok());
        if (k % 4 == 3) {  // some sources as iterators (an OR's non-term children)
          auto it = BuildIterator(**index, bin, QueryNode::Term(term));
          ASSERT_TRUE(it.ok());
          for (DocId d = (*it)->doc(); d != kEndDoc; d = (*it)->Next()) want.insert(d);
          auto again = BuildIterator(**index, bin, QueryNode::Term(term));
          ASSERT_TRUE(builder.AddIterator(again->get()).ok());
          continue;
        }
        auto it = (*index)->TabletOf(bin).OpenRefs(bin, info.RefsOf(bin));
        ASSERT_TRUE(it.ok());
        if (*it != nullptr) {
          for (DocId d = (*it)->doc(); d != kEndDoc; d = (*it)->Next()) want.insert(d);
        }
        ASSERT_TRUE(builder.AddRefs(info.RefsOf(bin)).ok());
      }
      auto u = builder.Finish();
      EXPECT_EQ(u->cost(), want.size());
      std::set<DocId> got;
      for (DocId d = u->doc(); d != kEndDoc; d = u->Next()) {
        EXPECT_TRUE(got.empty() || d > *got.rbegin()) << "docids must ascend";
        got.insert(d);
      }
      EXPECT_EQ(got, want) << "bin " << b << " trial " << trial;
      EXPECT_EQ(u->Next(), kEndDoc);
      EXPECT_TRUE(u->status().ok());
      // Seeks forward (and seeks at or before doc(), which stay) land
      // where the set says.
      UnionBuilder again(tablet, bin);
      VectorIterator source(std::vector<DocId>(want.begin(), want.end()));
      ASSERT_TRUE(again.AddIterator(&source).ok());
      auto s = again.Finish();
      DocId at = s->doc();
      for (int i = 0; i < 50 && at != kEndDoc; ++i) {
        const DocId target = at + static_cast<DocId>(rng() % 40) - 5;
        const auto it = want.lower_bound(std::max(target, at));
        const DocId expected = it == want.end() ? kEndDoc : *it;
        at = s->Seek(target);
        ASSERT_EQ(at, expected) << "seek " << target;
        ASSERT_EQ(s->doc(), at);
      }
    }
  }
}

// A ref of another bin, or a docid outside the bin's documents, is
// Corruption (the bitmap is sized by the bin's documents).
TEST(UnionIterator, PostingsOutsideTheBinAreCorruption) {
  testing::TempDir dir;
  IndexOptions options;
  options.bins = 2;
  options.tablets = 1;
  {
    auto writer = IndexWriter::Open(dir.path(), options);
    ASSERT_TRUE(writer.ok());
    std::mt19937_64 rng(3);
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(testing::RandomCorpus(rng, 50, 5, 5))).ok());
  }
  auto index = IndexReader::Open(dir.path());
  ASSERT_TRUE(index.ok());
  const Tablet& tablet = (*index)->tablet(0);
  UnionBuilder builder(tablet, BinId{0});
  TermRef other;
  other.bin = 1;
  other.df = 1;
  other.inline_weight = 1;
  EXPECT_TRUE(builder.AddRefs(std::span<const TermRef>(&other, 1)).IsCorruption());
  VectorIterator far({5, kMaxDocId});
  EXPECT_TRUE(builder.AddIterator(&far).IsCorruption());
}

}  // namespace
}  // namespace dps
