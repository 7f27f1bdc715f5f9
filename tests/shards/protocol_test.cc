// Wire protocol (docs/PROTOCOL.md): the handshake's bytes are as documented;
// every frame round-trips; truncated, mutated, oversized and unknown frames
// are rejected with an error (never a crash: this runs under ASan/UBSan in
// scripts/test.sh).
#include "shards/protocol.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <random>

namespace dps {
namespace {

QueryNode SampleQuery() {
  return QueryNode::And({QueryNode::Term("white"), QueryNode::Term("house"),
                         QueryNode::Or({QueryNode::Term("a"), QueryNode::Term("b")}),
                         QueryNode::Term("senate", true)});
}

// Splits an encoded frame into header fields and payload.
std::string_view Payload(const std::string& frame, FrameType expected) {
  uint32_t len = 0;
  FrameType type{};
  EXPECT_TRUE(DecodeFrameHeader(reinterpret_cast<const uint8_t*>(frame.data()), &len, &type).ok());
  EXPECT_EQ(type, expected);
  EXPECT_EQ(len + kFrameHeaderSize, frame.size());
  return std::string_view(frame).substr(kFrameHeaderSize);
}

// Every strict prefix of a payload must fail to decode.
void ExpectTruncationsFail(std::string_view payload,
                           const std::function<Status(std::string_view)>& decode) {
  for (size_t n = 0; n < payload.size(); ++n) {
    EXPECT_FALSE(decode(payload.substr(0, n)).ok()) << "prefix of " << n << " bytes decoded";
  }
  EXPECT_FALSE(decode(std::string(payload) + "x").ok()) << "trailing byte accepted";
}

// Round trips cannot see a byte order that encoder and decoder share: pin
// the Hello frame to PROTOCOL.md's table (u32 length, u8 type, u32 magic,
// u16 version, lp-string token; little-endian).
TEST(Protocol, HelloBytesAreAsDocumented) {
  ASSERT_EQ(kWireVersion, 8);  // PROTOCOL.md's version
  const std::string expected("\x0e\x00\x00\x00"  // length: type + 13 payload bytes
                             "\x01"              // Hello
                             "DPSW"               // magic 0x57535044
                             "\x08\x00"          // version 8
                             "\x06s3cret",        // token
                             18);
  std::string f;
  EncodeHello({kWireVersion, "s3cret"}, &f);
  EXPECT_EQ(f, expected);
  Hello h;
  ASSERT_TRUE(DecodeHello(Payload(expected, FrameType::kHello), &h).ok());
  EXPECT_EQ(h.version, 8);
  EXPECT_EQ(h.token, "s3cret");
}

TEST(Protocol, HelloAndWelcomeRoundTrip) {
  std::string f;
  EncodeHello({kWireVersion, "s3cret"}, &f);
  Hello h;
  ASSERT_TRUE(DecodeHello(Payload(f, FrameType::kHello), &h).ok());
  EXPECT_EQ(h.version, kWireVersion);
  EXPECT_EQ(h.token, "s3cret");
  ExpectTruncationsFail(Payload(f, FrameType::kHello), [](std::string_view p) { Hello x; return DecodeHello(p, &x); });

  Welcome w{kWireVersion, "abcdef", 7, 16, 8, 2, 5, *AnalyzerSpec::Parse("icu fold-accents stem=english"),
            FieldSet({"title", "author", "tags"})};
  f.clear();
  EncodeWelcome(w, &f);
  Welcome got;
  ASSERT_TRUE(DecodeWelcome(Payload(f, FrameType::kWelcome), &got).ok());
  EXPECT_EQ(got.index_id, "abcdef");
  EXPECT_EQ(got.generation, 7u);
  EXPECT_EQ(got.bins, 16u);
  EXPECT_EQ(got.tablets, 8u);
  EXPECT_EQ(got.first_tablet, 2u);
  EXPECT_EQ(got.last_tablet, 5u);
  EXPECT_EQ(got.analyzer, w.analyzer);
  EXPECT_EQ(got.fields, w.fields);
  ExpectTruncationsFail(Payload(f, FrameType::kWelcome), [](std::string_view p) { Welcome x; return DecodeWelcome(p, &x); });
  // A tablet range outside the index is refused.
  f.clear();
  EncodeWelcome({kWireVersion, "x", 1, 4, 4, 1, 4, AnalyzerSpec(), FieldSet()}, &f);
  EXPECT_FALSE(DecodeWelcome(Payload(f, FrameType::kWelcome), &got).ok());
}

// Version 5: the analyzer follows the tablet range as an lp-string, the
// MANIFEST's text form; one no index can have is refused.
TEST(Protocol, WelcomeCarriesTheAnalyzerSpecAsText) {
  std::string f;
  EncodeWelcome({kWireVersion, "x", 1, 4, 4, 0, 3, *AnalyzerSpec::Parse("whitespace"), FieldSet()}, &f);
  // Then (version 6) the fields: a varint count (here none) and lp-strings.
  const std::string_view payload = Payload(f, FrameType::kWelcome);
  EXPECT_EQ(payload.substr(payload.size() - 12), std::string_view("\x0Awhitespace\x00", 12));
  std::string bad(payload);
  bad.replace(bad.size() - 11, 10, "whitespacX");
  Welcome got;
  const Status s = DecodeWelcome(bad, &got);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("analyzer"), std::string::npos) << s.message();
}

// Fields no index can have (a name twice, a bad name, too many) are refused.
TEST(Protocol, WelcomeRefusesFieldsNoIndexHas) {
  std::string f;
  EncodeWelcome({kWireVersion, "x", 1, 4, 4, 0, 3, AnalyzerSpec(), FieldSet({"title", "author"})}, &f);
  const std::string good(Payload(f, FrameType::kWelcome));
  ASSERT_EQ(good.substr(good.size() - 14), std::string("\x02\x05title\x06" "author", 14));
  Welcome got;
  ASSERT_TRUE(DecodeWelcome(good, &got).ok());
  for (const auto& [what, replace_with] : std::vector<std::pair<std::string, std::string>>{
           {"twice", std::string("\x02\x06" "author\x06" "author", 15)},
           {"bad name", std::string("\x02\x05title\x06" "au-hor", 14)},
           {"33 fields", std::string("\x21", 1)}}) {
    std::string bad = good.substr(0, good.size() - 14) + replace_with;
    EXPECT_FALSE(DecodeWelcome(bad, &got).ok()) << what;
  }
}

TEST(Protocol, QueryRoundTripAndLimits) {
  QueryRequest q;
  q.request_id = 0x0102030405060708ull;
  q.count_only = true;
  q.limit = 1000;
  q.deadline_ms = 50;
  q.first_tablet = 1;
  q.last_tablet = 3;
  q.root = SampleQuery();
  std::string f;
  EncodeQuery(q, &f);
  QueryRequest got;
  ASSERT_TRUE(DecodeQuery(Payload(f, FrameType::kQuery), &got).ok());
  EXPECT_EQ(got.request_id, q.request_id);
  EXPECT_TRUE(got.count_only);
  EXPECT_EQ(got.limit, 1000u);
  EXPECT_EQ(got.deadline_ms, 50u);
  EXPECT_EQ(got.first_tablet, 1u);
  EXPECT_EQ(got.last_tablet, 3u);
  EXPECT_EQ(got.root.ToString(), q.root.ToString());
  EXPECT_FALSE(got.limit_per_bin);
  EXPECT_FALSE(got.snippets);
  ExpectTruncationsFail(Payload(f, FrameType::kQuery), [](std::string_view p) { QueryRequest x; return DecodeQuery(p, &x); });
  // Flags of protocol 3: a limit per bin (paging) and snippets.
  q.count_only = false;
  q.limit_per_bin = true;
  q.snippets = true;
  f.clear();
  EncodeQuery(q, &f);
  ASSERT_TRUE(DecodeQuery(Payload(f, FrameType::kQuery), &got).ok());
  EXPECT_FALSE(got.count_only);
  EXPECT_TRUE(got.limit_per_bin);
  EXPECT_TRUE(got.snippets);
  EXPECT_EQ(got.top_k, 0u);
  EXPECT_FALSE(got.tied);
  // Version 7: flag bit 4 (16), one of a tied pair.
  q.tied = true;
  f.clear();
  EncodeQuery(q, &f);
  ASSERT_TRUE(DecodeQuery(Payload(f, FrameType::kQuery), &got).ok());
  EXPECT_TRUE(got.tied);
  EXPECT_EQ(static_cast<uint8_t>(Payload(f, FrameType::kQuery)[8]), 2 | 4 | 16);
  std::string unknown_flag(Payload(f, FrameType::kQuery));
  unknown_flag[8] = 32;
  EXPECT_FALSE(DecodeQuery(unknown_flag, &got).ok());

  // A tree nested past the depth limit is refused, not recursed into.
  QueryNode deep = QueryNode::Term("t");
  for (size_t i = 0; i < kMaxQueryDepth + 5; ++i) deep = QueryNode::And({std::move(deep)});
  q.root = deep;
  f.clear();
  EncodeQuery(q, &f);
  Status s = DecodeQuery(Payload(f, FrameType::kQuery), &got);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("deeper"), std::string::npos) << s.message();
}

