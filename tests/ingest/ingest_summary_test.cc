// The ingest summary line: exact wording in singular and plural, and the
// invalid UTF-8 count it reports, as counted by the readers through a real
// ingest.
#include "ingest/ingest_summary.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/ingest/reader_test_util.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using testing::WriteFile;

IngestStats Sample(uint64_t documents, uint64_t invalid_utf8) {
  IngestStats s;
  s.documents = documents;
  s.replaced = 1;
  s.skipped = 2;
  s.invalid_utf8 = invalid_utf8;
  s.bytes_read = 2'500'000;
  s.seconds = 0.5;
  s.postings = documents * 10;
  s.runs = documents == 1 ? 1 : 0;
  s.index_bytes = 1'260'000;
  return s;
}

TEST(IngestSummary, OneDocumentIsSingular) {
  EXPECT_EQ(FormatIngestSummary(Sample(1, 0)),
            "ingested 1 document (1 replaced, 2 skipped), 2.5 MB in 0.50 s, 5.0 MB/s, "
            "10 postings, 1 run spilled, index 1.3 MB");
}

TEST(IngestSummary, CountsOtherThanOneArePlural) {
  EXPECT_EQ(FormatIngestSummary(Sample(3, 0)),
            "ingested 3 documents (1 replaced, 2 skipped), 2.5 MB in 0.50 s, 5.0 MB/s, "
            "30 postings, 0 runs spilled, index 1.3 MB");
  IngestStats none;
  EXPECT_EQ(FormatIngestSummary(none),
            "ingested 0 documents (0 replaced, 0 skipped), 0.0 MB in 0.00 s, 0.0 MB/s, "
            "0 postings, 0 runs spilled, index 0.0 MB");
}

TEST(IngestSummary, InvalidUtf8AppearsOnlyWhenSomeWasReplaced) {
  EXPECT_EQ(FormatIngestSummary(Sample(3, 1)),
            "ingested 3 documents (1 replaced, 2 skipped), 1 invalid UTF-8 sequence replaced, "
            "2.5 MB in 0.50 s, 5.0 MB/s, 30 postings, 0 runs spilled, index 1.3 MB");
  EXPECT_EQ(FormatIngestSummary(Sample(1, 7)),
            "ingested 1 document (1 replaced, 2 skipped), 7 invalid UTF-8 sequences replaced, "
            "2.5 MB in 0.50 s, 5.0 MB/s, 10 postings, 1 run spilled, index 1.3 MB");
}

// The readers count each maximal ill-formed subpart once (utf8.h); the
// ingest adds up every input's count, compressed or not, whatever format.
TEST(IngestSummary, IngestCountsInvalidUtf8AcrossInputs) {
  testing::TempDir dir;
  const std::string tree = dir.path() + "/tree";
  std::filesystem::create_directories(tree);
  // Two replacements in a plain file, one in a .gz, none in the third.
  WriteFile(tree + "/latin1.txt", "caf\xE9 cr\xE8me");
  WriteFile(tree + "/one.txt.gz", testing::Gzip("na\xEFve"));
  WriteFile(tree + "/clean.txt", "clean text");
  // JSONL: a truncated three-byte sequence (one maximal subpart, E2 82)
  // and a lone continuation byte.
  const std::string jsonl = dir.path() + "/in.jsonl";
  WriteFile(jsonl, "{\"id\":\"j1\",\"text\":\"euro \xE2\x82 and \x80 here\"}\n");
  IngestOptions options;
  options.threads = 1;
  IngestStats stats;
  Status s = Ingest(dir.path() + "/index", {tree, jsonl}, options, &stats);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(stats.documents, 4u);
  EXPECT_EQ(stats.invalid_utf8, 5u);
  EXPECT_NE(FormatIngestSummary(stats).find(", 5 invalid UTF-8 sequences replaced, "),
            std::string::npos)
      << FormatIngestSummary(stats);

  // A clean ingest reports none.
  WriteFile(jsonl, "{\"id\":\"j2\",\"text\":\"plain\"}\n");
  s = Ingest(dir.path() + "/index", {jsonl}, options, &stats);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(stats.documents, 1u);
  EXPECT_EQ(stats.invalid_utf8, 0u);
}

}  // namespace
}  // namespace dps
