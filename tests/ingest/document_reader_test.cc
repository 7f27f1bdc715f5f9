#include "ingest/document_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "ingest/concat_reader.h"
#include "tests/ingest/reader_test_util.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using testing::Drained;
using testing::WriteFile;

std::string Jsonl(int first, int count) {
  std::string s;
  for (int i = first; i < first + count; ++i) {
    s += "{\"id\": " + std::to_string(i) + ", \"text\": \"text of " + std::to_string(i) + "\"}\n";
  }
  return s;
}

class DocumentReaderTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }
  testing::TempDir dir_;
};

TEST_F(DocumentReaderTest, DetectFormat) {
  std::filesystem::create_directories(Path("docs.jsonl"));  // a directory wins over its name
  EXPECT_EQ(DetectFormat("-"), InputFormat::kJsonl);
  EXPECT_EQ(DetectFormat(Path("docs.jsonl")), InputFormat::kDir);
  EXPECT_EQ(DetectFormat(dir_.path()), InputFormat::kDir);
  for (const char* name : {"a.jsonl", "a.ndjson", "a.jsonlines", "a.json", "a.jsonl.gz",
                           "a.ndjson.zst", "dir/x.json.gz"}) {
    EXPECT_EQ(DetectFormat(Path(name)), InputFormat::kJsonl) << name;
  }
  for (const char* name : {"a.txt", "a", "a.txt.gz", "a.csv.zst", "jsonl", "a.jsonl.bz2"}) {
    EXPECT_EQ(DetectFormat(Path(name)), InputFormat::kLines) << name;
  }
}

TEST_F(DocumentReaderTest, ParseInputFormat) {
  EXPECT_EQ(*ParseInputFormat("jsonl"), InputFormat::kJsonl);
  EXPECT_EQ(*ParseInputFormat("dir"), InputFormat::kDir);
  EXPECT_EQ(*ParseInputFormat("lines"), InputFormat::kLines);
  EXPECT_EQ(*ParseInputFormat("auto"), InputFormat::kAuto);
  auto bad = ParseInputFormat("csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "unknown input format \"csv\" (expected jsonl, dir or lines)");
  for (InputFormat f : {InputFormat::kJsonl, InputFormat::kDir, InputFormat::kLines}) {
    EXPECT_EQ(*ParseInputFormat(InputFormatName(f)), f);
  }
}

TEST_F(DocumentReaderTest, OpenReaderErrorsNameTheInput) {
  auto r = OpenReader(Path("missing.jsonl"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kIOError);
  EXPECT_EQ(r.status().message(), Path("missing.jsonl") + ": open: No such file or directory");

  ReaderOptions as_jsonl;
  as_jsonl.format = InputFormat::kJsonl;
  r = OpenReader(dir_.path(), as_jsonl);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), dir_.path() + ": is a directory (use --format dir)");

  ReaderOptions as_dir;
  as_dir.format = InputFormat::kDir;
  r = OpenReader("-", as_dir);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
}

TEST_F(DocumentReaderTest, ExplicitFormatOverridesTheName) {
  WriteFile(Path("data.txt"), Jsonl(0, 3));
  ReaderOptions options;
  options.format = InputFormat::kJsonl;
  Drained d = testing::OpenAndDrain(Path("data.txt"), options);
  ASSERT_TRUE(d.status.ok());
  ASSERT_EQ(d.docs.size(), 3u);
  EXPECT_EQ(d.docs[2].text, "text of 2");
  d = testing::OpenAndDrain(Path("data.txt"), {});  // detected as lines
  ASSERT_EQ(d.docs.size(), 3u);
  EXPECT_EQ(d.docs[2].id, "3");
  EXPECT_EQ(d.docs[2].text, "{\"id\": 2, \"text\": \"text of 2\"}");
}

TEST_F(DocumentReaderTest, NextBatchFillsByBytesAndReusesTheVector) {
  WriteFile(Path("c.jsonl"), Jsonl(0, 1000));
  auto reader = OpenReader(Path("c.jsonl"), {});
  ASSERT_TRUE(reader.ok());
  std::vector<RawDocument> batch(3);  // stale elements are overwritten
  std::vector<size_t> batch_bytes, last_doc_bytes;
  size_t total = 0;
  for (;;) {
    auto n = (*reader)->NextBatch(&batch, 1000);
    ASSERT_TRUE(n.ok());
    if (*n == 0) break;
    ASSERT_EQ(batch.size(), *n);
    size_t bytes = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      EXPECT_EQ(batch[i].id, std::to_string(total + i));
      bytes += batch[i].ByteSize();
    }
    batch_bytes.push_back(bytes);
    last_doc_bytes.push_back(batch.back().ByteSize());
    total += *n;
  }
  EXPECT_EQ(total, 1000u);
  EXPECT_TRUE(batch.empty());
  ASSERT_GT(batch_bytes.size(), 10u);
  // Every batch but the last stops at the first document that reaches the budget.
  for (size_t i = 0; i + 1 < batch_bytes.size(); ++i) {
    EXPECT_GE(batch_bytes[i], 1000u);
    EXPECT_LT(batch_bytes[i] - last_doc_bytes[i], 1000u);
  }
  // A budget of zero still makes progress.
  auto again = OpenReader(Path("c.jsonl"), {});
  ASSERT_TRUE(again.ok());
  auto n = (*again)->NextBatch(&batch, 0);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 1u);
}