// Version 8: Query flag bit 5 asks for one generation, a varint after
// max_expansions; without the bit the field is absent.
TEST(Protocol, QueryGenerationBytesAndRoundTrip) {
  QueryRequest q;
  q.request_id = 1;
  q.max_expansions = 300;
  q.root = QueryNode::Term("k");
  std::string plain;
  EncodeQuery(q, &plain);
  q.generation = 200;
  std::string f;
  EncodeQuery(q, &f);
  const std::string_view p = Payload(f, FrameType::kQuery);
  EXPECT_EQ(p[8], 32) << "flag bit 5: at a generation";
  EXPECT_EQ(p.substr(p.size() - 7), std::string_view("\xac\x02"   // max expansions 300
                                                     "\xc8\x01"   // generation 200
                                                     "\x00\x01k",  // term k
                                                     7));
  EXPECT_EQ(f.size(), plain.size() + 2);
  QueryRequest got;
  ASSERT_TRUE(DecodeQuery(p, &got).ok());
  ASSERT_TRUE(got.generation.has_value());
  EXPECT_EQ(*got.generation, 200u);
  ASSERT_TRUE(DecodeQuery(Payload(plain, FrameType::kQuery), &got).ok());
  EXPECT_FALSE(got.generation.has_value());
  ExpectTruncationsFail(p, [](std::string_view x) { QueryRequest y; return DecodeQuery(x, &y); });
  std::string bit6(p);
  bit6[8] = 64;  // no flag bit 6
  EXPECT_FALSE(DecodeQuery(bit6, &got).ok());
}

