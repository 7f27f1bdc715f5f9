#include "ingest/lines_reader.h"

#include <gtest/gtest.h>

#include "tests/ingest/reader_test_util.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using testing::Drained;

class LinesReaderTest : public ::testing::Test {
 protected:
  Drained Read(std::string_view contents, ReaderOptions options = {}) {
    testing::WriteFile(path(), contents);
    options.format = InputFormat::kLines;
    return testing::OpenAndDrain(path(), options, &stats_);
  }
  std::string path() const { return dir_.path() + "/notes.txt"; }

  testing::TempDir dir_;
  ReaderStats stats_;
};

TEST_F(LinesReaderTest, EachNonBlankLineIsADocumentNumberedFromOne) {
  Drained d = Read("first line\r\n\n  \t\nfourth {\"not\": json}\nlast without newline");
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 3u);
  EXPECT_EQ(d.docs[0].id, "1");
  EXPECT_EQ(d.docs[0].title, "");
  EXPECT_EQ(d.docs[0].text, "first line");
  EXPECT_EQ(d.docs[0].source, path() + ":1");
  EXPECT_EQ(d.docs[1].id, "4");
  EXPECT_EQ(d.docs[1].text, "fourth {\"not\": json}");
  EXPECT_EQ(d.docs[2].id, "5");
  EXPECT_EQ(d.docs[2].text, "last without newline");
  EXPECT_EQ(stats_.blank_lines, 2u);
}

TEST_F(LinesReaderTest, InvalidUtf8IsReplacedAndCounted) {
  Drained d = Read(
      "ok\nbad \xFF\xFE here\n\xEF\xBB\xBF"
      "bom only at the start\n");
  ASSERT_TRUE(d.status.ok());
  ASSERT_EQ(d.docs.size(), 3u);
  EXPECT_EQ(d.docs[1].text, "bad \xEF\xBF\xBD\xEF\xBF\xBD here");
  EXPECT_EQ(d.docs[2].text,
            "\xEF\xBB\xBF"
            "bom only at the start");
  EXPECT_EQ(stats_.utf8_replacements, 2u);
}

TEST_F(LinesReaderTest, LongLinesAndTheLimit) {
  std::string big(3u << 20, 'z');
  Drained d = Read("a\n" + big + "\nb\n");
  ASSERT_TRUE(d.status.ok());
  ASSERT_EQ(d.docs.size(), 3u);
  EXPECT_EQ(d.docs[1].text, big);

  ReaderOptions options;
  options.max_record_bytes = 1000;
  d = Read("a\n" + big + "\nb\n", options);
  EXPECT_EQ(d.status.message(), path() + ": line 2: line longer than 1000 bytes");
  options.skip_bad = true;
  d = Read("a\n" + big + "\nb\n", options);
  ASSERT_TRUE(d.status.ok());
  ASSERT_EQ(d.docs.size(), 2u);
  EXPECT_EQ(d.docs[1].id, "3");
  EXPECT_EQ(stats_.bad_records, 1u);
}

TEST_F(LinesReaderTest, LineExactlyAtTheLimitIsAccepted) {
  ReaderOptions options;
  options.max_record_bytes = 100;
  Drained d = Read(std::string(100, 'a') + "\r\n" + std::string(100, 'b'), options);
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 2u);
  EXPECT_EQ(d.docs[0].text, std::string(100, 'a'));
  EXPECT_EQ(d.docs[1].text, std::string(100, 'b'));
}

}  // namespace
}  // namespace dps
