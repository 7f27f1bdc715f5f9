#include "index/doc_store.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <random>
#include <string>
#include <vector>

#include "common/coding.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

// A region written by DocStoreWriter behind a 4-byte pad (regions need not
// start at 0), in a paged file of its own.
struct StoreFixture {
  testing::TempDir dir;
  std::string region;
  std::string ids;  // the id column, written after the region
  std::unique_ptr<PagedFileReader> file;
  DocStoreReader reader;
  DocStoreShape shape;
  Status open_status;

  explicit StoreFixture(const std::vector<StoredDoc>& docs, int level = 3) {
    shape.num_docs = static_cast<uint32_t>(docs.size());
    if (!docs.empty()) {
      shape.min_docid = docs.front().docid;
      shape.max_docid = docs.back().docid;
    }
    for (const StoredDoc& d : docs) shape.stores_text |= !d.text.empty();
    DocStoreWriter w(level, [this](std::string_view b) {
      region.append(b);
      return Status::OK();
    });
    for (const StoredDoc& d : docs) EXPECT_TRUE(w.Add(d.docid, d.id, d.title, d.text).ok());
    EXPECT_TRUE(w.Finish(&ids).ok());
    Reopen(region);
  }
  void Reopen(const std::string& bytes, const std::string& id_column) {
    const std::string path = dir.path() + "/store";
    auto w = PagedFileWriter::Create(path);
    EXPECT_TRUE(w.ok());
    EXPECT_TRUE((*w)->Append("pad!").ok());
    EXPECT_TRUE((*w)->Append(bytes).ok());
    EXPECT_TRUE((*w)->Append(id_column).ok());
    EXPECT_TRUE((*w)->Finish(0, 0, 1).ok());
    auto r = PagedFileReader::Open(path);
    EXPECT_TRUE(r.ok());
    file = std::move(r).value();
    reader = DocStoreReader();
    open_status = reader.Open(file.get(), DocStoreRegions{4, bytes.size(), 4 + bytes.size(), id_column.size()}, shape);
  }
  void Reopen(const std::string& bytes) { Reopen(bytes, ids); }
};

std::string RandomString(std::mt19937_64& rng, size_t max_len, std::string_view alphabet) {
  std::string s(rng() % (max_len + 1), ' ');
  for (char& c : s) c = alphabet[rng() % alphabet.size()];
  return s;
}

// Ids of every shape the writer distinguishes: canonical decimals (some
// blocks all decimal), decimals it must keep as strings (leading zeros,
// 20 digits), and arbitrary bytes.
std::string RandomId(std::mt19937_64& rng, int shape, uint64_t* counter) {
  switch (shape) {
    case 0: return std::to_string(*counter += 1 + rng() % 5000);
    case 1: return std::to_string(rng() % 3 == 0 ? rng() % 10 : rng() % 10'000'000'000'000'000'000ull);
    case 2: return rng() % 4 == 0 ? std::string("0").append(std::to_string(rng() % 1000)) : std::to_string(rng() % 100);
    case 3: return rng() % 8 == 0 ? "18446744073709551615" : std::to_string(rng());
    default: {
      std::string id = RandomString(rng, 24, std::string("ab/\0\xff.", 6));
      id.push_back('/');  // never empty
      return id;
    }
  }
}

std::vector<StoredDoc> RandomDocs(std::mt19937_64& rng, size_t n, int shape, bool text) {
  std::vector<StoredDoc> docs;
  DocId d = static_cast<DocId>(rng() % 1000);
  uint64_t counter = rng() % 100;
  std::string title = "title";
  for (size_t i = 0; i < n; ++i) {
    StoredDoc doc;
    doc.docid = d;
    // Gaps (compaction drops deleted documents), some of whole id column frames.
    d += 1 + (rng() % 4 == 0 ? static_cast<DocId>(rng() % 1000) : 0);
    doc.id = RandomId(rng, shape, &counter);
    // Titles that share prefixes of every length with their predecessor.
    title = title.substr(0, rng() % (title.size() + 1)) + RandomString(rng, 12, "abcxyz ");
    doc.title = title;
    if (text) doc.text = rng() % 5 == 0 ? std::string() : RandomString(rng, 3000, "lorem ipsum\n");
    docs.push_back(std::move(doc));
  }
  return docs;
}

