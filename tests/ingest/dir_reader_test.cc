#include "ingest/dir_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>

#include "tests/ingest/dir_tree_fixture.h"

namespace dps {
namespace {

using testing::Drained;
using testing::WriteFile;
namespace fs = std::filesystem;

class DirReaderTest : public testing::DirTreeTest {};

TEST_F(DirReaderTest, WalksNestedDirectoriesInByteOrder) {
  // Created out of order; readdir order is whatever the file system likes.
  Write("zeta.txt", "last");
  Write("b/inner/deep.md", "deep text");
  Write("a.txt", "alpha");
  Write("b/B.txt", "capital");
  Write("b/a.txt", "b's a");
  Write("a/x.txt", "dir a sorts before a.txt");
  Write("empty.txt", "");
  Drained d = Read();
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"a/x.txt", "a.txt", "b/B.txt", "b/a.txt",
                                              "b/inner/deep.md", "empty.txt", "zeta.txt"}));
  EXPECT_EQ(d.docs[4].title, "deep.md");
  EXPECT_EQ(d.docs[4].text, "deep text");
  EXPECT_EQ(d.docs[4].source, root_ + "/b/inner/deep.md");
  EXPECT_EQ(d.docs[5].text, "");  // empty documents are allowed
  EXPECT_EQ(stats_.documents, 7u);
  EXPECT_EQ(d.docs.size(), 7u);

  // A trailing slash on the root changes nothing.
  Drained again = testing::OpenAndDrain(root_ + "//", ReaderOptions{});
  EXPECT_EQ(Ids(again), Ids(d));
}

TEST_F(DirReaderTest, BinaryFilesAreSkippedAndCounted) {
  Write("text.txt", "plain text");
  Write("nul.bin", std::string("looks like text\0but has a NUL", 29));
  std::mt19937_64 rng(3);
  std::string noise(4096, '\0');
  for (char& c : noise) c = static_cast<char>(0x80 | (rng() & 0x7F));  // never a NUL
  Write("noise.dat", noise);
  // Latin-1 text: a few invalid bytes, far below the 30% threshold.
  Write("latin1.txt",
        "caf\xE9 cr\xE8me br\xFBl\xE9"
        "e and plenty of ascii around it");
  std::string late_nul(9000, 'a');
  late_nul += '\0';  // beyond the 8 KiB probe
  Write("late_nul.txt", late_nul);
  Drained d = Read();
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"late_nul.txt", "latin1.txt", "text.txt"}));
  EXPECT_EQ(d.docs[1].text,
            "caf\xEF\xBF\xBD cr\xEF\xBF\xBDme br\xEF\xBF\xBDl\xEF\xBF\xBD"
            "e and plenty of ascii around it");
  EXPECT_EQ(stats_.binary_files, 2u);
  EXPECT_EQ(stats_.utf8_replacements, 4u);
}

TEST_F(DirReaderTest, SymlinkLoopsDoNotHang) {
  Write("a/file.txt", "in a");
  Link("..", "a/up");            // a/up -> tree (a cycle)
  Link(root_ + "/a", "a_link");  // another path to a
  Link("a/file.txt", "file_link.txt");
  Drained d = Read();
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  // Links to directories are not followed by default; links to files are.
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"a/file.txt", "file_link.txt"}));
  EXPECT_EQ(d.docs[1].text, "in a");
  EXPECT_EQ(stats_.skipped_entries, 2u);

  // Followed, every directory is still visited once.
  ReaderOptions follow;
  follow.follow_dir_symlinks = true;
  d = Read(follow);
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"a/file.txt", "file_link.txt"}));
  EXPECT_EQ(stats_.skipped_entries, 2u);  // a/up (the root) and a_link (a)
}

TEST_F(DirReaderTest, FollowedLinkToAnUnvisitedDirectoryIsWalked) {
  Write("real/r.txt", "real");
  fs::create_directories(dir_.path() + "/outside");
  WriteFile(dir_.path() + "/outside/o.txt", "outside");
  Link(dir_.path() + "/outside", "ext");
  ReaderOptions follow;
  follow.follow_dir_symlinks = true;
  Drained d = Read(follow);
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"ext/o.txt", "real/r.txt"}));
}

TEST_F(DirReaderTest, DanglingAndSelfLinksAreBadRecords) {
  Write("a.txt", "a");
  Link("missing", "dangling");
  Write("z.txt", "z");
  Drained d = Read();
  EXPECT_EQ(d.status.code(), Status::Code::kIOError);
  EXPECT_EQ(d.status.message(),
            root_ + "/dangling: following symbolic link: No such file or directory");
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"a.txt"}));

  Link("self", "self");
  ReaderOptions skip;
  skip.skip_bad = true;
  d = Read(skip);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"a.txt", "z.txt"}));
  EXPECT_EQ(stats_.bad_records, 2u);
  ASSERT_EQ(stats_.first_errors.size(), 2u);
  EXPECT_EQ(stats_.first_errors[1],
            root_ + "/self: following symbolic link: Too many levels of symbolic links");
}

