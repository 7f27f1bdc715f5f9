#include "index/id_column.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "common/coding.h"
#include "index/packed_frames.h"

namespace dps {
namespace {

using Ids = std::map<DocId, std::string>;  // docid -> id, the column's model

std::string Encode(const Ids& ids) {
  IdColumnWriter w;
  for (const auto& [d, id] : ids) EXPECT_TRUE(w.Add(d, id).ok());
  std::string region;
  EXPECT_TRUE(w.Finish(&region).ok());
  return region;
}

Status OpenColumn(IdColumnReader* r, std::string_view region, const Ids& ids) {
  return r->Open(region, ids.begin()->first, ids.rbegin()->first, static_cast<uint32_t>(ids.size()), "t");
}

// Reads every docid of the range (and one past each end) back, by Get and
// by ForEach, against the model.
void ExpectColumn(const Ids& ids, const std::string& trace) {
  SCOPED_TRACE(trace);
  const std::string region = Encode(ids);
  IdColumnReader r;
  Status s = OpenColumn(&r, region, ids);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const DocId first = ids.begin()->first, last = ids.rbegin()->first;
  std::string got;
  for (uint64_t d = first == 0 ? 0 : first - 1; d <= uint64_t{last} + 1 && d <= kEndDoc; ++d) {
    const auto it = ids.find(static_cast<DocId>(d));
    s = r.Get(static_cast<DocId>(d), &got);
    if (it == ids.end()) {
      EXPECT_TRUE(s.IsNotFound()) << d << ": " << s.ToString();
    } else {
      ASSERT_TRUE(s.ok()) << d << ": " << s.ToString();
      EXPECT_EQ(got, it->second) << d;
    }
  }
  Ids seen;
  s = r.ForEach([&](DocId d, std::string_view id) { seen.emplace(d, id); });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, ids);
}

std::string RandomId(std::mt19937_64& rng, int kind, DocId d) {
  switch (kind) {
    case 0: return std::to_string(rng() % 1000);
    case 1: return std::to_string(rng() >> (rng() % 64));  // every width, up to 20 digits (a string)
    case 2: return std::string(rng() % 2 ? "0" : "-").append(std::to_string(rng() % 100));
    case 3: return std::to_string(uint64_t{d} * 1000 + rng() % 5000);  // ascending with the docid: a line
    default: {
      std::string s(1 + rng() % 12, 'a');
      for (char& c : s) c = "ab/\xff."[rng() % 5];
      return s;
    }
  }
}

// docs/FORMAT.md "Id column", byte for byte: a decimal frame with a gap,
// and a strings frame.
TEST(IdColumn, BytesAreAsDocumented) {
  const Ids decimal = {{5, "12"}, {7, "10"}, {8, "4000000000"}};
  const std::string want_decimal("\x04\0\0\0"                              // frame 0 at byte 4
                                 "\xa0"                                    // presence bitmap, width 32
                                 "\x0d\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"    // slots 0, 2, 3 present
                                 "\x0a\0\0\0\0\0\0\0"                      // base 10
                                 "\0\0\0\0\0\0\0\0"                        // slope 0
                                 "\x02\0\0\0" "\0\0\0\0" "\0\0\0\0" "\xf6\x27\x6b\xee"  // 2, 0, 0, 3999999990
                                 "\0\0\0\0\0\0\0\0",                       // padding
                                 61);
  EXPECT_EQ(Encode(decimal), want_decimal);
  // Ascending ids: 100 + 3 i, plus 0, 0, 1, 1.
  const Ids line = {{0, "100"}, {1, "103"}, {2, "107"}, {3, "110"}};
  const std::string want_line("\x04\0\0\0"
                              "\x01"                  // no bitmap, width 1
                              "\x64\0\0\0\0\0\0\0"  // base 100
                              "\x03\0\0\0\0\0\0\0"  // slope 3
                              "\x0c"                  // 0, 0, 1, 1
                              "\0\0\0\0\0\0\0\0",
                              30);
  EXPECT_EQ(Encode(line), want_line);
  ExpectColumn(line, "line");
  const Ids strings = {{0, "doc/a"}, {1, "doc/b"}};
  const std::string want_strings("\x04\0\0\0"                // frame 0 at byte 4
                                 "\x7f"                      // strings, every slot present
                                 "\x00\x05" "doc/a" "\x04\x01" "b"
                                 "\0\0\0\0\0\0\0\0",
                                 23);
  EXPECT_EQ(Encode(strings), want_strings);
  ExpectColumn(decimal, "decimal");
  ExpectColumn(strings, "strings");
}

TEST(IdColumn, RandomFramesRoundTrip) {
  std::mt19937_64 rng(21);
  for (int round = 0; round < 200; ++round) {
    Ids ids;
    DocId d = static_cast<DocId>(rng() % 3000);
    const size_t n = 1 + rng() % 900;
    const int mix = static_cast<int>(rng() % 6);  // 5: every kind in one column
    for (size_t i = 0; i < n; ++i) {
      ids.emplace(d, RandomId(rng, mix == 5 ? static_cast<int>(rng() % 5) : mix, d));
      // Mostly dense, some gaps, now and then a gap of whole frames.
      const uint64_t r = rng() % 20;
      d += 1 + (r == 0 ? static_cast<DocId>(rng() % 600) : r < 4 ? static_cast<DocId>(rng() % 5) : 0);
    }
    ExpectColumn(ids, "round " + std::to_string(round));
  }
}

// Each width 0 to 64: a frame whose ids span exactly 2^w - 1, at the
// low and high ends of the decimal range, and the first ids that are not
// decimal (leading zero, 20 digits).
TEST(IdColumn, EveryWidthAndTheBoundaries) {
  for (unsigned w = 0; w <= 64; ++w) {
    const uint64_t span = w == 64 ? kMaxDecimalId : (uint64_t{1} << w) - 1;
    for (uint64_t base : {uint64_t{0}, kMaxDecimalId - span}) {
      Ids ids = {{10, std::to_string(base + span)}, {11, std::to_string(base)}, {200, std::to_string(base + span / 2)}};
      const std::string region = Encode(ids);
      EXPECT_EQ(static_cast<uint8_t>(region[8]), w | kIdFramePresence) << w;  // frame 0's head
      ExpectColumn(ids, "width " + std::to_string(w));
    }
  }
  ExpectColumn({{0, "0"}, {1, "9999999999999999999"}}, "0 and 19 nines");
  for (const char* id : {"10000000000000000000", "18446744073709551615", "007", "00", "-1", "1e3", " 1"}) {
    const Ids ids = {{0, "5"}, {1, id}};
    EXPECT_EQ(static_cast<uint8_t>(Encode(ids)[4]), kIdFrameStrings) << id;
    ExpectColumn(ids, id);
  }
  ExpectColumn({{kMaxDocId - 200, "a"}, {kMaxDocId, "b"}}, "the largest docids");
}

TEST(IdColumn, EmptyIdsAndDescendingDocidsAreRefused) {
  IdColumnWriter w;
  EXPECT_TRUE(w.Add(3, "").IsInvalidArgument());
  EXPECT_TRUE(w.Add(3, "a").ok());
  EXPECT_TRUE(w.Add(3, "b").IsInvalidArgument());
  EXPECT_TRUE(w.Add(2, "b").IsInvalidArgument());
  std::string region;
  ASSERT_TRUE(w.Finish(&region).ok());
  EXPECT_EQ(region, std::string("\x04\0\0\0\x7f\x00\x01" "a" "\0\0\0\0\0\0\0\0", 16));
}

// A region mixing every frame kind (a gap of whole frames too).
Ids MixedIds() {
  std::mt19937_64 rng(8);
  Ids ids;
  for (DocId d = 0; d < 1000; ++d) {
    if (d % 7 == 3 || (d >= 400 && d < 600)) continue;
    ids.emplace(d, RandomId(rng, d < 256 ? 1 : d < 700 ? 4 : d < 850 ? 3 : 0, d));
  }
  return ids;
}

// Byte positions of the frame table, frame heads, presence bitmaps and the
// padding: what Open checks.
std::vector<size_t> LayoutBytes(const std::string& region, uint64_t frames) {
  std::vector<size_t> at;
  for (size_t i = 0; i < 4 * frames; ++i) at.push_back(i);
  for (uint64_t f = 0; f < frames; ++f) {
    const size_t o = DecodeFixed32(reinterpret_cast<const uint8_t*>(region.data()) + 4 * f);
    at.push_back(o);
    if (static_cast<uint8_t>(region[o]) & kIdFramePresence) {
      for (size_t i = 1; i <= kIdPresenceBytes; ++i) at.push_back(o + i);
    }
  }
  for (size_t i = region.size() - kFramePadding; i < region.size(); ++i) at.push_back(i);
  return at;
}

// Flipped or cut bytes: a damaged layout is refused by Open or, at the
// latest, by a ForEach (a decimal head turned strings); damaged values are
// Corruption when read or a well-formed id (in a tablet file the page
// checksums catch those: tests/index/corruption_test.cc); never a crash,
// never a docid the column does not hold.
TEST(IdColumn, DamagedRegionsAreRefusedOrReadSafely) {
  const Ids ids = MixedIds();
  const std::string region = Encode(ids);
  IdColumnReader r;
  ASSERT_TRUE(OpenColumn(&r, region, ids).ok());
  for (size_t cut = 0; cut < region.size(); ++cut) {
    EXPECT_FALSE(OpenColumn(&r, std::string_view(region).substr(0, cut), ids).ok()) << "cut at " << cut;
  }
  const uint64_t frames = FrameCount(ids.begin()->first, ids.rbegin()->first);
  std::vector<bool> layout(region.size());
  for (size_t i : LayoutBytes(region, frames)) layout[i] = true;
  std::mt19937_64 rng(4);
  for (size_t i = 0; i < region.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      if (!layout[i] && bit != static_cast<int>(rng() % 8)) continue;  // values: one bit a byte
      std::string bad = region;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      Status s = OpenColumn(&r, bad, ids);
      if (layout[i]) {
        if (s.ok()) s = r.ForEach([](DocId, std::string_view) {});
        EXPECT_TRUE(s.IsCorruption()) << "byte " << i << " bit " << bit << ": " << s.ToString();
        continue;
      }
      if (!s.ok()) {
        EXPECT_TRUE(s.IsCorruption()) << s.ToString();
        continue;
      }
      std::string got;
      for (const auto& [d, id] : ids) {
        s = r.Get(d, &got);
        EXPECT_TRUE(s.ok() || s.IsCorruption()) << s.ToString();
        if (s.ok()) {
          EXPECT_FALSE(got.empty());
        }
      }
      s = r.ForEach([&](DocId d, std::string_view id) {
        EXPECT_EQ(ids.count(d), 1u) << d;
        EXPECT_FALSE(id.empty());
      });
      EXPECT_TRUE(s.ok() || s.IsCorruption()) << s.ToString();
    }
  }
  // A range or count other than the bin's.
  EXPECT_FALSE(r.Open(region, 0, 1000, static_cast<uint32_t>(ids.size()), "t").ok());
  EXPECT_FALSE(r.Open(region, 0, 998, static_cast<uint32_t>(ids.size()), "t").ok());
  EXPECT_FALSE(r.Open(region, 0, 999, static_cast<uint32_t>(ids.size() + 1), "t").ok());
}