// Version 4: a ranked Query carries K and BM25's k1 and b (f64, bit for
// bit), after the tablet range.
TEST(Protocol, RankedQueryBytesAndRoundTrip) {
  QueryRequest q;
  q.request_id = 1;
  q.first_tablet = 0;
  q.last_tablet = 2;
  q.top_k = 13;
  q.bm25 = {0.9, 0.4};
  q.root = QueryNode::Term("ab");
  std::string f;
  EncodeQuery(q, &f);
  const std::string_view p = Payload(f, FrameType::kQuery);
  const std::string want_tail("\x00\x00\x00\x00"                  // first tablet
                              "\x02\x00\x00\x00"                  // last tablet
                              "\x0d"                              // K = 13
                              "\xcd\xcc\xcc\xcc\xcc\xcc\xec\x3f"  // k1 = 0.9
                              "\x9a\x99\x99\x99\x99\x99\xd9\x3f"  // b = 0.4
                              "\x80\x20"                          // max expansions 4096 (version 5)
                              "\x00\x02" "ab",                     // the term
                              31);
  ASSERT_GE(p.size(), want_tail.size());
  EXPECT_EQ(p.substr(p.size() - want_tail.size()), want_tail);
  EXPECT_EQ(p[8], 8) << "flag bit 3: ranked";
  QueryRequest got;
  ASSERT_TRUE(DecodeQuery(p, &got).ok());
  EXPECT_EQ(got.top_k, 13u);
  EXPECT_EQ(got.bm25.k1, 0.9);
  EXPECT_EQ(got.bm25.b, 0.4);
  EXPECT_EQ(got.root.ToString(), "ab");
  ExpectTruncationsFail(p, [](std::string_view x) { QueryRequest y; return DecodeQuery(x, &y); });

  // Malformed: K 0, k1 or b out of range (NaN too), and ranked with count
  // only, a limit per bin or a limit.
  auto refused = [&](const QueryRequest& bad, const std::string& what) {
    std::string frame;
    EncodeQuery(bad, &frame);
    QueryRequest x;
    Status s = DecodeQuery(Payload(frame, FrameType::kQuery), &x);
    EXPECT_FALSE(s.ok()) << what;
    EXPECT_NE(s.message().find(what), std::string::npos) << s.message();
  };
  QueryRequest bad = q;
  bad.bm25.k1 = -0.5;
  refused(bad, "k1");
  bad.bm25.k1 = std::numeric_limits<double>::infinity();
  refused(bad, "k1");
  bad.bm25.k1 = std::numeric_limits<double>::quiet_NaN();
  refused(bad, "k1");
  bad = q;
  bad.bm25.b = 1.5;
  refused(bad, "bm25 b");
  bad.bm25.b = std::numeric_limits<double>::quiet_NaN();
  refused(bad, "bm25 b");
  bad = q;
  bad.count_only = true;
  refused(bad, "ranked with count only");
  bad = q;
  bad.limit_per_bin = true;
  refused(bad, "ranked with count only or limit per bin");
  bad = q;
  bad.limit = 5;
  refused(bad, "limit");
  std::string zero_k(p);
  zero_k[8 + 1 + 1 + 4 + 4 + 4] = 0;  // flags, limit, deadline, tablets: K
  EXPECT_FALSE(DecodeQuery(zero_k, &got).ok());
}

