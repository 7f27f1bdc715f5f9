#include "ingest/decompress.h"

#include <gtest/gtest.h>

#include "ingest/byte_source.h"
#include "tests/ingest/reader_test_util.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using testing::Drained;
using testing::Gzip;
using testing::OpenAndDrain;
using testing::WriteFile;
using testing::Zstd;

// A JSONL corpus larger than the decoders' input and output blocks.
std::string Corpus(int docs) {
  std::string s;
  for (int i = 0; i < docs; ++i) {
    s += "{\"id\": " + std::to_string(i) + ", \"text\": \"document number " + std::to_string(i) +
         " with some repeated filler filler filler\"}\n";
  }
  return s;
}

// Every byte a source yields, or its error.
Result<std::string> ReadAll(ByteSource* source) {
  std::string out;
  char buf[7777];  // odd size: outputs end mid-block
  for (;;) {
    DPS_ASSIGN_OR_RETURN(size_t n, source->Read(buf, sizeof(buf)));
    if (n == 0) return out;
    out.append(buf, n);
  }
}

Result<std::string> Decompress(Compression c, const std::string& compressed) {
  auto source = NewDecompressor(c, NewMemorySource(compressed, "in.x"));
  return ReadAll(source.get());
}

class DecompressTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
};

TEST_F(DecompressTest, CompressionFollowsTheSuffix) {
  EXPECT_EQ(CompressionFromName("a.jsonl.gz"), Compression::kGzip);
  EXPECT_EQ(CompressionFromName("a.jsonl.zst"), Compression::kZstd);
  EXPECT_EQ(CompressionFromName("a.jsonl"), Compression::kNone);
  EXPECT_EQ(CompressionFromName("gz"), Compression::kNone);
}

TEST_F(DecompressTest, GzipAndZstdFilesReadLikeThePlainFile) {
  const std::string plain = Corpus(30000);  // ~2.5 MB
  WriteFile(dir_.path() + "/c.jsonl", plain);
  WriteFile(dir_.path() + "/c.jsonl.gz", Gzip(plain));
  WriteFile(dir_.path() + "/c.jsonl.zst", Zstd(plain));
  Drained expected = OpenAndDrain(dir_.path() + "/c.jsonl", {});
  ASSERT_TRUE(expected.status.ok());
  ASSERT_EQ(expected.docs.size(), 30000u);
  for (const char* suffix : {".gz", ".zst"}) {
    SCOPED_TRACE(suffix);
    const std::string path = dir_.path() + "/c.jsonl" + suffix;
    auto reader = OpenReader(path, {});
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    Drained got = testing::Drain(reader->get());
    ASSERT_TRUE(got.status.ok()) << got.status.ToString();
    ASSERT_EQ(got.docs.size(), expected.docs.size());
    for (size_t i = 0; i < got.docs.size(); i += 997) {
      EXPECT_EQ(got.docs[i].text, expected.docs[i].text);
      EXPECT_EQ(got.docs[i].source, path + ":" + std::to_string(i + 1));
    }
    // Progress is in compressed bytes: all of the file at the end.
    ASSERT_TRUE((*reader)->total_bytes().has_value());
    EXPECT_LT(*(*reader)->total_bytes(), plain.size());
    EXPECT_EQ((*reader)->bytes_read(), *(*reader)->total_bytes());
  }
}

TEST_F(DecompressTest, ConcatenatedMembersAndFramesAreOneStream) {
  const std::string a = Corpus(100), b = "second part\n", c = Corpus(7);
  auto gz = Decompress(Compression::kGzip, Gzip(a) + Gzip(b) + Gzip(c, 1));
  ASSERT_TRUE(gz.ok()) << gz.status().ToString();
  EXPECT_EQ(*gz, a + b + c);
  auto zst = Decompress(Compression::kZstd, Zstd(a) + Zstd(b) + Zstd(c, 19));
  ASSERT_TRUE(zst.ok()) << zst.status().ToString();
  EXPECT_EQ(*zst, a + b + c);
}

TEST_F(DecompressTest, EmptyFilesAndEmptyStreams) {
  for (Compression c : {Compression::kGzip, Compression::kZstd}) {
    auto empty = Decompress(c, "");
    ASSERT_TRUE(empty.ok());
    EXPECT_EQ(*empty, "");
  }
  auto gz = Decompress(Compression::kGzip, Gzip(""));
  ASSERT_TRUE(gz.ok());
  EXPECT_EQ(*gz, "");
  auto zst = Decompress(Compression::kZstd, Zstd(""));
  ASSERT_TRUE(zst.ok());
  EXPECT_EQ(*zst, "");
}

TEST_F(DecompressTest, TruncatedStreamsAreClearErrors) {
  const std::string plain = Corpus(5000);
  const std::string gz = Gzip(plain), zst = Zstd(plain);
  for (size_t cut : {size_t{1}, size_t{10}, gz.size() / 2, gz.size() - 1}) {
    auto r = Decompress(Compression::kGzip, gz.substr(0, cut));
    ASSERT_FALSE(r.ok()) << cut;
    EXPECT_TRUE(r.status().IsInvalidArgument());
    EXPECT_EQ(r.status().message().rfind("in.x: truncated gzip stream at compressed byte ", 0), 0u)
        << r.status().message();
  }
  for (size_t cut : {size_t{1}, size_t{10}, zst.size() / 2, zst.size() - 1}) {
    auto r = Decompress(Compression::kZstd, zst.substr(0, cut));
    ASSERT_FALSE(r.ok()) << cut;
    EXPECT_TRUE(r.status().IsInvalidArgument());
    EXPECT_EQ(r.status().message().rfind("in.x: truncated zstd stream at compressed byte ", 0), 0u)
        << r.status().message();
  }
}

TEST_F(DecompressTest, TruncatedFileFailsTheReaderWithTheFileName) {
  const std::string gz = Gzip(Corpus(5000));
  const std::string path = dir_.path() + "/cut.jsonl.gz";
  WriteFile(path, gz.substr(0, gz.size() / 2));
  ReaderOptions options;
  options.skip_bad = true;  // does not apply: the stream cannot be resynchronised
  Drained d = OpenAndDrain(path, options);
  EXPECT_TRUE(d.status.IsInvalidArgument());
  EXPECT_EQ(d.status.message().rfind(path + ": truncated gzip stream at compressed byte ", 0), 0u)
      << d.status.message();
  EXPECT_GT(d.docs.size(), 0u);
}

TEST_F(DecompressTest, CorruptDataAndTrailingGarbageAreErrors) {
  const std::string plain = Corpus(2000);
  std::string gz = Gzip(plain);
  gz[gz.size() / 2] ^= 0x55;
  auto r = Decompress(Compression::kGzip, gz);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("in.x: corrupt gzip stream at compressed byte ", 0), 0u)
      << r.status().message();

  std::string zst = Zstd(plain);
  zst[zst.size() / 2] ^= 0x55;
  r = Decompress(Compression::kZstd, zst);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("in.x: corrupt zstd stream at compressed byte ", 0), 0u)
      << r.status().message();

  r = Decompress(Compression::kGzip, Gzip("x\n") + "garbage");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  r = Decompress(Compression::kZstd, Zstd("x\n") + "garbage");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  r = Decompress(Compression::kGzip, plain);  // not compressed at all
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
}

}  // namespace
}  // namespace dps
