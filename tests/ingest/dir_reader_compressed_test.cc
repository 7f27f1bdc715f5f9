// The dir format's .gz and .zst files: read decompressed, like the plain
// file, under the same limits and binary test, and a corrupt one is a bad
// record naming the file.
#include <gtest/gtest.h>

#include "ingest/dir_reader.h"
#include "tests/ingest/dir_tree_fixture.h"

namespace dps {
namespace {

using testing::Drained;
using testing::Gzip;
using testing::Zstd;

class DirReaderCompressedTest : public testing::DirTreeTest {};

// Text long enough to span several reads and the 8 KiB binary probe.
std::string Changelog() {
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    text += "pkg (1." + std::to_string(i) + ") unstable; urgency=low\n  * Fixed bug #" +
            std::to_string(i * 7) + " in the parser.\n";
  }
  return text;
}

TEST_F(DirReaderCompressedTest, GzipAndZstdFilesReadLikeThePlainFile) {
  const std::string text = Changelog();
  const std::string gz = Gzip(text);
  const std::string zst = Zstd(text);
  ASSERT_LT(gz.size() * 4, text.size());  // the reader must grow past its first guess
  Write("changelog", text);
  Write("changelog.gz", gz);
  Write("changelog.zst", zst);
  Drained d = Read();
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  // The id and title keep the suffix: three files, three documents.
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"changelog", "changelog.gz", "changelog.zst"}));
  ASSERT_EQ(d.docs.size(), 3u);
  EXPECT_EQ(d.docs[1].title, "changelog.gz");
  EXPECT_EQ(d.docs[2].source, root_ + "/changelog.zst");
  for (const auto& doc : d.docs) EXPECT_TRUE(doc.text == text) << doc.id;
  // Progress counts file bytes: the compressed ones for compressed files.
  EXPECT_EQ(bytes_read_, text.size() + gz.size() + zst.size());
  EXPECT_EQ(stats_.binary_files, 0u);
}

TEST_F(DirReaderCompressedTest, InvalidUtf8IsReplacedAndCountedAsInAPlainFile) {
  const std::string latin1 = "caf\xE9 cr\xE8me and plenty of ascii around it";
  Write("latin1.txt.gz", Gzip(latin1));
  Write("latin1.txt.zst", Zstd(latin1));
  Drained d = Read();
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 2u);
  EXPECT_EQ(d.docs[0].text, "caf\xEF\xBF\xBD cr\xEF\xBF\xBDme and plenty of ascii around it");
  EXPECT_EQ(d.docs[1].text, d.docs[0].text);
  EXPECT_EQ(stats_.utf8_replacements, 4u);
}

TEST_F(DirReaderCompressedTest, CompressedBinaryIsSkippedWithoutReadingItThrough) {
  // 1024 members of 1 MiB of NULs each: 1 GiB decompressed, about 1 MiB on
  // disk (more than one 256 KiB input block). The NUL in the first 8 KiB
  // decides; the rest is never inflated.
  const std::string member = Gzip(std::string(1 << 20, '\0'), 9);
  std::string zeros;
  for (int i = 0; i < 1024; ++i) zeros += member;
  Write("zeros.bin.gz", zeros);
  Write("small.bin.zst", Zstd(std::string("text\0with a NUL", 15)));
  Write("text.txt", "kept");
  Drained d = Read();
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"text.txt"}));
  EXPECT_EQ(stats_.binary_files, 2u);
  EXPECT_LT(bytes_read_, zeros.size());
}

TEST_F(DirReaderCompressedTest, DecompressionBombStopsAtTheRecordLimit) {
  // 1 GiB of text in about 1 MiB of gzip members; the limit is 64 KiB.
  const std::string member = Gzip(std::string(1 << 20, 'a'), 9);
  std::string bomb;
  for (int i = 0; i < 1024; ++i) bomb += member;
  Write("bomb.txt.gz", bomb);
  Write("z.txt", "after");
  ReaderOptions options;
  options.max_record_bytes = 64 << 10;
  Drained d = Read(options);
  EXPECT_TRUE(d.status.IsInvalidArgument());
  EXPECT_EQ(d.status.message(), root_ + "/bomb.txt.gz: file larger than 65536 bytes decompressed");
  // One 256 KiB input block was inflated, not the whole file.
  EXPECT_LT(bytes_read_, bomb.size());

  options.skip_bad = true;
  d = Read(options);
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"z.txt"}));
  EXPECT_EQ(stats_.bad_records, 1u);
}

TEST_F(DirReaderCompressedTest, CorruptFileIsABadRecordNamingIt) {
  Write("a.txt", "before");
  Write("bad.gz", "this is not gzip data at all");
  const std::string zst = Zstd(Changelog());
  Write("cut.zst", zst.substr(0, zst.size() / 2));
  Write("z.txt", "after");
  Drained d = Read();
  EXPECT_TRUE(d.status.IsInvalidArgument());
  EXPECT_EQ(d.status.message(),
            root_ + "/bad.gz: corrupt gzip stream at compressed byte 2: incorrect header check");
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"a.txt"}));

  ReaderOptions skip;
  skip.skip_bad = true;
  d = Read(skip);
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"a.txt", "z.txt"}));
  EXPECT_EQ(stats_.bad_records, 2u);
  ASSERT_EQ(stats_.first_errors.size(), 2u);
  EXPECT_EQ(stats_.first_errors[1], root_ + "/cut.zst: truncated zstd stream at compressed byte " +
                                        std::to_string(zst.size() / 2));
}

TEST_F(DirReaderCompressedTest, EmptyCompressedFileIsAnEmptyDocument) {
  Write("empty.gz", "");
  Drained d = Read();
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  ASSERT_EQ(d.docs.size(), 1u);
  EXPECT_EQ(d.docs[0].text, "");
}

}  // namespace
}  // namespace dps
