#include "ingest/jsonl_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "tests/ingest/reader_test_util.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using testing::Drained;
using testing::OpenAndDrain;
using testing::WriteFile;

class JsonlReaderTest : public ::testing::Test {
 protected:
  // Writes `contents` to <tmp>/corpus.jsonl and reads it; the path is the
  // name messages use, so tests compare messages against path().
  Drained Read(std::string_view contents, ReaderOptions options = {}) {
    WriteFile(path(), contents);
    return OpenAndDrain(path(), options, &stats_);
  }
  std::string path() const { return dir_.path() + "/corpus.jsonl"; }

  testing::TempDir dir_;
  ReaderStats stats_;
};

TEST_F(JsonlReaderTest, ReadsIdTitleTextAndIgnoresOtherFields) {
  Drained d =
      Read(R"({"id": "doc-1", "title": "First", "text": "hello world", "lang": "en"})"
           "\n"
           R"({"meta": {"a": [1, 2.5, {"b": null}], "c": true}, "text": "no title", "id": "doc-2"})"
           "\n");
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 2u);
  EXPECT_EQ(d.docs[0].id, "doc-1");
  EXPECT_EQ(d.docs[0].title, "First");
  EXPECT_EQ(d.docs[0].text, "hello world");
  EXPECT_EQ(d.docs[0].source, path() + ":1");
  EXPECT_EQ(d.docs[1].id, "doc-2");
  EXPECT_EQ(d.docs[1].title, "");
  EXPECT_EQ(d.docs[1].text, "no title");
  EXPECT_EQ(d.docs[1].source, path() + ":2");
  EXPECT_EQ(stats_.documents, 2u);
}

TEST_F(JsonlReaderTest, NumericIdsAreRenderedAsCanonicalIntegers) {
  Drained d = Read(
      "{\"id\": 42, \"text\": \"a\"}\n"
      "{\"id\": -7, \"text\": \"b\"}\n"
      "{\"id\": 0, \"text\": \"c\"}\n"
      "{\"id\": -0, \"text\": \"d\"}\n"
      "{\"id\": 123456789012345678901234567890, \"text\": \"e\"}\n"
      "{\"id\": \"0042\", \"text\": \"f\"}\n");
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  std::vector<std::string> ids;
  for (const auto& doc : d.docs) ids.push_back(doc.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"42", "-7", "0", "0", "123456789012345678901234567890",
                                           "0042"}));
}

TEST_F(JsonlReaderTest, NullTitleIsEmptyAndTheLastDuplicateFieldWins) {
  Drained d = Read(R"({"id": "a", "title": null, "text": "x", "text": "y", "id": 5})"
                   "\n");
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 1u);
  EXPECT_EQ(d.docs[0].id, "5");
  EXPECT_EQ(d.docs[0].title, "");
  EXPECT_EQ(d.docs[0].text, "y");
}

TEST_F(JsonlReaderTest, RenamedFields) {
  ReaderOptions options;
  options.id_field = "docno";
  options.text_field = "body";
  options.title_field = "headline";
  Drained d =
      Read(R"({"id": "ignored", "docno": 7, "headline": "H", "title": "ignored", "body": "B"})"
           "\n",
           options);
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 1u);
  EXPECT_EQ(d.docs[0].id, "7");
  EXPECT_EQ(d.docs[0].title, "H");
  EXPECT_EQ(d.docs[0].text, "B");

  d = Read(R"({"id": "x", "text": "t"})"
           "\n",
           options);
  EXPECT_EQ(d.status.message(), path() + ": line 1: missing field \"docno\"");
}

TEST_F(JsonlReaderTest, DecodesEscapesUnicodeAndSurrogatePairs) {
  Drained d = Read(
      R"({"id": "\u0069\u0064", "title": "caf\u00e9 \u20AC", "text": "q\"b\\s\/n\nt\tr\rb\bf\f \ud83d\ude00 \uD834\uDD1E"})"
      "\n");
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 1u);
  EXPECT_EQ(d.docs[0].id, "id");
  EXPECT_EQ(d.docs[0].title, "caf\xC3\xA9 \xE2\x82\xAC");
  EXPECT_EQ(d.docs[0].text, "q\"b\\s/n\nt\tr\rb\bf\f \xF0\x9F\x98\x80 \xF0\x9D\x84\x9E");
  EXPECT_EQ(stats_.utf8_replacements, 0u);
}

TEST_F(JsonlReaderTest, EscapedKeysMatchFieldNames) {
  Drained d = Read(R"({"\u0069d": 1, "te\u0078t": "found"})"
                   "\n");
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 1u);
  EXPECT_EQ(d.docs[0].text, "found");
}

