#include "index/term_range.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/coding.h"
#include "tests/index/term_dict_fixture.h"

namespace dps {
namespace {

using Entries = std::map<std::string, std::string>;
using Pairs = std::vector<std::pair<std::string, std::string>>;

Pairs Range(const TermDictReader& dict, std::string_view prefix, Status* status) {
  Pairs out;
  *status = ForEachKeyWithPrefix(dict, prefix, [&](std::string_view k, std::string_view v) {
    out.emplace_back(std::string(k), std::string(v));
  });
  return out;
}

// The model: the map's entries whose keys start with the prefix.
Pairs Want(const Entries& entries, const std::string& prefix) {
  Pairs out;
  for (auto it = entries.lower_bound(prefix); it != entries.end() && it->first.starts_with(prefix); ++it) {
    out.emplace_back(*it);
  }
  return out;
}

void ExpectRange(const TermDictReader& dict, const Entries& entries, const std::string& prefix) {
  Status s;
  const Pairs got = Range(dict, prefix, &s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(got, Want(entries, prefix)) << "prefix [" << prefix << "]";
}

// Every prefix of every key, and random probes, against the model, for
// dictionaries of one block to hundreds (the global index's 16 entries a
// block and the tablets' 32).
TEST(TermRange, EqualsTheModelForEveryPrefixOfEveryKey) {
  std::mt19937_64 rng(19);
  for (size_t block : {kGlobalDictBlockEntries, kTermDictBlockEntries}) {
    for (size_t n : {1, 15, 16, 17, 32, 33, 1000}) {
      SCOPED_TRACE(std::to_string(n) + " keys, " + std::to_string(block) + " a block");
      Entries entries;
      std::uniform_int_distribution<int> len(1, 7), ch('a', 'd');
      while (entries.size() < n) {
        std::string k;
        for (int i = len(rng); i > 0; --i) k.push_back(static_cast<char>(ch(rng)));
        std::string value = std::to_string(entries.size());
        entries[k] = value;
      }
      testing::DictFixture f(entries, block);
      for (const auto& [k, v] : entries) {
        for (size_t cut = 1; cut <= k.size(); ++cut) ExpectRange(f.dict, entries, k.substr(0, cut));
      }
      std::uniform_int_distribution<int> probe_ch('a' - 1, 'e');
      for (int i = 0; i < 300; ++i) {
        std::string p;
        for (int j = len(rng); j > 0; --j) p.push_back(static_cast<char>(probe_ch(rng)));
        ExpectRange(f.dict, entries, p);
      }
    }
  }
}

// Blocks of 16 keys: p00..p15, q00..q15, r00..r15. Ranges that are exactly
// a block, end at a block's last key, start at its first, or fall between
// two blocks.
TEST(TermRange, RangesAtBlockBoundaries) {
  Entries entries;
  for (char c : {'p', 'q', 'r'}) {
    for (int i = 0; i < 16; ++i) {
      const char key[] = {c, static_cast<char>('0' + i / 10), static_cast<char>('0' + i % 10)};
      entries.emplace(std::string(key, 3), std::string(1, 'v'));
    }
  }
  testing::DictFixture f(entries, 16);
  ASSERT_EQ(f.dict.block_count(), 3u);
  Status s;
  EXPECT_EQ(Range(f.dict, "q", &s).size(), 16u);  // block 1 whole, then r00 ends it
  EXPECT_EQ(Range(f.dict, "q", &s).front().first, "q00");
  EXPECT_EQ(Range(f.dict, "q", &s).back().first, "q15");
  EXPECT_EQ(Range(f.dict, "q1", &s).size(), 6u);  // q10..q15: up to the block's end
  EXPECT_EQ(Range(f.dict, "p15", &s), (Pairs{{"p15", "v"}}));  // a block's last key
  EXPECT_EQ(Range(f.dict, "q00", &s), (Pairs{{"q00", "v"}}));  // a block's first key
  EXPECT_TRUE(Range(f.dict, "pz", &s).empty());  // between two blocks
  EXPECT_TRUE(s.ok());
  for (const std::string p : {"p", "p1", "q0", "r", "r1", "q15", "r00"}) ExpectRange(f.dict, entries, p);
}

// A prefix that is a whole key yields that key and the longer ones.
TEST(TermRange, PrefixEqualToAWholeKey) {
  const Entries entries = {{"net", "1"}, {"netw", "2"}, {"network", "3"}, {"networks", "4"}, {"new", "5"}};
  testing::DictFixture f(entries);
  Status s;
  EXPECT_EQ(Range(f.dict, "netw", &s), (Pairs{{"netw", "2"}, {"network", "3"}, {"networks", "4"}}));
  EXPECT_EQ(Range(f.dict, "networks", &s), (Pairs{{"networks", "4"}}));
  EXPECT_EQ(Range(f.dict, "net", &s).size(), 4u);
  EXPECT_EQ(Range(f.dict, "networkss", &s), Pairs{});
  EXPECT_TRUE(s.ok());
}

// The dictionary's last key ends the walk cleanly; no key, no call.
TEST(TermRange, LastKeyAndEmptyRanges) {
  Entries entries;
  for (int i = 100; i < 150; ++i) {
    std::string key = std::to_string(i);
    entries[key.insert(0, 1, 'k')] = std::to_string(i);
  }
  testing::DictFixture f(entries, 16);
  Status s;
  EXPECT_EQ(Range(f.dict, "k149", &s), (Pairs{{"k149", "149"}}));
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(Range(f.dict, "k14", &s).size(), 10u);  // k140..k149, through the end
  EXPECT_TRUE(s.ok());
  for (const std::string p : {"a", "j", "k0", "k15", "k1499", "l", "zzz", "k\xff"}) {
    EXPECT_EQ(Range(f.dict, p, &s), Pairs{}) << p;
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  testing::DictFixture empty(Entries{});
  EXPECT_EQ(Range(empty.dict, "k", &s), Pairs{});
  EXPECT_TRUE(s.ok());
}

// A malformed block inside the range, or the one the walk looks into to
// find the range's end, is Corruption, never a shorter range.
TEST(TermRange, CorruptBlocksAreCorruption) {
  // Hand-made region of two one-entry blocks: "a" -> "v", then an entry
  // whose suffix runs past its block, under the index prefix "b" (the
  // pages' checksums are right: only the entry parser can tell).
  const std::string good = std::string("\x01" "a" "\x01" "v", 4);
  const std::string bad = std::string("\x05" "ab", 3);
  std::string region = good + bad;
  region += "\x01" "a";
  PutVarint64(&region, good.size());
  region += "\x01" "b";
  PutVarint64(&region, bad.size());
  PutFixed32(&region, 2);
  PutFixed32(&region, static_cast<uint32_t>(good.size() + bad.size()));
  testing::RawDictFixture f(region);
  ASSERT_TRUE(f.open.ok()) << f.open.ToString();
  const TermDictReader& dict = f.dict;
  Status s;
  Range(dict, "b", &s);  // the range starts in the bad block
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  Range(dict, "", &s);  // "a", then the bad block
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  Range(dict, "a", &s);  // the walk must read the next entry to know "a" ends the range
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

}  // namespace
}  // namespace dps
