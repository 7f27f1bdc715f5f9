#include "index/id_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "common/checksum.h"
#include "index/tablet_format.h"

namespace dps {
namespace {

struct Built {
  std::vector<std::pair<std::string, DocId>> docs;  // (external id, docid)
  std::string region;
};

Built Build(size_t n, DocId first, uint32_t max_gap, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Built b;
  DocId d = first;
  std::vector<std::pair<uint32_t, DocId>> entries;
  for (size_t i = 0; i < n; ++i) {
    const std::string id = "doc-" + std::to_string(seed) + "-" + std::to_string(i);
    b.docs.emplace_back(id, d);
    entries.emplace_back(IdHash32(StableHash64(id)), d);
    if (i + 1 < n) d += 1 + static_cast<DocId>(rng() % max_gap);
  }
  EncodeIdIndex(&entries, first, d, &b.region);
  return b;
}

std::vector<DocId> Find(const std::string& region, uint32_t n, DocId min_docid,
                        std::string_view id) {
  IdIndexReader r;
  EXPECT_TRUE(r.Open(region, n, min_docid).ok());
  std::vector<DocId> out;
  EXPECT_TRUE(r.Find(IdHash32(StableHash64(id)), &out).ok());
  return out;
}

// Every stored id finds its docid, across bucket counts (1, 16, 17 and
// many entries) and docid spans (none, dense, sparse, the whole range).
TEST(IdIndex, EveryIdFindsItsDocid) {
  struct Case {
    size_t n;
    DocId first;
    uint32_t max_gap;
  };
  for (const Case c : {Case{1, 0, 1}, Case{1, kMaxDocId, 1}, Case{16, 5, 1}, Case{17, 0, 3},
                       Case{1000, 100, 1}, Case{5000, 0, 1000}, Case{20000, 7, 3}}) {
    SCOPED_TRACE("n=" + std::to_string(c.n));
    const Built b = Build(c.n, c.first, c.max_gap, c.n);
    for (const auto& [id, docid] : b.docs) {
      const auto got = Find(b.region, static_cast<uint32_t>(c.n), c.first, id);
      ASSERT_NE(std::find(got.begin(), got.end(), docid), got.end()) << id;
    }
  }
  // Docids 0 and 2^32 - 2 in one bin: 32 offset bits.
  std::vector<std::pair<uint32_t, DocId>> wide = {{IdHash32(StableHash64("a")), 0},
                                                  {IdHash32(StableHash64("b")), kMaxDocId}};
  std::string region;
  EncodeIdIndex(&wide, 0, kMaxDocId, &region);
  EXPECT_EQ(Find(region, 2, 0, "b"), std::vector<DocId>{kMaxDocId});
  EXPECT_EQ(Find(region, 2, 0, "a"), std::vector<DocId>{0});
}

// An absent id rarely yields a candidate (16 hash bits checked within a
// bucket of at most 16 entries: about 1 in 4,096), and the index takes
// about 4 bytes per document where (hash, docid) pairs took 8.
TEST(IdIndex, FewFalseCandidatesInAboutFourBytesPerDocument) {
  const size_t n = 100000;
  const Built b = Build(n, 1000, 2, 42);
  EXPECT_EQ(b.region.size(), IdIndexSize(n, b.region[0], b.region[2]));
  EXPECT_LT(static_cast<double>(b.region.size()) / n, 4.6);
  size_t false_candidates = 0;
  for (int i = 0; i < 20000; ++i) {
    false_candidates += Find(b.region, n, 1000, "absent-" + std::to_string(i)).size();
  }
  EXPECT_LT(false_candidates, 40u);  // expected about 5
}

TEST(IdIndex, BadRegionsAreCorruptionNotCrashes) {
  const Built b = Build(300, 10, 5, 7);
  IdIndexReader r;
  EXPECT_FALSE(r.Open(std::string_view(b.region).substr(0, b.region.size() - 1), 300, 10).ok());
  EXPECT_FALSE(r.Open(b.region, 299, 10).ok());  // header and length fit 300 documents
  EXPECT_FALSE(r.Open("", 1, 0).ok());
  EXPECT_FALSE(r.Open("x", 0, 0).ok());
  std::string bad_header = b.region;
  bad_header[2] = 33;  // offset bits
  EXPECT_FALSE(r.Open(bad_header, 300, 10).ok());
  // A damaged bucket end (past the entries, below its predecessor, or just
  // wrong) touches two buckets: the one it ends and the next, which it
  // begins. Lookups there give Corruption or some in-range candidates,
  // never an out-of-bounds read; every other bucket still finds its ids.
  std::mt19937_64 rng(3);
  const int bucket_bits = static_cast<uint8_t>(b.region[0]);
  ASSERT_GT(bucket_bits, 1);  // enough buckets for "other buckets" to mean something
  size_t checked_untouched = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::string bad = b.region;
    const uint32_t damaged = static_cast<uint32_t>(rng() % (size_t{1} << bucket_bits));
    bad[4 + 4 * damaged + rng() % 4] ^= static_cast<char>(1 + rng() % 255);
    ASSERT_TRUE(r.Open(bad, 300, 10).ok());
    for (const auto& [id, docid] : b.docs) {
      const uint32_t hash = IdHash32(StableHash64(id));
      const uint32_t bucket = hash >> (32 - bucket_bits);
      std::vector<DocId> out;
      const Status s = r.Find(hash, &out);
      if (bucket == damaged || bucket == damaged + 1) {
        for (DocId d : out) EXPECT_LE(d, kMaxDocId);
        continue;
      }
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_NE(std::find(out.begin(), out.end(), docid), out.end()) << id;
      ++checked_untouched;
    }
  }
  EXPECT_GT(checked_untouched, 200u * 300 / 2);
}

}  // namespace
}  // namespace dps
