#include "index/term_list.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/testing/test_util.h"

namespace dps {
namespace {

// Bins stream one after another into one file; each must read back as its
// own dictionary, with a bin that got no terms left out.
TEST(TermList, StreamedBinsReadBackAndEmptyBinsAreLeftOut) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/000001.dic";
  std::map<uint32_t, std::map<std::string, std::string>> bins;
  for (uint32_t bin : {0u, 3u, 9u}) {
    // Bin 3 spans many dictionary blocks; 0 and 9 stay in one.
    const size_t n = bin == 3 ? 5000 : 7;
    for (size_t i = 0; i < n; ++i) {
      std::string key = "t", value = "v";
      key += std::to_string(100000 + i * 7 + bin);
      value += std::to_string(i * bin);
      bins[bin][key] = value;
    }
  }
  {
    auto w = TermListWriter::Create(path, false);
    ASSERT_TRUE(w.ok());
    for (uint32_t bin = 0; bin < 12; ++bin) {
      ASSERT_TRUE((*w)->BeginBin(bin).ok());
      if (bins.count(bin)) {
        for (const auto& [k, v] : bins[bin]) ASSERT_TRUE((*w)->Add(k, v).ok());
      }
      ASSERT_TRUE((*w)->EndBin().ok());
    }
    ASSERT_TRUE((*w)->Finish().ok());
  }
  auto r = TermListReader::Open(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ((*r)->bin_count(), bins.size());
  size_t i = 0;
  for (const auto& [bin, entries] : bins) {
    EXPECT_EQ((*r)->bin(i), bin);
    TermDictCursor cursor(&(*r)->dict(i));
    cursor.SeekToFirst();
    for (const auto& [k, v] : entries) {
      ASSERT_TRUE(cursor.Valid()) << cursor.status().ToString();
      EXPECT_EQ(cursor.key(), k);
      EXPECT_EQ(cursor.value(), v);
      cursor.Next();
    }
    EXPECT_FALSE(cursor.Valid());
    EXPECT_TRUE(cursor.status().ok());
    ++i;
  }
}

TEST(TermList, RefusesMisuse) {
  testing::TempDir dir;
  auto w = TermListWriter::Create(dir.path() + "/000001.dic", false);
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE((*w)->EndBin().ok());  // no bin begun
  ASSERT_TRUE((*w)->BeginBin(5).ok());
  EXPECT_FALSE((*w)->BeginBin(6).ok());  // 5 still open
  EXPECT_FALSE((*w)->Finish().ok());     // inside a bin
  ASSERT_TRUE((*w)->Add("a", "1").ok());
  ASSERT_TRUE((*w)->EndBin().ok());
  EXPECT_FALSE((*w)->BeginBin(5).ok());  // bins ascend
  EXPECT_TRUE((*w)->Finish().ok());
}

}  // namespace
}  // namespace dps