// Version 5: a Query carries its expansion cap (varint, >= 1) before the
// tree, and a prefix node is tag 3 (bit 2 negated) with its prefix.
TEST(Protocol, PrefixQueryBytesAndRoundTrip) {
  QueryRequest q;
  q.request_id = 1;
  q.max_expansions = 300;
  q.root = QueryNode::And({QueryNode::Term("k"), QueryNode::Prefix("netw", /*negated=*/true)});
  std::string f;
  EncodeQuery(q, &f);
  const std::string_view p = Payload(f, FrameType::kQuery);
  const std::string want_tail("\xac\x02"        // max expansions 300
                              "\x01\x02"        // AND of 2
                              "\x00\x01" "k"    // term k
                              "\x07\x04" "netw",  // negated prefix netw
                              13);
  ASSERT_GE(p.size(), want_tail.size());
  EXPECT_EQ(p.substr(p.size() - want_tail.size()), want_tail);
  QueryRequest got;
  ASSERT_TRUE(DecodeQuery(p, &got).ok());
  EXPECT_EQ(got.max_expansions, 300u);
  EXPECT_EQ(got.root.ToString(), "(k AND -netw*)");
  EXPECT_EQ(got.root.children[1].kind, QueryNode::Kind::kPrefix);
  ExpectTruncationsFail(p, [](std::string_view x) { QueryRequest y; return DecodeQuery(x, &y); });

  std::string bad(p);
  bad[bad.size() - want_tail.size()] = 0;  // a cap of 0
  bad.erase(bad.size() - want_tail.size() + 1, 1);
  Status s = DecodeQuery(bad, &got);
  EXPECT_NE(s.message().find("max expansions"), std::string::npos) << s.ToString();
  q.root = QueryNode::Prefix("");
  f.clear();
  EncodeQuery(q, &f);
  s = DecodeQuery(Payload(f, FrameType::kQuery), &got);
  EXPECT_NE(s.message().find("query prefix: empty"), std::string::npos) << s.ToString();
  bad = std::string(p);
  bad[bad.size() - 6] = 0x0b;  // tag bit 3 set
  EXPECT_FALSE(DecodeQuery(bad, &got).ok());
}