TEST_F(JsonlReaderTest, EscapedNulIsKept) {
  Drained d = Read(R"({"id": "n", "text": "a\u0000b"})"
                   "\n");
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 1u);
  EXPECT_EQ(d.docs[0].text, std::string("a\0b", 3));
}

TEST_F(JsonlReaderTest, UnpairedSurrogatesAreReplacedAndCounted) {
  Drained d = Read(R"({"id": "s", "text": "<\ud800> <\udc00> <\ud800\u0041> <\ud83d"})"
                   "\n");
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 1u);
  EXPECT_EQ(d.docs[0].text,
            "<\xEF\xBF\xBD> <\xEF\xBF\xBD> <\xEF\xBF\xBD"
            "A> <\xEF\xBF\xBD");
  EXPECT_EQ(stats_.utf8_replacements, 4u);
}

TEST_F(JsonlReaderTest, InvalidUtf8IsReplacedAndCountedNotFatal) {
  Drained d = Read(
      "{\"id\": \"bad\xFF\", \"title\": \"t\xC3\", \"text\": \"a\xE2\x82z \xF0\x9F\x98\x80\"}\n"
      "{\"id\": \"ok\", \"text\": \"fine\"}\n");
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 2u);
  EXPECT_EQ(d.docs[0].id, "bad\xEF\xBF\xBD");
  EXPECT_EQ(d.docs[0].title, "t\xEF\xBF\xBD");
  EXPECT_EQ(d.docs[0].text, "a\xEF\xBF\xBDz \xF0\x9F\x98\x80");
  EXPECT_EQ(d.docs[1].text, "fine");
  EXPECT_EQ(stats_.utf8_replacements, 3u);
}

TEST_F(JsonlReaderTest, CrlfLineEndsBlankLinesAndMissingFinalNewline) {
  Drained d = Read(
      "\r\n"
      "{\"id\": 1, \"text\": \"one\"}\r\n"
      "   \t \r\n"
      "\n"
      "{\"id\": 2, \"text\": \"two\"}\n"
      "{\"id\": 3, \"text\": \"three\"}");
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 3u);
  EXPECT_EQ(d.docs[0].text, "one");
  EXPECT_EQ(d.docs[0].source, path() + ":2");
  EXPECT_EQ(d.docs[1].source, path() + ":5");
  EXPECT_EQ(d.docs[2].text, "three");
  EXPECT_EQ(d.docs[2].source, path() + ":6");
  EXPECT_EQ(stats_.blank_lines, 3u);
}

TEST_F(JsonlReaderTest, ByteOrderMarkAtStartIsIgnored) {
  Drained d = Read("\xEF\xBB\xBF{\"id\": 1, \"text\": \"bom\"}\n");
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 1u);
  EXPECT_EQ(d.docs[0].text, "bom");
}

TEST_F(JsonlReaderTest, EmptyInputAndEmptyDocuments) {
  Drained d = Read("");
  ASSERT_TRUE(d.status.ok());
  EXPECT_TRUE(d.docs.empty());
  d = Read(R"({"id": "e", "text": ""})");
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 1u);
  EXPECT_EQ(d.docs[0].text, "");
}

TEST_F(JsonlReaderTest, VeryLongLinesGrowTheBuffer) {
  // Several MB on one line, with escapes spread through it, between short
  // lines: the line straddles many read blocks.
  std::string big;
  std::string expected;
  for (int i = 0; big.size() < (6u << 20); ++i) {
    big += "word" + std::to_string(i) + "\\n";
    expected += "word" + std::to_string(i) + "\n";
  }
  std::string input = "{\"id\": 1, \"text\": \"short\"}\n{\"id\": 2, \"text\": \"" + big +
                      "\"}\n{\"id\": 3, \"text\": \"after\"}\n";
  Drained d = Read(input);
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 3u);
  EXPECT_EQ(d.docs[1].text, expected);
  EXPECT_EQ(d.docs[2].text, "after");
}

TEST_F(JsonlReaderTest, DocumentsAfterAHugeLineAreReadWithFreshBuffers) {
  // Over the 16 MiB at which the line buffer and the parser shrink back.
  const std::string huge(20u << 20, 'h');
  std::string input = "{\"id\": 1, \"text\": \"" + huge + "\"}\n";
  for (int i = 2; i < 2000; ++i) {
    input += "{\"id\": " + std::to_string(i) + ", \"text\": \"t" + std::to_string(i) + "\"}\n";
  }
  Drained d = Read(input);
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 1999u);
  EXPECT_EQ(d.docs[0].text, huge);
  EXPECT_EQ(d.docs[1998].text, "t1999");
}