void ExpectStores(const StoreFixture& f, const std::vector<StoredDoc>& docs) {
  ASSERT_TRUE(f.open_status.ok()) << f.open_status.ToString();
  DocBlockCache cache;
  for (const StoredDoc& want : docs) {
    for (bool with_text : {false, true}) {
      StoredDoc got;
      ASSERT_TRUE(f.reader.Get(want.docid, &got, &cache, with_text).ok()) << want.docid;
      EXPECT_EQ(got.docid, want.docid);
      EXPECT_EQ(got.id, want.id);
      EXPECT_EQ(got.title, want.title);
      EXPECT_EQ(got.text, with_text ? want.text : std::string());
    }
  }
  // Docids in gaps, before the first and after the last are not found.
  for (size_t i = 0; i + 1 < docs.size(); ++i) {
    if (docs[i + 1].docid > docs[i].docid + 1) {
      StoredDoc got;
      EXPECT_TRUE(f.reader.Get(docs[i].docid + 1, &got, &cache).IsNotFound());
    }
  }
  StoredDoc got;
  if (!docs.empty() && docs.front().docid > 0) {
    EXPECT_TRUE(f.reader.Get(docs.front().docid - 1, &got).IsNotFound());
  }
  if (!docs.empty()) {
    EXPECT_TRUE(f.reader.Get(docs.back().docid + 1, &got).IsNotFound());
  }
  std::vector<StoredDoc> all;
  ASSERT_TRUE(f.reader.ReadAll(&all).ok());
  ASSERT_EQ(all.size(), docs.size());
  for (size_t i = 0; i < docs.size(); ++i) {
    EXPECT_EQ(all[i].docid, docs[i].docid);
    EXPECT_EQ(all[i].id, docs[i].id);
    EXPECT_EQ(all[i].title, docs[i].title);
    EXPECT_EQ(all[i].text, docs[i].text);
  }
  size_t k = 0;
  ASSERT_TRUE(f.reader.ForEachId([&](DocId d, std::string_view id) {
    ASSERT_LT(k, docs.size());
    EXPECT_EQ(d, docs[k].docid);
    EXPECT_EQ(id, docs[k].id);
    ++k;
  }).ok());
  EXPECT_EQ(k, docs.size());
}

TEST(DocStore, EveryDocumentRoundTripsWithEveryIdShape) {
  std::mt19937_64 rng(7);
  for (int shape = 0; shape < 5; ++shape) {
    for (bool text : {false, true}) {
      for (size_t n : {1, 2, 37, 5000}) {
        SCOPED_TRACE("shape " + std::to_string(shape) + " text " + std::to_string(text) + " n " +
                     std::to_string(n));
        const auto docs = RandomDocs(rng, n, shape, text);
        StoreFixture f(docs);
        ExpectStores(f, docs);
      }
    }
  }
}

// Ids alone (a ranked id list) come from the id column: no block is read,
// the cache stays empty; a later lookup with titles fills it.
TEST(DocStore, IdsAloneReadNoBlock) {
  std::mt19937_64 rng(13);
  for (int shape : {0, 4}) {
    const auto docs = RandomDocs(rng, 3000, shape, /*text=*/true);
    StoreFixture f(docs);
    ASSERT_TRUE(f.open_status.ok());
    for (size_t i = 0; i < docs.size(); i += 97) {
      DocBlockCache cache;
      StoredDoc got;
      ASSERT_TRUE(f.reader.Get(docs[i].docid, &got, &cache, /*with_text=*/false, /*with_titles=*/false).ok());
      EXPECT_EQ(got.id, docs[i].id);
      EXPECT_EQ(got.title, "");
      EXPECT_EQ(cache.reader, nullptr);
      EXPECT_TRUE(cache.docids.empty());
      ASSERT_TRUE(f.reader.Get(docs[i].docid, &got, &cache, /*with_text=*/true, /*with_titles=*/true).ok());
      EXPECT_EQ(got.id, docs[i].id);
      EXPECT_EQ(got.title, docs[i].title);
      EXPECT_EQ(got.text, docs[i].text);
      EXPECT_NE(cache.reader, nullptr);
    }
  }
}