// Version 5: a phrase node is kind 4 (tag bit 3, bit 2 negated) with its
// words as term children; kinds 5 to 7 are refused.
TEST(Protocol, PhraseNodeBytesAndRoundTrip) {
  QueryRequest q;
  q.request_id = 1;
  q.max_expansions = 1;
  q.root = QueryNode::And({QueryNode::Term("k"), QueryNode::Phrase({"a", "b"}, /*negated=*/true, /*slop=*/3)});
  std::string f;
  EncodeQuery(q, &f);
  const std::string_view p = Payload(f, FrameType::kQuery);
  const std::string want_tail("\x01\x02"                        // AND of 2
                              "\x00\x01" "k"                    // term k
                              "\x0c\x02" "\x00\x01" "a" "\x00\x01" "b"  // negated phrase "a b"
                              "\x03",                            // its slop (version 6)
                              14);
  ASSERT_GE(p.size(), want_tail.size());
  EXPECT_EQ(p.substr(p.size() - want_tail.size()), want_tail);
  QueryRequest got;
  ASSERT_TRUE(DecodeQuery(p, &got).ok());
  EXPECT_EQ(got.root.ToString(), "(k AND -\"a b\"~3)");
  EXPECT_EQ(got.root.children[1].kind, QueryNode::Kind::kPhrase);
  ExpectTruncationsFail(p, [](std::string_view x) { QueryRequest y; return DecodeQuery(x, &y); });
  for (char tag : {'\x09', '\x0a', '\x0b', '\x10'}) {  // kinds 5-7, bit 4
    std::string bad(p);
    bad[bad.size() - 9] = tag;  // the phrase's tag
    EXPECT_FALSE(DecodeQuery(bad, &got).ok()) << int{tag};
  }
  std::string bad(p);
  bad.back() = 65;  // a slop above kMaxPhraseSlop
  EXPECT_FALSE(DecodeQuery(bad, &got).ok());
}

// Scored Results (version 4): whole docids in rank order, each with its
// f64 score; a frame out of rank order or with a NaN score is refused.
TEST(Protocol, ScoredResultsRoundTripAndOrder) {
  ResultBatch b{4, 2, 1, true, {{900, "a", "A", "s1", 2.5}, {7, "b", "", "", 2.5}, {8, "c", "C", "", 2.5},
                                {3, "d", "", "", -0.0}}, true};
  b.docs[0].docid = 6;  // equal scores: docids ascend
  std::string f;
  EncodeResults(b, &f);
  ResultBatch got;
  const std::string_view p = Payload(f, FrameType::kResults);
  ASSERT_TRUE(DecodeResults(p, &got).ok());
  EXPECT_TRUE(got.scored);
  EXPECT_TRUE(got.snippets);
  ASSERT_EQ(got.docs.size(), 4u);
  EXPECT_EQ(got.docs[0].docid, 6u);
  EXPECT_EQ(got.docs[3].docid, 3u) << "a whole docid, not a delta";
  EXPECT_EQ(got.docs[1].score, 2.5);
  EXPECT_EQ(got.docs[0].snippet, "s1");
  // Header (8 + 4 + 4), flags 3, count 4, then docid 6 and its score's bits.
  EXPECT_EQ(p.substr(16, 3), std::string("\x03\x04\x06", 3));
  EXPECT_EQ(p.substr(19, 8), std::string("\x00\x00\x00\x00\x00\x00\x04\x40", 8));  // 2.5
  ExpectTruncationsFail(p, [](std::string_view x) { ResultBatch y; return DecodeResults(x, &y); });

  auto decodes = [](ResultBatch batch) {
    std::string frame;
    EncodeResults(batch, &frame);
    ResultBatch x;
    return DecodeResults(Payload(frame, FrameType::kResults), &x);
  };
  ResultBatch bad = b;
  std::swap(bad.docs[0], bad.docs[3]);  // a worse score first
  EXPECT_NE(decodes(bad).message().find("rank order"), std::string::npos);
  bad = b;
  bad.docs[1].docid = 6;  // the same doc twice (equal score and docid)
  EXPECT_FALSE(decodes(bad).ok());
  bad = b;
  bad.docs[2].docid = 5;  // equal scores, docids descending
  EXPECT_FALSE(decodes(bad).ok());
  bad = b;
  bad.docs[3].score = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(decodes(bad).message().find("not a number"), std::string::npos);
  std::string unknown(p);
  unknown[16] = 4;  // an unknown Results flag
  EXPECT_FALSE(DecodeResults(unknown, &got).ok());
}

