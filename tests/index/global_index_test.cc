// The global index's value format (version 5): refs per (bin, file) round-
// trip exactly, bins and df follow from them, and malformed refs are refused
// both when written and when read.
#include "index/global_index.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "index/inline_postings.h"
#include "index/posting_list.h"

#include "tests/testing/test_util.h"

namespace dps {
namespace {

TermRef Inline(uint32_t bin, uint32_t file, DocId doc, uint32_t weight) {
  TermRef r;
  r.bin = bin;
  r.file = file;
  r.df = 1;
  r.inline_doc = doc;
  r.inline_weight = weight;
  return r;
}

TermRef List(uint32_t bin, uint32_t file, uint32_t df, uint64_t offset, uint64_t len) {
  TermRef r;
  r.bin = bin;
  r.file = file;
  r.df = df;
  r.offset = offset;
  r.len = len;
  // A list of several blocks carries its largest block score.
  r.max_score = df > kBlockSize ? static_cast<uint32_t>(1 + (df * 7919u) % UINT16_MAX) : 0;
  return r;
}

// A short list kept inline: its payload lives in `store`.
TermRef InlineList(uint32_t bin, uint32_t file, std::mt19937_64& rng, std::deque<std::string>* store) {
  TermRef r;
  r.bin = bin;
  r.file = file;
  r.df = 2 + static_cast<uint32_t>(rng() % (kMaxInlineDfRead - 1));
  std::vector<DocId> docs;
  std::vector<uint32_t> weights;
  DocId d = static_cast<DocId>(rng() % 1000);
  for (uint32_t i = 0; i < r.df; ++i) {
    docs.push_back(d);
    d += 1 + static_cast<DocId>(rng() % (rng() % 2 ? 3 : 100000));
    weights.push_back(rng() % 3 ? 1 : 1 + static_cast<uint32_t>(rng() % 300));
  }
  r.inline_weights = EncodeInlinePostings(docs, weights, &store->emplace_back());
  r.inline_postings = store->back();
  return r;
}

bool SameRef(const TermRef& a, const TermRef& b) {
  return a.bin == b.bin && a.file == b.file && a.df == b.df && a.inline_doc == b.inline_doc &&
         a.inline_weight == b.inline_weight && a.offset == b.offset && a.len == b.len &&
         a.inline_postings == b.inline_postings && a.inline_weights == b.inline_weights &&
         a.max_score == b.max_score;
}

TEST(GlobalIndex, RefsRoundTripWithBinsAndFrequency) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/g.gix";
  std::mt19937_64 rng(7);
  std::vector<std::pair<std::string, std::vector<TermRef>>> terms;
  std::deque<std::string> payloads;
  for (int t = 0; t < 500; ++t) {
    std::vector<TermRef> refs;
    uint32_t bin = static_cast<uint32_t>(rng() % 3);
    const int nbins = 1 + static_cast<int>(rng() % 4);
    for (int b = 0; b < nbins; ++b) {
      uint32_t file = static_cast<uint32_t>(rng() % 3);  // often not the oldest file
      const int nfiles = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < nfiles; ++f) {
        if (rng() % 3 == 0) {
          refs.push_back(Inline(bin, file, static_cast<DocId>(rng() % kMaxDocId), 1 + rng() % 9));
        } else if (rng() % 2) {
          refs.push_back(InlineList(bin, file, rng, &payloads));
        } else {
          refs.push_back(List(bin, file, 2 + rng() % 100000, rng() % (1ull << 40), 1 + rng() % 5000));
        }
        file += 1 + static_cast<uint32_t>(rng() % 2);
      }
      bin += 1 + static_cast<uint32_t>(rng() % 1000);
    }
    char key[16];
    std::snprintf(key, sizeof key, "t%05d", t);
    terms.emplace_back(key, refs);
  }
  {
    auto w = GlobalIndexWriter::Create(path, false);
    ASSERT_TRUE(w.ok());
    for (const auto& [term, refs] : terms) {
      GlobalTermInfo info;
      info.refs = refs;
      ASSERT_TRUE((*w)->Add(term, info).ok());
    }
    ASSERT_TRUE((*w)->Finish(42).ok());
  }
  auto r = GlobalIndexReader::Open(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->num_terms(), terms.size());
  EXPECT_EQ((*r)->total_docs(), 42u);
  for (const auto& [term, refs] : terms) {
    bool found = false;
    GlobalTermInfo info;
    ASSERT_TRUE((*r)->Lookup(term, &found, &info).ok());
    ASSERT_TRUE(found) << term;
    ASSERT_EQ(info.refs.size(), refs.size()) << term;
    uint64_t df = 0;
    std::vector<BinId> bins;
    for (size_t i = 0; i < refs.size(); ++i) {
      EXPECT_TRUE(SameRef(info.refs[i], refs[i])) << term << " ref " << i;
      df += refs[i].df;
      if (bins.empty() || bins.back().value != refs[i].bin) bins.push_back(BinId{refs[i].bin});
    }
    EXPECT_EQ(info.df, df);
    std::vector<BinId> got_bins;
    info.Bins(&got_bins);
    EXPECT_EQ(got_bins, bins);
    for (BinId b : bins) {
      for (const TermRef& ref : info.RefsOf(b)) EXPECT_EQ(ref.bin, b.value);
    }
    EXPECT_TRUE(info.RefsOf(BinId{bins.back().value + 1}).empty());
  }
  bool found = true;
  GlobalTermInfo info;
  ASSERT_TRUE((*r)->Lookup("t99999", &found, &info).ok());
  EXPECT_FALSE(found);
}