TEST_F(DocumentReaderTest, ProgressCountsFileBytes) {
  const std::string data = Jsonl(0, 50000);
  WriteFile(Path("c.jsonl"), data);
  auto reader = OpenReader(Path("c.jsonl"), {});
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE((*reader)->total_bytes().has_value());
  EXPECT_EQ(*(*reader)->total_bytes(), data.size());
  EXPECT_EQ((*reader)->bytes_read(), 0u);
  RawDocument doc;
  ASSERT_TRUE(*(*reader)->Next(&doc));
  EXPECT_GT((*reader)->bytes_read(), 0u);
  EXPECT_LT((*reader)->bytes_read(), data.size());  // read in blocks, not all at once
  Drained rest = testing::Drain(reader->get());
  ASSERT_TRUE(rest.status.ok());
  EXPECT_EQ((*reader)->bytes_read(), data.size());
  EXPECT_EQ((*reader)->stats().documents, 50000u);
}

TEST_F(DocumentReaderTest, DashReadsStandardInput) {
  WriteFile(Path("in.jsonl"), Jsonl(5, 4));
  // Redirect our stdin to the file for the duration of the test.
  int saved = dup(STDIN_FILENO);
  int fd = open(Path("in.jsonl").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(dup2(fd, STDIN_FILENO), STDIN_FILENO);
  close(fd);
  auto reader = OpenReader("-", {});
  ASSERT_TRUE(reader.ok());
  Drained d = testing::Drain(reader->get());
  std::optional<uint64_t> total = (*reader)->total_bytes();
  reader->reset();
  dup2(saved, STDIN_FILENO);
  close(saved);
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 4u);
  EXPECT_EQ(d.docs[0].id, "5");
  EXPECT_EQ(d.docs[3].source, "<stdin>:4");
  EXPECT_EQ(total, Jsonl(5, 4).size());  // a redirected file has a size
}

TEST_F(DocumentReaderTest, ConcatenatesInputsOfDifferentFormats) {
  WriteFile(Path("one.jsonl"), Jsonl(0, 2));
  WriteFile(Path("two.jsonl.gz"), testing::Gzip(Jsonl(2, 2) + "bad line\n"));
  std::filesystem::create_directories(Path("tree/sub"));
  WriteFile(Path("tree/sub/f.txt"), "file text");
  WriteFile(Path("three.txt"), "a line\n\nanother line \xFF\n");
  ReaderOptions options;
  options.skip_bad = true;
  auto reader = OpenReaders(
      {Path("one.jsonl"), Path("two.jsonl.gz"), Path("tree"), Path("three.txt")}, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_FALSE((*reader)->total_bytes().has_value());  // a directory's size is unknown
  Drained d = testing::Drain(reader->get());
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  std::vector<std::string> sources;
  for (const auto& doc : d.docs) sources.push_back(doc.source);
  EXPECT_EQ(sources,
            (std::vector<std::string>{Path("one.jsonl") + ":1", Path("one.jsonl") + ":2",
                                      Path("two.jsonl.gz") + ":1", Path("two.jsonl.gz") + ":2",
                                      Path("tree") + "/sub/f.txt", Path("three.txt") + ":1",
                                      Path("three.txt") + ":3"}));
  const ReaderStats& stats = (*reader)->stats();
  EXPECT_EQ(stats.documents, 7u);
  EXPECT_EQ(stats.bad_records, 1u);
  EXPECT_EQ(stats.blank_lines, 1u);
  EXPECT_EQ(stats.utf8_replacements, 1u);
  ASSERT_EQ(stats.first_errors.size(), 1u);
  EXPECT_EQ(stats.first_errors[0],
            Path("two.jsonl.gz") + ": line 3: expected a JSON object, not 'bad'");
}

TEST_F(DocumentReaderTest, ConcatChecksEveryInputUpFrontAndSumsSizes) {
  WriteFile(Path("a.jsonl"), Jsonl(0, 10));
  WriteFile(Path("b.jsonl"), Jsonl(10, 20));
  auto reader = OpenReaders({Path("a.jsonl"), Path("b.jsonl")}, {});
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->total_bytes(), Jsonl(0, 10).size() + Jsonl(10, 20).size());
  Drained d = testing::Drain(reader->get());
  ASSERT_EQ(d.docs.size(), 30u);
  EXPECT_EQ((*reader)->bytes_read(), *(*reader)->total_bytes());

  auto missing = OpenReaders({Path("a.jsonl"), Path("typo.jsonl")}, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), Path("typo.jsonl") + ": stat: No such file or directory");
}

}  // namespace
}  // namespace dps