TEST(Protocol, ResultsStatsDoneCancelRoundTrip) {
  ResultBatch b{9, 3, 1, false, {{5, "doc-5", "Five", ""}, {6, "doc-6", "", ""}, {900000, "x", "t", ""}}};
  std::string f;
  EncodeResults(b, &f);
  ResultBatch gb;
  ASSERT_TRUE(DecodeResults(Payload(f, FrameType::kResults), &gb).ok());
  ASSERT_EQ(gb.docs.size(), 3u);
  EXPECT_EQ(gb.docs[2].docid, 900000u);
  EXPECT_EQ(gb.docs[0].id, "doc-5");
  EXPECT_EQ(gb.docs[0].title, "Five");
  EXPECT_EQ(gb.bin, 3u);
  EXPECT_FALSE(gb.snippets);
  ExpectTruncationsFail(Payload(f, FrameType::kResults), [](std::string_view p) { ResultBatch x; return DecodeResults(p, &x); });
  // With snippets (protocol 3): each doc carries one, marks included.
  ResultBatch bs{9, 3, 1, true, {{5, "doc-5", "Five", "a \x01b\x02 c"}, {6, "doc-6", "", ""}}};
  f.clear();
  EncodeResults(bs, &f);
  ASSERT_TRUE(DecodeResults(Payload(f, FrameType::kResults), &gb).ok());
  EXPECT_TRUE(gb.snippets);
  ASSERT_EQ(gb.docs.size(), 2u);
  EXPECT_EQ(gb.docs[0].snippet, "a \x01b\x02 c");
  EXPECT_EQ(gb.docs[1].snippet, "");
  ExpectTruncationsFail(Payload(f, FrameType::kResults), [](std::string_view p) { ResultBatch x; return DecodeResults(p, &x); });
  std::string bad(Payload(f, FrameType::kResults));
  bad[16] = 5;  // an unknown Results flag
  EXPECT_FALSE(DecodeResults(bad, &gb).ok());

  BinStats st{9, 3, 1, 12345, 17, 250, 4096, true, true, true, true};
  f.clear();
  EncodeBinStats(st, &f);
  BinStats gs;
  ASSERT_TRUE(DecodeBinStats(Payload(f, FrameType::kBinStats), &gs).ok());
  EXPECT_EQ(gs.results, 12345u);
  EXPECT_EQ(gs.service_us, 250u);
  EXPECT_EQ(gs.bytes, 4096u);
  EXPECT_TRUE(gs.cancelled);
  EXPECT_TRUE(gs.fast_path);
  EXPECT_TRUE(gs.truncated);
  EXPECT_TRUE(gs.tablet_complete);
  ExpectTruncationsFail(Payload(f, FrameType::kBinStats), [](std::string_view p) { BinStats x; return DecodeBinStats(p, &x); });

  f.clear();
  EncodeDone({9, DoneCode::kInvalidQuery, "bad query", 300}, &f);
  Done gd;
  ASSERT_TRUE(DecodeDone(Payload(f, FrameType::kDone), &gd).ok());
  EXPECT_EQ(gd.code, DoneCode::kInvalidQuery);
  EXPECT_EQ(gd.message, "bad query");
  EXPECT_EQ(gd.generation, 300u);
  ExpectTruncationsFail(Payload(f, FrameType::kDone), [](std::string_view p) { Done x; return DecodeDone(p, &x); });

  f.clear();
  EncodeCancel({77}, &f);
  Cancel gc;
  ASSERT_TRUE(DecodeCancel(Payload(f, FrameType::kCancel), &gc).ok());
  EXPECT_EQ(gc.request_id, 77u);

  // Version 8: Done ends with the generation that answered (a varint);
  // code 5, not at the generation asked for, names the server's newest.
  f.clear();
  EncodeDone({2, DoneCode::kNotAtGeneration, "n", 129}, &f);
  EXPECT_EQ(f, std::string("\x0e\x00\x00\x00\x22"                     // length 14, Done
                           "\x02\x00\x00\x00\x00\x00\x00\x00"         // request id 2
                           "\x05"                                   // code 5
                           "\x01n"                                  // message
                           "\x81\x01",                             // generation 129
                           18));
  ASSERT_TRUE(DecodeDone(Payload(f, FrameType::kDone), &gd).ok());
  EXPECT_EQ(gd.code, DoneCode::kNotAtGeneration);
  EXPECT_EQ(gd.generation, 129u);
  std::string bad_code(Payload(f, FrameType::kDone));
  bad_code[8] = 6;  // no code 6
  EXPECT_FALSE(DecodeDone(bad_code, &gd).ok());

  // Version 7: Started, type 0x23, the request id alone.
  f.clear();
  EncodeStarted({0x0102030405060708ull}, &f);
  EXPECT_EQ(f, std::string("\x09\x00\x00\x00\x23\x08\x07\x06\x05\x04\x03\x02\x01", 13));
  Started gst;
  ASSERT_TRUE(DecodeStarted(Payload(f, FrameType::kStarted), &gst).ok());
  EXPECT_EQ(gst.request_id, 0x0102030405060708ull);
  ExpectTruncationsFail(Payload(f, FrameType::kStarted), [](std::string_view p) { Started x; return DecodeStarted(p, &x); });
  EXPECT_FALSE(DecodeStarted(std::string(Payload(f, FrameType::kStarted)) + "x", &gst).ok());
}

