// The file layer under injected faults: each rule fails exactly the calls
// it names, with the error a real failure gives (path, call, offset); a
// full disk cuts a write short and then refuses; and the atomic replace
// leaves the old file, and nothing else, whichever of its calls fails.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "common/fault_injection.h"
#include "common/file.h"

namespace dps {
namespace {

using faults::Op;

// A fresh directory (removed after), and no rule outliving the test.
class Faults : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "dps-faults-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    faults::Disarm();
    std::filesystem::remove_all(dir_);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  static std::string Error(int e) { return std::strerror(e); }
  std::string dir_;
};

faults::Rule Fail(Op op, std::string path = "", uint64_t skip = 0) {
  faults::Rule r;
  r.op = op;
  r.path = std::move(path);
  r.skip = skip;
  return r;
}

TEST_F(Faults, TheNthWriteFailsWithEnospcNamingFileAndOffset) {
  const std::string path = Path("a.tab");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  faults::Arm(Fail(Op::kWrite, ".tab", /*skip=*/2));
  EXPECT_TRUE(WriteAt(fd, path, 0, "first").ok());
  EXPECT_TRUE(WriteAt(fd, path, 5, "second").ok());
  Status s = WriteAt(fd, path, 11, "third");
  EXPECT_EQ(s.code(), Status::Code::kIOError);
  EXPECT_EQ(s.message(), path + ": write at offset 11: " + Error(ENOSPC));
  EXPECT_EQ(faults::Calls(Op::kWrite), 3u);
  EXPECT_EQ(faults::Failures(), 1u);
  ::close(fd);
  EXPECT_EQ(*ReadFileToString(path), "firstsecond");
}

TEST_F(Faults, ARuleLeavesOtherPathsAndOtherCallsAlone) {
  faults::Arm(Fail(Op::kWrite, ".tab"));
  auto file = WritableFile::Create(Path("b.gix"));
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE((*file)->Append("x").ok());
  EXPECT_TRUE((*file)->Sync().ok());
  EXPECT_TRUE((*file)->Close().ok());
  EXPECT_EQ(faults::Failures(), 0u);
  EXPECT_EQ(faults::Calls(Op::kSync), 1u);
}

TEST_F(Faults, AFullDiskCutsTheWriteShortThenRefuses) {
  faults::Rule r = Fail(Op::kWrite);
  r.bytes = 100;
  faults::Arm(r);
  const std::string path = Path("c.run.tmp");
  auto file = WritableFile::Create(path);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Append(std::string(60, 'a')).ok());  // buffered
  ASSERT_TRUE((*file)->Append(std::string(90, 'b')).ok());
  Status s = (*file)->Sync();  // flushes 150 bytes: 100 fit
  EXPECT_EQ(s.message(), path + ": write at offset 100: " + Error(ENOSPC));
  file->reset();
  EXPECT_EQ(std::filesystem::file_size(path), 100u);
}

TEST_F(Faults, ARuleIsSpentAfterItsTimes) {
  faults::Rule r = Fail(Op::kSync);
  r.times = 1;
  faults::Arm(r);
  auto file = WritableFile::Create(Path("d"));
  ASSERT_TRUE(file.ok());
  EXPECT_EQ((*file)->Sync().message(), Path("d") + ": fsync: " + Error(EIO));
  EXPECT_TRUE((*file)->Sync().ok());
}

TEST_F(Faults, AFailedDirectoryFsyncIsAnError) {
  faults::Arm(Fail(Op::kSyncDir));
  EXPECT_EQ(SyncDir(dir_).message(), dir_ + ": fsync: " + Error(EIO));
}

TEST_F(Faults, ReadsFailOnlyWhereTheirRangeHoldsTheOffset) {
  const std::string path = Path("e");
  ASSERT_TRUE(WriteFileAtomically(path, std::string(1000, 'z')).ok());
  faults::Rule r = Fail(Op::kRead, "/e");
  r.offset = 500;
  faults::Arm(r);
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  char buf[600];
  EXPECT_TRUE(ReadAt(fd, path, 0, 500, buf).ok());
  EXPECT_TRUE(ReadAt(fd, path, 501, 100, buf).ok());
  Status s = ReadAt(fd, path, 400, 101, buf);
  EXPECT_EQ(s.message(), path + ": read at offset 400: " + Error(EIO));
  ::close(fd);

  auto mapped = MappedFile::Open(path);
  ASSERT_TRUE(mapped.ok());
  EXPECT_TRUE((*mapped)->CheckRead(0, 500).ok());
  EXPECT_EQ((*mapped)->CheckRead(256, 256).message(), path + ": read at offset 256: " + Error(EIO));
  faults::Disarm();
  EXPECT_TRUE((*mapped)->CheckRead(256, 256).ok());
}

