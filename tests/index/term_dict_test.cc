#include "index/term_dict.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "common/coding.h"
#include "tests/index/term_dict_fixture.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

// Every key is found with its value.
void ExpectFindsEvery(const TermDictReader& dict, const std::map<std::string, std::string>& entries) {
  for (const auto& [k, v] : entries) {
    bool found = false;
    std::string_view value;
    ASSERT_TRUE(dict.Find(k, &found, &value).ok());
    ASSERT_TRUE(found) << k;
    EXPECT_EQ(value, v);
  }
}

// A cursor from the first entry yields exactly `entries`, in order.
void ExpectCursorYields(const TermDictReader& dict, const std::map<std::string, std::string>& entries) {
  TermDictCursor c(&dict);
  c.SeekToFirst();
  for (const auto& [k, v] : entries) {
    ASSERT_TRUE(c.Valid()) << c.status().ToString();
    EXPECT_EQ(c.key(), k);
    EXPECT_EQ(c.value(), v);
    c.Next();
  }
  EXPECT_FALSE(c.Valid());
  EXPECT_TRUE(c.status().ok());
}

std::map<std::string, std::string> RandomEntries(std::mt19937_64& rng, size_t n) {
  std::map<std::string, std::string> m;
  std::uniform_int_distribution<int> len(1, 12), ch('a', 'e');
  while (m.size() < n) {
    std::string k;
    for (int i = len(rng); i > 0; --i) k.push_back(static_cast<char>(ch(rng)));
    m[k] = "v" + k + std::to_string(m.size());
  }
  return m;
}

TEST(TermDict, FindsEveryKeyAndRejectsAbsentOnes) {
  std::mt19937_64 rng(7);
  for (size_t n : {1, 2, 31, 32, 33, 64, 65, 1000, 20000}) {  // up to 625 blocks: a deep search tree
    auto entries = RandomEntries(rng, n);
    testing::DictFixture f(entries);
    for (const auto& [k, v] : entries) {
      bool found = false;
      std::string_view value;
      ASSERT_TRUE(f.dict.Find(k, &found, &value).ok());
      ASSERT_TRUE(found) << k;
      EXPECT_EQ(value, v);
      // Neighbours that are not keys.
      for (std::string probe : {k + "z", k.substr(0, k.size() - 1) + "\x01", std::string("")}) {
        if (entries.count(probe)) continue;
        ASSERT_TRUE(f.dict.Find(probe, &found, &value).ok());
        EXPECT_FALSE(found) << probe;
      }
    }
  }
}

TEST(TermDict, KeysWithNulBytesAndLongSharedPrefixes) {
  // The sparse index compares zero-padded 8-byte prefixes: keys that differ
  // only after byte 8, or by trailing NULs, must still be told apart.
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::string alphabet("\0\x01a\xff", 4);
  for (size_t n : {1, 40, 700}) {
    std::map<std::string, std::string> entries;
    std::set<std::string> absent;
    while (entries.size() < n) {
      std::string k = rng() % 2 ? std::string("commonpre") : std::string();
      for (size_t i = rng() % 12; i > 0; --i) k.push_back(alphabet[rng() % alphabet.size()]);
      if (rng() % 4 == 0) {
        absent.insert(k);
      } else {
        // Appending (not "v" + ...) sidesteps a GCC 12 -Wrestrict false positive.
        std::string value(1, 'v');
        value.append(std::to_string(entries.size()));
        entries[k] = std::move(value);
      }
    }
    testing::DictFixture f(entries);
    ExpectFindsEvery(f.dict, entries);
    for (const auto& k : absent) {
      if (entries.count(k)) continue;
      bool found = true;
      std::string_view value;
      ASSERT_TRUE(f.dict.Find(k, &found, &value).ok());
      EXPECT_FALSE(found);
    }
  }
}