TEST_F(JsonlReaderTest, LinesOverTheLimitAreBadRecords) {
  ReaderOptions options;
  options.max_record_bytes = 64;
  std::string input = "{\"id\": 1, \"text\": \"short\"}\n{\"id\": 2, \"text\": \"" +
                      std::string(5000, 'x') + "\"}\n{\"id\": 3, \"text\": \"after\"}\n";
  Drained d = Read(input, options);
  EXPECT_TRUE(d.status.IsInvalidArgument());
  EXPECT_EQ(d.status.message(), path() + ": line 2: line longer than 64 bytes");
  ASSERT_EQ(d.docs.size(), 1u);

  options.skip_bad = true;
  d = Read(input, options);
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 2u);
  EXPECT_EQ(d.docs[1].text, "after");
  EXPECT_EQ(d.docs[1].source, path() + ":3");
  EXPECT_EQ(stats_.bad_records, 1u);

  // An over-long last line without a newline.
  d = Read("{\"id\": 1, \"text\": \"" + std::string(5000, 'y'), options);
  ASSERT_TRUE(d.status.ok());
  EXPECT_TRUE(d.docs.empty());
  EXPECT_EQ(stats_.bad_records, 1u);
}

// Each bad line, alone in a file after one good line, and its exact message.
struct BadLine {
  const char* line;
  const char* message;
};

const BadLine kBadLines[] = {
    {R"({"id": "a"})", R"(missing field "text")"},
    {R"({"text": "a"})", R"(missing field "id")"},
    {R"({"id": true, "text": "a"})", R"(field "id" must be a string or an integer, not a boolean)"},
    {R"({"id": null, "text": "a"})", R"(field "id" must be a string or an integer, not null)"},
    {R"({"id": [1], "text": "a"})", R"(field "id" must be a string or an integer, not an array)"},
    {R"({"id": {}, "text": "a"})", R"(field "id" must be a string or an integer, not an object)"},
    {R"({"id": 4.5, "text": "a"})", R"(field "id" must be a string or an integer, not 4.5)"},
    {R"({"id": 1e3, "text": "a"})", R"(field "id" must be a string or an integer, not 1e3)"},
    {R"({"id": 01, "text": "a"})", R"(field "id" must be a string or an integer, not 01)"},
    {R"({"id": "", "text": "a"})", R"(field "id" is empty)"},
    {R"({"id": 1, "text": 5})", R"(field "text" must be a string, not a number)"},
    {R"({"id": 1, "text": null})", R"(field "text" must be a string, not null)"},
    {R"({"id": 1, "text": "a", "title": 5})",
     R"(field "title" must be a string or null, not a number)"},
    {R"([1, 2])", "expected a JSON object, not an array"},
    {R"("just a string")", "expected a JSON object, not a string"},
    {R"(42)", "expected a JSON object, not a number"},
    {R"({"id": 1, "text": "a")", "malformed JSON: unterminated object or array"},
    {R"({"id": 1 "text": "a"})", R"(malformed JSON: expected ',' or '}' after the value of field "id")"},
    {R"({"id": 1, "text": "a",})",
     "malformed JSON: bad structure (missing or extra comma, colon, brace or key)"},
    {R"({id: 1, "text": "a"})",
     "malformed JSON: bad structure (missing or extra comma, colon, brace or key)"},
    {R"({"id": 1, "text": "a})", "malformed JSON: unclosed string"},
    {"{\"id\": 1, \"text\": \"a\tb\"}", "malformed JSON: unescaped control character in a string"},
    {R"({"id": 1, "text": "a\qb"})",
     R"(malformed JSON: field "text": invalid escape \q in a string)"},
    {R"({"id": 1, "text": "a\u12G4"})",
     R"(malformed JSON: field "text": invalid \u escape in a string)"},
    {R"({"id": 1, "text": "a"} {"id": 2, "text": "b"})",
     "malformed JSON: unexpected characters after the object"},
    {R"({"id": 1, "text": "a", "x": [1,,2]})", R"(malformed JSON: bad value of field "x")"},
    {R"({"id": 1, "text": "a", "x": {"y":}})", R"(malformed JSON: bad value of field "x")"},
    {R"({"id": 1, "text": "a", "x": tru})", R"(malformed JSON: bad value of field "x")"},
    {R"({"id": 1, "text": "a", "x": 12abc})", R"(malformed JSON: bad value of field "x")"},
    {R"({"id": 1, "text": "a", "x": "\q"})", R"(malformed JSON: bad value of field "x")"},
    // On-Demand parsing alone let these two through.
    {R"({"id":"d1","text":"a\\,, " ,"id":"anull,\\":-7}})",
     R"(malformed JSON: expected ',' or '}' after the value of field "id")"},
    {R"({"id": 1, "text": "a", "title": "t" "u"})",
     R"(malformed JSON: expected ',' or '}' after the value of field "title")"},
    {R"({"id": 1, "text": "a", "title": "t":"u"})",
     R"(malformed JSON: expected ',' or '}' after the value of field "title")"},
    {R"({"id": 1, "text": "a" :"u", "title": "t"})",
     R"(malformed JSON: expected ',' or '}' after the value of field "text")"},
    {R"({"id": 1, "text": "a"}})", "malformed JSON: unexpected characters after the object"},
};

