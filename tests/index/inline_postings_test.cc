// Short lists kept in the dictionary: the payload's bytes (docs/FORMAT.md
// "Inline postings"), round trips, rejection of malformed payloads, and a
// cursor over them behaving like a cursor over the same list in blocks.
#include "index/inline_postings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "index/posting_list.h"

namespace dps {
namespace {

using std::string_literals::operator""s;

TEST(InlinePostings, BytesMatchFormatMd) {
  std::string out;
  const std::vector<DocId> docs = {5, 9, 10};
  EXPECT_TRUE(EncodeInlinePostings(docs, std::vector<uint32_t>{1, 3, 1}, &out));
  EXPECT_EQ(out, "\x05\x03\x00\x01\x03\x01"s);
  out.clear();
  EXPECT_FALSE(EncodeInlinePostings(docs, std::vector<uint32_t>{1, 1, 1}, &out));
  EXPECT_EQ(out, "\x05\x03\x00"s);
}

TEST(InlinePostings, RandomListsRoundTripAndCursorsAgreeWithBlocks) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 2000; ++round) {
    const uint32_t df = 2 + static_cast<uint32_t>(rng() % (kMaxInlineDfRead - 1));
    std::vector<DocId> docs;
    std::vector<uint32_t> weights;
    uint64_t d = rng() % 3 ? rng() % 100 : kMaxDocId - 5000000;
    for (uint32_t i = 0; i < df; ++i) {
      docs.push_back(static_cast<DocId>(d));
      d += 1 + rng() % (rng() % 2 ? 2 : 30000);
      weights.push_back(rng() % 4 ? 1 : 1 + static_cast<uint32_t>(rng() % 100000));
    }
    std::string payload;
    const bool has_weights = EncodeInlinePostings(docs, weights, &payload);
    EXPECT_EQ(has_weights, std::any_of(weights.begin(), weights.end(), [](uint32_t w) { return w != 1; }));
    std::vector<DocId> got_docs(df);
    std::vector<uint32_t> got_weights(df);
    const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
    ASSERT_EQ(ParseInlinePostings(p, p + payload.size(), df, has_weights, got_docs.data(),
                                  got_weights.data()),
              p + payload.size());
    EXPECT_EQ(got_docs, docs);
    EXPECT_EQ(got_weights, weights);
    // Every truncation is refused; skipping finds the same end as parsing.
    EXPECT_EQ(SkipInlinePostings(p, p + payload.size(), df, has_weights), p + payload.size());
    const std::string padded = payload + "\x01\x02\x83\x04"s;  // bytes after the payload
    const auto* q = reinterpret_cast<const uint8_t*>(padded.data());
    EXPECT_EQ(SkipInlinePostings(q, q + padded.size(), df, has_weights), q + payload.size());
    for (size_t len = 0; len < payload.size(); ++len) {
      EXPECT_EQ(ParseInlinePostings(p, p + len, df, has_weights, nullptr, nullptr), nullptr) << len;
      EXPECT_EQ(SkipInlinePostings(p, p + len, df, has_weights), nullptr) << len;
    }

    // The same seeks on an inline cursor and a block cursor meet the same
    // docids and weights.
    std::string blocks;
    EncodePostingList(docs, weights, /*lengths=*/weights, /*score_avgdl=*/1.0, &blocks, nullptr);
    PostingCursor inline_cursor, block_cursor;
    ASSERT_TRUE(inline_cursor.InitInline(payload, df, has_weights).ok());
    ASSERT_TRUE(block_cursor.Init(reinterpret_cast<const uint8_t*>(blocks.data()), blocks.size(), df,
                                  nullptr, 0).ok());
    EXPECT_EQ(inline_cursor.df(), df);
    EXPECT_EQ(inline_cursor.last_doc(), docs.back());
    while (inline_cursor.doc() != kEndDoc) {
      ASSERT_EQ(inline_cursor.doc(), block_cursor.doc());
      EXPECT_EQ(inline_cursor.weight(), block_cursor.weight());
      if (rng() % 2) {
        inline_cursor.Next();
        block_cursor.Next();
      } else {
        const DocId target = inline_cursor.doc() + static_cast<DocId>(rng() % 40000);
        inline_cursor.Seek(target);
        block_cursor.Seek(target);
      }
    }
    EXPECT_EQ(block_cursor.doc(), kEndDoc);
    EXPECT_TRUE(inline_cursor.status().ok());
  }
}

TEST(InlinePostings, MalformedPayloadsAreRefused) {
  auto parses = [](const std::string& s, uint32_t df, bool w) {
    const auto* p = reinterpret_cast<const uint8_t*>(s.data());
    return ParseInlinePostings(p, p + s.size(), df, w, nullptr, nullptr) == p + s.size();
  };
  EXPECT_TRUE(parses("\x05\x00"s, 2, false));
  EXPECT_TRUE(parses("\xfe\xff\xff\xff\x0f"s, 1, false));            // docid 2^32 - 2
  EXPECT_FALSE(parses("\xff\xff\xff\xff\x0f"s, 1, false));           // 2^32 - 1
  EXPECT_FALSE(parses("\xfd\xff\xff\xff\x0f\x01"s, 2, false));       // gap past 2^32 - 2
  EXPECT_FALSE(parses("\x05\x00\x01\x00"s, 2, true));                // weight 0
  EXPECT_FALSE(parses("\x05\x80\x80\x80\x80\x80\x01"s, 2, false));  // gap over 32 bits
  // A cursor refuses what the parser refuses, and dfs out of its range.
  PostingCursor c;
  EXPECT_TRUE(c.InitInline("\x05\x00\x01\x00"s, 2, true).IsCorruption());
  EXPECT_EQ(c.doc(), kEndDoc);
  EXPECT_TRUE(c.InitInline("\x05"s, 1, false).IsCorruption());
  EXPECT_TRUE(c.InitInline(std::string(129, '\0'), 129, false).IsCorruption());
  EXPECT_TRUE(c.InitInline("\x05\x00\x07"s, 2, false).IsCorruption());  // bytes left over
}

// Found by inline_postings_fuzz: an empty view with no data (the parser's
// "refused" nullptr equals its end) opened a cursor of df unread postings.
TEST(InlinePostings, EmptyPayloadWithoutDataIsRefused) {
  PostingCursor c;
  EXPECT_TRUE(c.InitInline(std::string_view(), 59, false).IsCorruption());
  EXPECT_EQ(c.doc(), kEndDoc);
  EXPECT_TRUE(c.InitInline(std::string_view(), 2, true).IsCorruption());
}

}  // namespace
}  // namespace dps