// A reader takes an empty id for corruption, so the writer refuses one.
TEST(DocStore, AnEmptyIdIsRefused) {
  DocStoreWriter w(3, [](std::string_view) { return Status::OK(); });
  EXPECT_TRUE(w.Add(1, "a", "", "").ok());
  EXPECT_TRUE(w.Add(2, "", "t", "x").IsInvalidArgument());
}

TEST(DocStore, MixedBlocksAndTheLargestDocids) {
  // Decimal and string ids in one store (decimal and strings frames of the
  // id column), and docids up to the largest storable one.
  std::mt19937_64 rng(11);
  std::vector<StoredDoc> docs = RandomDocs(rng, 3000, 0, true);
  auto more = RandomDocs(rng, 3000, 4, true);
  DocId d = docs.back().docid + 1;
  for (auto& doc : more) doc.docid = d++;
  docs.insert(docs.end(), more.begin(), more.end());
  docs.push_back(StoredDoc{d + 1, "007", "", ""});
  docs.push_back(StoredDoc{d + 2, "9999999999999999999", "", "last"});
  // The id column is dense over the bin's docids: move them to the top
  // rather than span the whole docid range.
  for (auto& doc : docs) doc.docid += kMaxDocId - (d + 2);
  StoreFixture f(docs);
  ExpectStores(f, docs);
}

// The meta frame of the only block of `f`, decompressed.
std::string MetaFrame(const StoreFixture& f) {
  const auto* r = reinterpret_cast<const uint8_t*>(f.region.data());
  const uint8_t* e = r + f.region.size() - 4 - kDocBlockIndexEntrySize;
  std::string raw(DecodeFixed32(e + 12), '\0');
  const size_t n = ZSTD_decompress(raw.data(), raw.size(), r + DecodeFixed32(e + 4), DecodeFixed32(e + 8));
  EXPECT_EQ(n, raw.size());
  return raw;
}

TEST(DocStore, MetaFrameBytesMatchFormatMd) {
  // docs/FORMAT.md "Doc store": count, docid gaps, titles (the ids are in
  // the id column: tests/index/id_column_test.cc has its bytes).
  {
    StoreFixture f({{5, "12", "ab", ""}, {7, "10", "ac", ""}, {8, "4000000000", "", ""}});
    const std::string want = std::string("\x03\x02\x01", 3) +   // n = 3, gaps 2 and 1
                             std::string("\x00\x02" "ab" "\x01\x01" "c" "\x00\x00", 9);
    EXPECT_EQ(MetaFrame(f), want);
    // No text anywhere: no text frame, both text lengths 0.
    const auto* e = reinterpret_cast<const uint8_t*>(f.region.data()) + f.region.size() - 4 -
                    kDocBlockIndexEntrySize;
    EXPECT_EQ(DecodeFixed32(e), 5u);
    EXPECT_EQ(DecodeFixed32(e + 16), 0u);
    EXPECT_EQ(DecodeFixed32(e + 20), 0u);
    EXPECT_EQ(DecodeFixed32(e + 4) + DecodeFixed32(e + 8), f.region.size() - 4 - kDocBlockIndexEntrySize);
  }
  {
    StoreFixture f({{0, "doc/a", "", "x"}, {1, "doc/b", "t", ""}});
    EXPECT_EQ(MetaFrame(f), std::string("\x02\x01"  // n = 2, gap 1
                                        "\x00\x00" "\x00\x01" "t", 7));
  }
}

// The id column and the meta frames must agree on the docids: an id column
// of other docids (here: of another store of as many documents in the same
// range) is corruption for ReadAll, the scan `dpsearch check` runs.
TEST(DocStore, AnIdColumnOfOtherDocidsIsCorruption) {
  StoreFixture f({{5, "a", "", ""}, {7, "b", "", ""}, {9, "c", "", ""}});
  StoreFixture other({{5, "a", "", ""}, {8, "b", "", ""}, {9, "c", "", ""}});
  f.Reopen(f.region, other.ids);
  ASSERT_TRUE(f.open_status.ok());  // each is well formed on its own
  std::vector<StoredDoc> all;
  EXPECT_TRUE(f.reader.ReadAll(&all).IsCorruption());
  StoredDoc got;
  EXPECT_TRUE(f.reader.Get(8, &got, nullptr, /*with_text=*/false).IsCorruption());  // in the column, in no block
}