TEST_F(JsonlReaderTest, BadLinesFailWithOneLineNamingFileAndLine) {
  for (const BadLine& bad : kBadLines) {
    SCOPED_TRACE(bad.line);
    Drained d = Read(std::string("{\"id\": 0, \"text\": \"good\"}\n\n") + bad.line +
                     "\n{\"id\": 9, \"text\": \"never read\"}\n");
    EXPECT_TRUE(d.status.IsInvalidArgument()) << d.status.ToString();
    EXPECT_EQ(d.status.message(), path() + ": line 3: " + bad.message);
    EXPECT_EQ(d.docs.size(), 1u);
  }
}

TEST_F(JsonlReaderTest, SkipBadSkipsCountsAndKeepsTheFirstMessages) {
  std::string input;
  size_t bad = 0;
  for (const BadLine& b : kBadLines) {
    input += "{\"id\": " + std::to_string(bad) + ", \"text\": \"good\"}\n";
    input += b.line;
    input += "\n";
    ++bad;
  }
  ReaderOptions options;
  options.skip_bad = true;
  Drained d = Read(input, options);
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  EXPECT_EQ(d.docs.size(), bad);
  for (size_t i = 0; i < d.docs.size(); ++i) {
    EXPECT_EQ(d.docs[i].id, std::to_string(i));
    EXPECT_EQ(d.docs[i].source, path() + ":" + std::to_string(2 * i + 1));
  }
  EXPECT_EQ(stats_.bad_records, bad);
  ASSERT_EQ(stats_.first_errors.size(), kKeptErrors);
  for (size_t i = 0; i < kKeptErrors; ++i) {
    EXPECT_EQ(stats_.first_errors[i],
              path() + ": line " + std::to_string(2 * i + 2) + ": " + kBadLines[i].message);
  }
}

TEST_F(JsonlReaderTest, ErrorsAreSticky) {
  WriteFile(path(), "not json\n{\"id\": 1, \"text\": \"a\"}\n");
  auto reader = OpenReader(path(), {});
  ASSERT_TRUE(reader.ok());
  RawDocument doc;
  Result<bool> first = (*reader)->Next(&doc);
  ASSERT_FALSE(first.ok());
  Result<bool> second = (*reader)->Next(&doc);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(), first.status().message());
}

TEST_F(JsonlReaderTest, ReadsFromAPipeLikeStandardInput) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::string input;
  for (int i = 0; i < 20000; ++i) {
    input += "{\"id\": " + std::to_string(i) + ", \"text\": \"piped " + std::to_string(i) + "\"}\n";
  }
  std::thread writer([&] {
    // Odd-sized writes, so lines arrive split across reads.
    for (size_t off = 0; off < input.size();) {
      size_t n = std::min<size_t>(4093, input.size() - off);
      ssize_t w = ::write(fds[1], input.data() + off, n);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    ::close(fds[1]);
  });
  auto reader = NewJsonlReader(NewFdSource(fds[0], "<stdin>", /*owns_fd=*/true), {});
  Drained d = testing::Drain(reader.get());
  writer.join();
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 20000u);
  EXPECT_EQ(d.docs[12345].text, "piped 12345");
  EXPECT_EQ(d.docs[12345].source, "<stdin>:12346");
  EXPECT_EQ(reader->bytes_read(), input.size());
  EXPECT_FALSE(reader->total_bytes().has_value());
}

TEST_F(JsonlReaderTest, ParseJsonlBufferReportsDocumentsAndStats) {
  std::vector<std::string> ids;
  ReaderStats stats;
  Status s = ParseJsonlBuffer(
      "{\"id\": 1, \"text\": \"a\"}\n\n{\"id\": \"b\", \"text\": \"c\"}", {},
      [&](const RawDocument& d) { ids.push_back(d.id); }, &stats);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ids, (std::vector<std::string>{"1", "b"}));
  EXPECT_EQ(stats.documents, 2u);
  EXPECT_EQ(stats.blank_lines, 1u);
  s = ParseJsonlBuffer(
      "{}\n", {}, [](const RawDocument&) {}, nullptr);
  EXPECT_EQ(s.message(), "<buffer>: line 1: missing field \"id\"");
}

}  // namespace
}  // namespace dps