TEST_F(DirReaderTest, FifosAreSkippedWithoutBlocking) {
  Write("a.txt", "a");
  ASSERT_EQ(mkfifo((root_ + "/pipe").c_str(), 0644), 0);
  Drained d = Read();
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"a.txt"}));
  EXPECT_EQ(stats_.skipped_entries, 1u);
}

// Root reads every file, so as root each check runs in a child process
// that has become nobody (a death test: its exit code carries the
// verdict, its stderr the first mismatch).
void CheckUnprivileged(const std::string& dir, const std::function<std::string()>& check) {
  if (geteuid() != 0) {
    const std::string why = check();
    EXPECT_EQ(why, "");
    return;
  }
  // The tree and the test's temporary directory above it (mkdtemp's 0700
  // would hide everything).
  for (const fs::path& p : {fs::path(dir), fs::path(dir).parent_path()}) ASSERT_EQ(chmod(p.c_str(), 0755), 0);
  EXPECT_EXIT(
      {
        if (setgid(65534) != 0 || setuid(65534) != 0) {
          std::fprintf(stderr, "could not become nobody\n");
          std::_Exit(2);
        }
        const std::string why = check();
        if (!why.empty()) std::fprintf(stderr, "%s\n", why.c_str());
        std::_Exit(why.empty() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// The first of `got` and `want` that differ, described; "" when equal.
std::string Mismatch(const std::string& what, const std::string& got, const std::string& want) {
  return got == want ? "" : what + ": got [" + got + "], want [" + want + "]";
}

TEST_F(DirReaderTest, UnreadableFilesAreErrors) {
  Write("a.txt", "a");
  Write("secret.txt", "s");
  ASSERT_EQ(chmod((root_ + "/secret.txt").c_str(), 0), 0);
  CheckUnprivileged(root_, [&] {
    Drained d = Read();
    std::string why = d.status.code() == Status::Code::kIOError ? "" : "not an IO error: " + d.status.ToString();
    if (why.empty()) why = Mismatch("message", d.status.message(), root_ + "/secret.txt: open: Permission denied");
    ReaderOptions skip;
    skip.skip_bad = true;
    d = Read(skip);
    if (why.empty() && !d.status.ok()) why = "--skip-bad: " + d.status.ToString();
    if (why.empty()) why = Mismatch("bad records", std::to_string(stats_.bad_records), "1");
    return why;
  });

  ASSERT_EQ(chmod((root_ + "/secret.txt").c_str(), 0644), 0);
  Write("locked/inside.txt", "i");
  ASSERT_EQ(chmod((root_ + "/locked").c_str(), 0), 0);
  CheckUnprivileged(root_, [&] {
    return Mismatch("message", Read().status.message(), root_ + "/locked: opendir: Permission denied");
  });
  chmod((root_ + "/locked").c_str(), 0755);  // so TempDir can remove it
}

// Runs as root too: /proc/self/mem opens, but reading offset 0 fails (EIO).
TEST_F(DirReaderTest, ReadErrorsAreIOErrors) {
  if (access("/proc/self/mem", R_OK) != 0) GTEST_SKIP() << "no /proc/self/mem";
  Write("a.txt", "a");
  Link("/proc/self/mem", "mem");
  Drained d = Read();
  EXPECT_EQ(d.status.code(), Status::Code::kIOError);
  EXPECT_EQ(d.status.message(), root_ + "/mem: read: Input/output error");
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"a.txt"}));
}

TEST_F(DirReaderTest, FilesOverTheLimitAreBadRecords) {
  Write("big.txt", std::string(5000, 'b'));
  Write("small.txt", "s");
  ReaderOptions options;
  options.max_record_bytes = 4096;
  Drained d = Read(options);
  EXPECT_TRUE(d.status.IsInvalidArgument());
  EXPECT_EQ(d.status.message(), root_ + "/big.txt: file larger than 4096 bytes");
  options.skip_bad = true;
  d = Read(options);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"small.txt"}));
}

TEST_F(DirReaderTest, NonUtf8FileNamesBecomeValidIds) {
  Write("caf\xE9.txt", "x");
  Drained d = Read();
  ASSERT_TRUE(d.status.ok());
  ASSERT_EQ(d.docs.size(), 1u);
  EXPECT_EQ(d.docs[0].id, "caf\xEF\xBF\xBD.txt");
  EXPECT_EQ(d.docs[0].title, "caf\xEF\xBF\xBD.txt");
}

TEST_F(DirReaderTest, RootMustBeADirectory) {
  Write("f.txt", "x");
  auto r = OpenDirReader(root_ + "/f.txt", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), root_ + "/f.txt: not a directory");
  r = OpenDirReader(root_ + "/nope", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), root_ + "/nope: stat: No such file or directory");
}

}  // namespace
}  // namespace dps