TEST(TermDict, AbsentLookupTouchesOnlyTheDictionary) {
  // A lookup verifies the sparse index (at open) and one block, nothing else.
  std::map<std::string, std::string> entries;
  for (int i = 0; i < 5000; ++i) entries["key" + std::to_string(100000 + i)] = std::string(20, 'x');
  testing::DictFixture f(entries);
  const size_t before = f.file->verified_pages();
  bool found = true;
  std::string_view value;
  ASSERT_TRUE(f.dict.Find("key1500005", &found, &value).ok());
  EXPECT_FALSE(found);
  EXPECT_LE(f.file->verified_pages(), before + 2);
  EXPECT_LT(f.file->verified_pages(), f.file->page_count());
}

TEST(TermDict, CursorSeeksLikeStdMap) {
  std::mt19937_64 rng(11);
  auto entries = RandomEntries(rng, 500);
  testing::DictFixture f(entries);
  TermDictCursor c(&f.dict);
  c.SeekToFirst();
  for (const auto& [k, v] : entries) {
    ASSERT_TRUE(c.Valid());
    EXPECT_EQ(c.key(), k);
    EXPECT_EQ(c.value(), v);
    c.Next();
  }
  EXPECT_FALSE(c.Valid());
  EXPECT_TRUE(c.status().ok());
  std::uniform_int_distribution<int> len(0, 12), ch('a' - 1, 'f');
  for (int i = 0; i < 2000; ++i) {
    std::string probe;
    for (int j = len(rng); j > 0; --j) probe.push_back(static_cast<char>(ch(rng)));
    c.Seek(probe);
    auto it = entries.lower_bound(probe);
    ASSERT_EQ(c.Valid(), it != entries.end()) << probe;
    if (it != entries.end()) {
      EXPECT_EQ(c.key(), it->first);
    }
  }
}

TEST(TermDict, SharedPrefixesAndSuffixesAroundTheNibbleEscape) {
  // An entry's head holds shared and suffix lengths as nibbles, 15 meaning
  // "15 + a varint": lengths 14, 15, 16 and long ones must all round-trip,
  // through Find and through the cursor.
  std::map<std::string, std::string> entries;
  for (size_t shared : {0, 1, 14, 15, 16, 40, 200}) {
    for (size_t suffix : {1, 14, 15, 16, 300}) {
      std::string k(shared, 'p');
      k.push_back('q');
      for (size_t i = 1; i < suffix; ++i) k.push_back(static_cast<char>('a' + (i + shared) % 26));
      std::string value(1, 'v');
      value.append(std::to_string(entries.size()));
      entries[k] = std::move(value);
    }
  }
  testing::DictFixture f(entries);
  ExpectFindsEvery(f.dict, entries);
  for (const auto& [k, v] : entries) {
    bool found = true;
    std::string_view value;
    ASSERT_TRUE(f.dict.Find(k + "a", &found, &value).ok());
    EXPECT_EQ(found, entries.count(k + "a") > 0);
  }
  ExpectCursorYields(f.dict, entries);
}

TEST(TermDict, MalformedEntriesAreCorruptionNotCrashes) {
  // Hand-made one-block regions whose only entry is malformed; the pages'
  // checksums are right, so only the entry parser can catch them.
  const std::vector<std::string> bad_entries = {
      std::string("\x0f", 1),                 // suffix length escape, no varint
      std::string("\x0f\xff\xff", 3),         // unterminated varint
      std::string("\x0f\xff\xff\xff\xff\x7f", 6),  // rest >= 2^32
      std::string("\x05" "ab", 3),               // suffix runs past the block
      std::string("\x01" "a" "\x09" "v", 4),           // value runs past the block
      std::string("\x91" "a" "\x01" "v", 4),           // first entry sharing 9 > 8 index bytes
      std::string("\x11" "a" "\x01" "v", 4),           // first key "aa", index prefix "a\0..."
      std::string("\x01" "b" "\x01" "v", 4),           // first key "b", index prefix "a\0..." 
  };
  for (const std::string& entry : bad_entries) {
    std::string region = entry;
    region += "\x01" "a";                    // index entry: prefix "a" (0 shared, 1 byte)
    PutVarint64(&region, entry.size());       // the block's length
    PutFixed32(&region, 1);                   // one block
    PutFixed32(&region, static_cast<uint32_t>(entry.size()));  // index start
    testing::RawDictFixture f(region);
    ASSERT_TRUE(f.open.ok());
    const TermDictReader& dict = f.dict;
    bool found = false;
    std::string_view v;
    const Status st = dict.Find("a", &found, &v);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    TermDictCursor c(&dict);
    c.SeekToFirst();
    EXPECT_FALSE(c.Valid());
    EXPECT_TRUE(c.status().IsCorruption());
  }
}

