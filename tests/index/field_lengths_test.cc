#include "index/field_lengths.h"

#include <gtest/gtest.h>

#include <random>

#include "index/block_impacts.h"
#include "index/field_key.h"

namespace dps {
namespace {

// docs/FORMAT.md's example ("Field lengths"), byte for byte.
TEST(FieldLengths, BytesAreAsDocumented) {
  std::string region;
  EncodeFieldLengths({{2, 0}, {0, 0}}, &region);
  const std::string want(
      "\x02\0\0\0"                  // two fields
      "\x0c\0\0\0" "\x2a\0\0\0"     // columns at 12 and 42
      "\0\x02\0\0" "\x01\0\0\0"     // column 0: score_avgdl 512 (a mean of 2), one document
      "\x02\0\0\0\0\0\0\0"          //   total 2
      "\x0c\0\0\0" "\x02\x02"       //   frame at 12, width 2: 2 then 0
      "\0\0\0\0\0\0\0\0"            //   padding
      "\0\0\0\0" "\0\0\0\0"         // column 1: no document with the field
      "\0\0\0\0\0\0\0\0"            //   total 0
      "\x0c\0\0\0" "\0"             //   frame at 12, width 0
      "\0\0\0\0\0\0\0\0",           //   padding
      71);
  EXPECT_EQ(region, want);
  std::vector<FieldLengthColumn> columns;
  ASSERT_TRUE(OpenFieldLengths(region, 5, 6, "t", &columns).ok());
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_EQ(columns[0].lengths.Get(5), 2u);
  EXPECT_EQ(columns[0].lengths.Get(6), 0u);
  EXPECT_EQ(columns[0].docs, 1u);
  EXPECT_EQ(columns[0].score_avgdl, 512u);
  EXPECT_EQ(columns[1].docs, 0u);
  EXPECT_EQ(columns[1].score_avgdl, 0u);
}

// An index without fields still has the region: a count of 0, nothing more.
TEST(FieldLengths, NoFieldIsACountOfZero) {
  std::string region;
  EncodeFieldLengths({}, &region);
  EXPECT_EQ(region, std::string("\0\0\0\0", 4));
  std::vector<FieldLengthColumn> columns;
  EXPECT_TRUE(OpenFieldLengths(region, 0, 9, "t", &columns).ok());
  EXPECT_TRUE(columns.empty());
  EXPECT_FALSE(OpenFieldLengths(region + "x", 0, 9, "t", &columns).ok());
}

TEST(FieldLengths, RoundTripManyColumns) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 200; ++round) {
    const size_t n = 1 + rng() % 400, fields = 1 + rng() % 5;
    std::vector<std::vector<uint32_t>> in(fields, std::vector<uint32_t>(n));
    for (auto& column : in) {
      const uint32_t most = rng() % 3 == 0 ? 0 : static_cast<uint32_t>(rng() % 5000);
      for (auto& l : column) l = rng() % 3 == 0 || most == 0 ? 0 : static_cast<uint32_t>(rng() % most);
    }
    std::string region;
    EncodeFieldLengths(in, &region);
    const DocId min = static_cast<DocId>(rng() % 1000);
    std::vector<FieldLengthColumn> out;
    ASSERT_TRUE(OpenFieldLengths(region, min, static_cast<DocId>(min + n - 1), "t", &out).ok()) << round;
    ASSERT_EQ(out.size(), fields);
    for (size_t f = 0; f < fields; ++f) {
      uint64_t docs = 0, tokens = 0;
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[f].lengths.Get(static_cast<DocId>(min + i)), in[f][i]);
        docs += in[f][i] != 0;
        tokens += in[f][i];
      }
      EXPECT_EQ(out[f].docs, docs);
      EXPECT_EQ(out[f].score_avgdl, FieldScoreAvgdlUnits(docs, tokens));
    }
  }
}

// Every cut and every byte flipped: an error or the exact columns, never
// a crash (ASan runs this too).
TEST(FieldLengths, CutsAndFlipsAreRefusedOrExact) {
  std::string region;
  EncodeFieldLengths({{3, 0, 7, 1}, {0, 2, 0, 0}, {5, 5, 5, 5}}, &region);
  std::vector<FieldLengthColumn> columns;
  for (size_t cut = 0; cut < region.size(); ++cut) {
    EXPECT_FALSE(OpenFieldLengths(region.substr(0, cut), 0, 3, "t", &columns).ok()) << "cut " << cut;
  }
  EXPECT_FALSE(OpenFieldLengths(region + "x", 0, 3, "t", &columns).ok());
  for (size_t at = 0; at < region.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = region;
      bad[at] = static_cast<char>(bad[at] ^ (1 << bit));
      const Status s = OpenFieldLengths(bad, 0, 3, "t", &columns);
      if (!s.ok()) {
        EXPECT_TRUE(s.IsCorruption()) << s.ToString();
        continue;
      }
      // Accepted: then it is a consistent region whose every figure agrees
      // with its lengths (a flip in a length's bits changes the length, and
      // the totals would have to change with it: never accepted).
      ADD_FAILURE() << "flip of bit " << bit << " at " << at << " accepted";
    }
  }
}

TEST(FieldSet, ColumnsAndKeys) {
  const FieldSet fields({"title", "author"});
  EXPECT_EQ(fields.columns(), 3u);
  EXPECT_EQ(fields.ColumnOf("kernel"), 0);
  EXPECT_EQ(fields.ColumnOf(FieldKey("title", "kernel")), 1);
  EXPECT_EQ(fields.ColumnOf(FieldKey("author", "kernel")), 2);
  EXPECT_EQ(fields.ColumnOf(FieldKey("tags", "kernel")), -1);
  EXPECT_EQ(fields.ColumnOf("\xFF" "author"), -1);  // no ':'
  EXPECT_EQ(FieldKey("title", "a:b"), "\xFF" "title:a:b");
  EXPECT_EQ(FieldOfKey(FieldKey("title", "a:b")), "title");
  EXPECT_EQ(TermOfKey(FieldKey("title", "a:b")), "a:b");
  EXPECT_EQ(DisplayKey(FieldKey("title", "a:b")), "title:a:b");
  EXPECT_EQ(DisplayKey("plain"), "plain");
  EXPECT_TRUE(FieldSet::Validate({"title", "a_1", "_x"}).ok());
  EXPECT_FALSE(FieldSet::Validate(std::vector<std::string>(33, "x")).ok());
  EXPECT_TRUE(FieldSet::Validate({"author", "title"}).ok());  // any order
  EXPECT_TRUE(FieldSet::Validate({}).ok());                   // none (the default)
  EXPECT_EQ(FieldSet().List(), "none");
  EXPECT_FALSE(FieldSet::Validate({"title", "1a"}).ok());
  EXPECT_FALSE(FieldSet::Validate({"title", "a-b"}).ok());
  EXPECT_FALSE(FieldSet::Validate({"title", "x", "x"}).ok());
}

}  // namespace
}  // namespace dps