// The doc store must hold exactly the documents the bin directory names
// (its ids are what replacement and deletion search).
TEST(DocStore, ShapesOtherThanTheBinsAreCorruption) {
  std::mt19937_64 rng(17);
  const auto docs = RandomDocs(rng, 3000, 0, true);
  StoreFixture f(docs);
  ASSERT_TRUE(f.open_status.ok());
  const DocStoreShape good = f.shape;
  auto fails = [&](DocStoreShape shape) {
    f.shape = shape;
    f.Reopen(f.region);
    Status s = f.open_status;
    std::vector<StoredDoc> all;
    if (s.ok()) s = f.reader.ReadAll(&all);
    if (s.ok()) s = f.reader.ForEachId([](DocId, std::string_view) {});
    return s.IsCorruption();
  };
  DocStoreShape s = good;
  EXPECT_FALSE(fails(s));
  s.num_docs = good.num_docs - 1;
  EXPECT_TRUE(fails(s));  // a document more than the bin has
  s = good;
  s.num_docs = 0;
  EXPECT_TRUE(fails(s));  // documents in a bin without any
  s = good;
  s.min_docid = good.min_docid + 1;
  EXPECT_TRUE(fails(s));  // starts below the bin's smallest docid
  s = good;
  s.max_docid = good.max_docid - 1;
  EXPECT_TRUE(fails(s));  // ends past the bin's largest
  s = good;
  s.max_docid = good.max_docid + 1;
  EXPECT_TRUE(fails(s));  // ends before it
  s = good;
  s.stores_text = false;
  EXPECT_TRUE(fails(s));  // text frames in a file that stores no text
}

TEST(DocStore, BadRegionsAreCorruptionNotCrashes) {
  std::mt19937_64 rng(3);
  const auto docs = RandomDocs(rng, 800, 0, true);
  StoreFixture f(docs);
  ASSERT_TRUE(f.open_status.ok());
  const std::string pristine = f.region;
  size_t corrupt = 0, flips = 0;
  // Every byte of the block index and count, then random bytes of the frames.
  std::vector<size_t> at;
  const size_t blocks = DecodeFixed32(reinterpret_cast<const uint8_t*>(pristine.data()) + pristine.size() - 4);
  for (size_t i = pristine.size() - 4 - blocks * kDocBlockIndexEntrySize; i < pristine.size(); ++i) at.push_back(i);
  for (int i = 0; i < 300; ++i) at.push_back(rng() % pristine.size());
  for (size_t pos : at) {
    std::string bad = pristine;
    bad[pos] = static_cast<char>(bad[pos] ^ (1 + rng() % 255));
    f.Reopen(bad);
    ++flips;
    Status s = f.open_status;
    if (s.ok()) {
      std::vector<StoredDoc> all;
      s = f.reader.ReadAll(&all);
      if (s.ok()) {
        // A flip zstd cannot see (it keeps no checksum here; the paged file's
        // page checksums do) may change content, never crash or mis-size.
        EXPECT_EQ(all.size(), docs.size());
        continue;
      }
    }
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    ++corrupt;
  }
  // Index damage is always caught; so is most frame damage.
  EXPECT_GT(corrupt, flips / 2);
  // Truncated regions.
  for (size_t len = 0; len < pristine.size(); len += 1 + len / 3) {
    f.Reopen(pristine.substr(0, len));
    if (!f.open_status.ok()) {
      EXPECT_TRUE(f.open_status.IsCorruption());
      continue;
    }
    std::vector<StoredDoc> all;
    EXPECT_FALSE(f.reader.ReadAll(&all).ok() && len > 4) << len;
  }
}

}  // namespace
}  // namespace dps