TEST(GlobalIndex, WriterRefusesUnorderedOrEmptyRefs) {
  testing::TempDir dir;
  auto w = GlobalIndexWriter::Create(dir.path() + "/g.gix", false);
  ASSERT_TRUE(w.ok());
  GlobalTermInfo info;
  EXPECT_FALSE((*w)->Add("a", info).ok());  // no refs
  info.refs = {Inline(3, 0, 1, 1), Inline(2, 0, 1, 1)};
  EXPECT_FALSE((*w)->Add("a", info).ok());  // bins descend
  info.refs = {Inline(3, 1, 1, 1), Inline(3, 1, 2, 1)};
  EXPECT_FALSE((*w)->Add("a", info).ok());  // same (bin, file) twice
  info.refs = {List(3, 0, 0, 0, 1)};
  EXPECT_FALSE((*w)->Add("a", info).ok());  // df 0
  info.refs = {Inline(3, 0, 1, 0)};
  EXPECT_FALSE((*w)->Add("a", info).ok());  // weight 0
  info.refs = {List(3, 0, 200, 0, 9)};
  info.refs[0].max_score = 0;
  EXPECT_FALSE((*w)->Add("a", info).ok());  // several blocks without a max score
  info.refs[0].max_score = 1;
  EXPECT_TRUE((*w)->Add("a", info).ok());
}

TEST(GlobalIndex, ReaderRefusesMalformedValues) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/g.gix";
  {
    auto w = GlobalIndexWriter::Create(path, false);
    ASSERT_TRUE(w.ok());
    GlobalTermInfo info;
    info.refs = {Inline(0, 0, 5, 1)};
    ASSERT_TRUE((*w)->Add("a", info).ok());
    ASSERT_TRUE((*w)->Finish(1).ok());
  }
  auto r = GlobalIndexReader::Open(path);
  ASSERT_TRUE(r.ok());
  GlobalTermInfo info;
  auto parses = [&](std::string_view bytes) { return (*r)->ParseValue(bytes, &info).ok(); };
  using std::string_literals::operator""s;
  EXPECT_TRUE(parses("\xc1\x02"s));           // bin 0, singleton of weight 1, docid 5 (5 << 6 | 1)
  EXPECT_TRUE(parses("\xc2\x02\x03"s));       // singleton, docid 5, weight 3
  EXPECT_TRUE(parses("\x00\x02\x00\x07"s));   // list: df 2, offset 0, len 7
  EXPECT_FALSE(parses(""s));                    // no refs
  const std::string two = "\x03\x04\x05\x00"s;  // inline list: df 2, docids 5 and 6
  EXPECT_TRUE(parses(two));  // (refs view the value's bytes: keep them alive)
  EXPECT_EQ(info.refs[0].df, 2u);
  EXPECT_EQ(info.refs[0].inline_postings, "\x05\x00"s);
  EXPECT_FALSE(info.refs[0].inline_weights);
  const std::string weighted = "\x03\x05\x05\x00\x01\x03"s;  // with weights 1 and 3
  EXPECT_TRUE(parses(weighted));
  EXPECT_TRUE(info.refs[0].inline_weights);
  EXPECT_FALSE(parses("\x03\x02\x05"s));        // an inline list of df 1
  EXPECT_FALSE(parses("\x03\x82\x02"s + std::string(129, '\0')));  // df 129
  EXPECT_FALSE(parses("\x03\x04\x05"s));        // truncated
  // The lookup only finds where an inline list ends; its cursor checks the
  // values (a query opens few of the refs it looks up).
  for (const std::string& bad : {"\x03\x05\x05\x00\x01\x00"s,                // weight 0
                                 "\x03\x04\xfe\xff\xff\xff\x0f\x00"s}) {  // docid 2^32 - 1
    ASSERT_TRUE(parses(bad));
    PostingCursor c;
    EXPECT_TRUE(c.InitInline(info.refs[0].inline_postings, 2, info.refs[0].inline_weights).IsCorruption());
  }
  EXPECT_FALSE(parses("\x00\x01\x00\x01"s));   // a list of df 1
  // A list of 129 postings (two blocks) carries its max score (u16, >= 1).
  EXPECT_TRUE(parses("\x00\x81\x01\x00\x07\x34\x12"s));
  EXPECT_EQ(info.refs[0].max_score, 0x1234u);
  EXPECT_FALSE(parses("\x00\x81\x01\x00\x07\x00\x00"s));  // max score 0
  EXPECT_FALSE(parses("\x00\x81\x01\x00\x07\x34"s));      // truncated
  EXPECT_FALSE(parses("\x00\x80\x01\x00\x07\x34\x12"s));  // one block (128): no max score, 2 bytes left over
  EXPECT_FALSE(parses("\x00\x02\x00\x00"s));   // a list of 0 bytes
  EXPECT_FALSE(parses("\xc2\x02\x01"s));       // weight 1 in the weighted kind
  EXPECT_FALSE(parses("\xc2\x02"s));           // truncated
  EXPECT_FALSE(parses("\xc1\x02\x81\x03"s));   // same bin again without a file position
  EXPECT_FALSE(parses("\x45\x00\x85\x03\x00"s));  // file 0 then file 0 again
  // Bin 0 file 0, then bin 0 file 2: fine.
  EXPECT_TRUE(parses("\xc1\x02\x85\x03\x02"s));
  ASSERT_EQ(info.refs.size(), 2u);
  EXPECT_EQ(info.refs[1].file, 2u);
  EXPECT_EQ(info.refs[1].inline_doc, 6u);
  std::vector<BinId> bins;
  info.Bins(&bins);
  EXPECT_EQ(bins, std::vector<BinId>{BinId{0}});
  // Singleton gaps 0-6 live in the head; 7 and more continue in a varint.
  EXPECT_TRUE(parses("\x39\x00\x79\x00"s));  // bin 7 (code 7 + 0), docid 0; bin 14, docid 1
  ASSERT_EQ(info.refs.size(), 2u);
  EXPECT_EQ(info.refs[0].bin, 7u);
  EXPECT_EQ(info.refs[1].bin, 14u);
  EXPECT_EQ(info.refs[1].inline_doc, 1u);
  EXPECT_FALSE(parses("\x39"s));           // escape without its varint
  EXPECT_FALSE(parses("\xc1\xff\xff\xff\xff\x07"s));  // docid 2^32 - 1
}

}  // namespace
}  // namespace dps