TEST_F(Faults, AShortFileIsAReadErrorNamingTheOffset) {
  const std::string path = Path("f");
  ASSERT_TRUE(WriteFileAtomically(path, "12345").ok());
  int fd = ::open(path.c_str(), O_RDONLY);
  char buf[10];
  EXPECT_EQ(ReadAt(fd, path, 2, 10, buf).message(), path + ": read at offset 5: unexpected end of file");
  ::close(fd);
}

// Whichever call of the atomic replace fails, the old contents stay and
// no temporary file is left; a failed directory fsync after the rename
// puts the old file back (the new one was visible, not known durable).
TEST_F(Faults, AFailedAtomicReplaceLeavesTheOldFileAndNothingElse) {
  const std::string path = Path("MANIFEST");
  ASSERT_TRUE(WriteFileAtomically(path, "generation 1").ok());
  for (Op op : {Op::kWrite, Op::kSync, Op::kRename, Op::kSyncDir}) {
    SCOPED_TRACE(faults::OpName(op));
    faults::Arm(Fail(op));
    Status s = WriteFileAtomically(path, "generation 2");
    faults::Disarm();
    EXPECT_EQ(s.code(), Status::Code::kIOError);
    EXPECT_EQ(*ReadFileToString(path), "generation 1");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1) << "a temporary file was left";
  }
  ASSERT_TRUE(WriteFileAtomically(path, "generation 2").ok());
  EXPECT_EQ(*ReadFileToString(path), "generation 2");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

TEST_F(Faults, AFailedFirstWriteLeavesNoFile) {
  faults::Arm(Fail(Op::kSyncDir));
  EXPECT_FALSE(WriteFileAtomically(Path("new"), "x").ok());
  faults::Disarm();
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 0);
}

TEST_F(Faults, CountingFailsNothing) {
  faults::Count();
  ASSERT_TRUE(WriteFileAtomically(Path("g"), "x").ok());
  EXPECT_EQ(faults::Calls(Op::kWrite), 1u);
  EXPECT_EQ(faults::Calls(Op::kSync), 1u);
  EXPECT_EQ(faults::Calls(Op::kRename), 1u);
  EXPECT_EQ(faults::Calls(Op::kSyncDir), 1u);
  EXPECT_EQ(faults::Failures(), 0u);
  faults::Disarm();
  EXPECT_FALSE(faults::Armed());
  ASSERT_TRUE(WriteFileAtomically(Path("g"), "y").ok());
  EXPECT_EQ(faults::Calls(Op::kWrite), 0u) << "calls counted while disarmed";
}

TEST_F(Faults, SpecsArmWhatTheySay) {
  ASSERT_TRUE(faults::ArmFromSpec("write,path=.tab,skip=1,errno=EIO;sync,path=MANIFEST,times=1").ok());
  const std::string tab = Path("h.tab");
  int fd = ::open(tab.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  EXPECT_TRUE(WriteAt(fd, tab, 0, "a").ok());
  EXPECT_EQ(WriteAt(fd, tab, 1, "b").message(), tab + ": write at offset 1: " + Error(EIO));
  ::close(fd);
  EXPECT_EQ(WriteFileAtomically(Path("MANIFEST"), "m").message(), Path("MANIFEST.tmp") + ": fsync: " + Error(EIO));
  EXPECT_TRUE(WriteFileAtomically(Path("MANIFEST"), "m").ok()) << "times=1 failed twice";
  faults::Disarm();
  ASSERT_TRUE(faults::ArmFromSpec("write,bytes=3,errno=28").ok());
  faults::Disarm();
}

TEST_F(Faults, BadSpecsAreRefusedAndArmNothing) {
  for (const char* spec : {"explode", "write,skip=x", "write,skip", "sync,colour=red", "read;write,bytes=-1",
                           "write,errno=0"}) {
    SCOPED_TRACE(spec);
    Status s = faults::ArmFromSpec(spec);
    EXPECT_TRUE(s.IsInvalidArgument());
    EXPECT_NE(s.message().find("fault rule '"), std::string::npos) << s.message();
    EXPECT_FALSE(faults::Armed());
  }
}

}  // namespace
}  // namespace dps