// Value faults Open cannot see cheaply are Corruption when read.
TEST(IdColumn, ValueFaultsAreCorruptionOnAccess) {
  std::string got;
  {
    // base + value past 19 digits.
    const Ids ids = {{0, "9999999999999999999"}, {1, "0"}};
    std::string region = Encode(ids);
    region[5] = 1;  // base 0 -> 1
    IdColumnReader r;
    ASSERT_TRUE(OpenColumn(&r, region, ids).ok());
    EXPECT_TRUE(r.Get(0, &got).IsCorruption());
    EXPECT_TRUE(r.ForEach([](DocId, std::string_view) {}).IsCorruption());
  }
  {
    // A slope that carries slot 1 past 19 digits (slot 0 stays readable).
    const Ids ids = {{0, "100"}, {1, "103"}, {2, "107"}, {3, "110"}};
    std::string region = Encode(ids);
    std::string slope;
    PutFixed64(&slope, kMaxDecimalId);
    region.replace(13, 8, slope);
    IdColumnReader r;
    ASSERT_TRUE(OpenColumn(&r, region, ids).ok());
    ASSERT_TRUE(r.Get(0, &got).ok());
    EXPECT_EQ(got, "100");
    EXPECT_TRUE(r.Get(1, &got).IsCorruption());
  }
  {
    // "a", "xy" rewritten as two empty ids and bytes after them.
    const Ids ids = {{0, "a"}, {1, "xy"}};
    std::string region = Encode(ids);
    ASSERT_EQ(region.substr(4, 8), std::string("\x7f\x00\x01" "a" "\x00\x02" "xy", 8));
    region.replace(4, 8, std::string("\x7f\x00\x00\x00\x00\x03" "xy", 8));
    IdColumnReader r;
    ASSERT_TRUE(OpenColumn(&r, region, ids).ok());
    EXPECT_TRUE(r.Get(0, &got).IsCorruption());
    EXPECT_TRUE(r.Get(1, &got).IsCorruption());
    EXPECT_TRUE(r.ForEach([](DocId, std::string_view) {}).IsCorruption());
  }
  {
    // A value in an absent slot (ids 9 and 7 around absent 8).
    const Ids ids = {{7, "9"}, {9, "7"}};
    std::string region = Encode(ids);
    const size_t values = 4 + 1 + kIdPresenceBytes + 16;
    ASSERT_EQ(static_cast<uint8_t>(region[4]), kIdFramePresence | 2);  // width 2: 2, 0, 0
    region[values] = static_cast<char>(region[values] | 0x04);         // slot 1 := 1
    IdColumnReader r;
    ASSERT_TRUE(OpenColumn(&r, region, ids).ok());
    EXPECT_TRUE(r.Get(8, &got).IsNotFound());
    EXPECT_TRUE(r.ForEach([](DocId, std::string_view) {}).IsCorruption());
  }
}

}  // namespace
}  // namespace dps