namespace dps {
namespace {

// AddAll (blocks located and prefetched together) must give each term the
// same entry as one Add at a time: duplicates kept once, absent terms empty,
// more terms than one batch, terms already in the table left alone.
TEST(GlobalIndex, AddAllMatchesAddOneAtATime) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/g.gix";
  {
    auto w = GlobalIndexWriter::Create(path, false);
    ASSERT_TRUE(w.ok());
    for (int t = 0; t < 3000; t += 2) {  // even numbers only: odd ones are absent
      char key[16];
      std::snprintf(key, sizeof key, "t%05d", t);
      GlobalTermInfo info;
      info.refs = {Inline(static_cast<uint32_t>(t % 7), 0, static_cast<DocId>(t), 1),
                   List(static_cast<uint32_t>(t % 7 + 1), 0, 3 + t, 10u * t, 5)};
      ASSERT_TRUE((*w)->Add(key, info).ok());
    }
    ASSERT_TRUE((*w)->Finish(1).ok());
  }
  auto r = GlobalIndexReader::Open(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::mt19937_64 rng(5);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> terms;
    const size_t n = 1 + rng() % 20;
    for (size_t i = 0; i < n; ++i) {
      char key[16];
      std::snprintf(key, sizeof key, "t%05d", static_cast<int>(rng() % 3100));
      terms.push_back(key);
      if (rng() % 5 == 0) terms.push_back(key);  // a duplicate
    }
    // Entries read elsewhere (a prefix's walk): some of the terms, in an
    // order of their own, some twice; AddAll takes them instead of looking
    // them up, with the same result.
    KnownTerms known;
    for (const auto& t : terms) {
      if (rng() % 2 == 0) continue;
      bool found = false;
      GlobalTermInfo info;
      ASSERT_TRUE((*r)->Lookup(t, &found, &info).ok());
      if (found) known.Add(t, info);
    }
    TermTable batched, single, from_known;
    if (round % 3 == 0) {  // a term already looked up
      ASSERT_TRUE(batched.Add(r->get(), terms[0]).ok());
    }
    ASSERT_TRUE(batched.AddAll(r->get(), terms).ok());
    ASSERT_TRUE(from_known.AddAll(r->get(), terms, &known).ok());
    for (const auto& t : terms) ASSERT_TRUE(single.Add(r->get(), t).ok());
    ASSERT_EQ(batched.entries.size(), single.entries.size());
    ASSERT_EQ(from_known.entries.size(), single.entries.size());
    size_t hint = 0;
    for (size_t e = 0; e < single.entries.size(); ++e) {
      const auto& [term, info] = single.entries[e];
      EXPECT_EQ(from_known.entries[e].first, term) << "AddAll keeps the terms' order";
      for (const GlobalTermInfo* got : {batched.Find(term), from_known.FindFrom(term, &hint)}) {
        ASSERT_NE(got, nullptr) << term;
        EXPECT_EQ(got->df, info.df) << term;
        ASSERT_EQ(got->refs.size(), info.refs.size()) << term;
        for (size_t i = 0; i < info.refs.size(); ++i) EXPECT_TRUE(SameRef(got->refs[i], info.refs[i]));
      }
      EXPECT_EQ(hint, e + 1);
    }
    EXPECT_EQ(from_known.Find("t99999"), nullptr);
  }
}

}  // namespace
}  // namespace dps