TEST(Protocol, HeaderRejectsEmptyOversizedAndUnknownFrames) {
  uint8_t h[kFrameHeaderSize] = {0, 0, 0, 0, 0x10};
  uint32_t len;
  FrameType t;
  EXPECT_FALSE(DecodeFrameHeader(h, &len, &t).ok());  // length 0
  const uint32_t big = kMaxFrameSize + 1;
  for (int i = 0; i < 4; ++i) h[i] = static_cast<uint8_t>(big >> (8 * i));
  EXPECT_FALSE(DecodeFrameHeader(h, &len, &t).ok());
  h[0] = 9, h[1] = h[2] = h[3] = 0;
  for (int type = 0; type < 256; ++type) {
    h[4] = static_cast<uint8_t>(type);
    EXPECT_EQ(DecodeFrameHeader(h, &len, &t).ok(), KnownFrameType(static_cast<uint8_t>(type)));
  }
}

TEST(Protocol, MutatedPayloadsNeverCrash) {
  // Random byte flips: decoding may succeed (a flipped docid is still a
  // docid) but must stay in bounds; under ASan any overrun fails the test.
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  QueryRequest q, ranked;
  q.root = SampleQuery();
  ranked.root = SampleQuery();
  ranked.top_k = 10;
  std::string qf, rf, rqf, rrf;
  EncodeQuery(q, &qf);
  EncodeQuery(ranked, &rqf);
  EncodeResults({1, 2, 0, true, {{1, "a", "b", "s"}, {2, "cc", "dd", "\x01t\x02"}}}, &rf);
  EncodeResults({1, 2, 0, false, {{9, "a", "b", "", 3.5}, {2, "cc", "dd", "", 1.25}}, true}, &rrf);
  for (int i = 0; i < 40000; ++i) {
    const std::string& frame = i % 4 == 0 ? qf : i % 4 == 1 ? rf : i % 4 == 2 ? rqf : rrf;
    std::string p(frame.substr(kFrameHeaderSize));
    for (int flips = 1 + rng() % 3; flips > 0; --flips) p[rng() % p.size()] = static_cast<char>(rng());
    QueryRequest x;
    ResultBatch y;
    if (i % 2 == 0) {
      if (DecodeQuery(p, &x).ok()) {
        EXPECT_LE(x.root.ToString().size(), p.size() * 8);
      }
    } else {
      (void)DecodeResults(p, &y);
    }
  }
}

}  // namespace
}  // namespace dps