TEST(TermDict, EmptyRegionIsEmpty) {
  testing::TempDir dir;
  auto w = PagedFileWriter::Create(dir.path() + "/f");
  ASSERT_TRUE((*w)->Finish(0, 0, 1).ok());
  auto r = PagedFileReader::Open(dir.path() + "/f");
  ASSERT_TRUE(r.ok());
  TermDictReader dict;
  ASSERT_TRUE(dict.Open(r->get(), 0, 0).ok());
  bool found = true;
  std::string_view v;
  ASSERT_TRUE(dict.Find("a", &found, &v).ok());
  EXPECT_FALSE(found);
}

}  // namespace
}  // namespace dps

namespace dps {
namespace {

// The sparse index (docs/FORMAT.md "Term dictionary"): hand-made indexes
// over two valid one-entry blocks ("a" and "b"); Open must refuse each bad
// one.
TEST(TermDict, MalformedSparseIndexesAreRefusedAtOpen) {
  const std::string blocks = std::string("\x01" "a" "\x01" "v", 4) + std::string("\x01" "b" "\x01" "w", 4);
  auto opens = [&](const std::string& index, uint32_t count) {
    testing::TempDir dir;
    std::string region = blocks + index;
    PutFixed32(&region, count);
    PutFixed32(&region, static_cast<uint32_t>(blocks.size()));
    auto w = PagedFileWriter::Create(dir.path() + "/f");
    EXPECT_TRUE((*w)->Append(region).ok());
    EXPECT_TRUE((*w)->Finish(0, 0, 1).ok());
    auto r = PagedFileReader::Open(dir.path() + "/f");
    TermDictReader dict;
    const Status s = dict.Open(r->get(), 0, region.size());
    if (!s.ok()) {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      return false;
    }
    bool found = false;
    std::string_view v;
    EXPECT_TRUE(dict.Find("b", &found, &v).ok());
    EXPECT_TRUE(found);
    EXPECT_EQ(v, "w");
    return true;
  };
  using std::string_literals::operator""s;
  EXPECT_TRUE(opens("\x01" "a" "\x04" "\x01" "b" "\x04"s, 2));  // "b" shares nothing with "a"
  EXPECT_FALSE(opens("\x01" "a" "\x04" "\x01" "b" "\x05"s, 2));  // lengths pass the blocks
  EXPECT_FALSE(opens("\x01" "a" "\x04" "\x01" "b" "\x03"s, 2));  // and fall short of them
  EXPECT_FALSE(opens("\x01" "a" "\x00" "\x01" "b" "\x08"s, 2));  // an empty block
  EXPECT_FALSE(opens("\x01" "b" "\x04" "\x01" "a" "\x04"s, 2));  // prefixes descend
  EXPECT_FALSE(opens("\x01" "a" "\x04" "\x81" "b" "\x04"s, 2));  // 8 shared + 1 byte
  EXPECT_FALSE(opens("\x01" "a" "\x04" "\x01" "b"s, 2));          // truncated entry
  EXPECT_FALSE(opens("\x01" "a" "\x04" "\x01" "b" "\x04" "\x00"s, 2));  // a byte left over
  EXPECT_FALSE(opens("\x01" "a" "\x08"s, 2));                     // fewer entries than blocks
}

}  // namespace
}  // namespace dps
