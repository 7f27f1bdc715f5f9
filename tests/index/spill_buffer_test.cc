#include "index/spill_buffer.h"

#include <gtest/gtest.h>

#include <random>

#include "common/file.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

// Drains `buffer`, checking each piece is at most `max_piece` bytes.
std::string DrainAll(SpillBuffer* buffer, size_t max_piece) {
  std::string got;
  Status s = buffer->Drain([&](std::string_view piece) {
    EXPECT_LE(piece.size(), max_piece);
    got.append(piece);
    return Status::OK();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return got;
}

TEST(SpillBuffer, KeepsAtMostItsLimitInMemoryAndDrainsEveryByteInOrder) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/000001.tab.pos.tmp";
  constexpr size_t kLimit = 4096;
  SpillBuffer buffer(path, kLimit);
  std::mt19937_64 rng(7);
  std::string want;
  for (int round = 0; round < 2; ++round) {  // a drained buffer is reused for the next bin
    want.clear();
    for (int i = 0; i < 2000; ++i) {
      const std::string piece(rng() % 300, static_cast<char>('a' + rng() % 26));
      buffer.tail()->append(piece);
      want += piece;
      ASSERT_TRUE(buffer.Spill().ok());
      EXPECT_LE(buffer.size() - buffer.spilled_bytes(), kLimit);
    }
    EXPECT_EQ(buffer.size(), want.size());
    EXPECT_GT(buffer.spilled_bytes(), 0u);
    EXPECT_FALSE(FileExists(path));  // unlinked once opened: nothing outlives the writer
    EXPECT_EQ(DrainAll(&buffer, 64 << 10), want);
    EXPECT_TRUE(buffer.empty());
  }
}

TEST(SpillBuffer, BelowTheLimitStaysInMemory) {
  testing::TempDir dir;
  SpillBuffer buffer(dir.path() + "/never.tmp", 1 << 20);
  buffer.tail()->append("positions");
  ASSERT_TRUE(buffer.Spill().ok());
  EXPECT_EQ(buffer.spilled_bytes(), 0u);
  EXPECT_EQ(DrainAll(&buffer, 1 << 20), "positions");
  EXPECT_TRUE(buffer.empty());
}

}  // namespace
}  // namespace dps
