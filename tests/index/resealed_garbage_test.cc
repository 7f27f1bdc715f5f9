// Decoders behind valid checksums: mutate bytes of a real tablet file and
// global index, then recompute every page checksum, the page table checksum
// and the footer checksum, so the damage passes verification and reaches
// the decoders themselves. Opening, a full scan, every stored document and
// queries must then end in an error or some answer: never a crash, an
// out-of-bounds read (ASan) or a hang. Checks the bounds checks that stand
// behind the checksums (a fuzz loop with fixed seeds, run in CI).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "common/checksum.h"
#include "common/coding.h"
#include "common/file.h"
#include "index/check.h"
#include "index/entry_cursor.h"
#include "index/index_reader.h"
#include "index/paged_file.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

namespace fs = std::filesystem;

// Recomputes the paged container's checksums after the body was changed.
void Reseal(std::string* file) {
  const size_t footer_at = file->size() - kFooterSize;
  auto* f = reinterpret_cast<uint8_t*>(file->data() + footer_at);
  const uint64_t body = DecodeFixed64(f + 16);
  const uint64_t pages = (body + kPageSize - 1) / kPageSize;
  std::string table;
  for (uint64_t p = 0; p < pages; ++p) {
    const uint64_t len = std::min<uint64_t>(kPageSize, body - p * kPageSize);
    PutFixed64(&table, Checksum64(file->data() + p * kPageSize, len));
  }
  std::memcpy(file->data() + body, table.data(), table.size());
  std::string fixed;
  PutFixed64(&fixed, Checksum64(table));
  std::memcpy(f + 32, fixed.data(), 8);
  fixed.clear();
  PutFixed64(&fixed, Checksum64(f, 40));
  std::memcpy(f + 40, fixed.data(), 8);
}

// Everything a user could make the index do; returns whether the damaged
// index opened at all (so the test knows damage reached the decoders).
bool Exercise(const std::string& dir) {
  CheckReport report;
  (void)CheckIndex(dir, &report);
  auto index = IndexReader::Open(dir);
  if (!index.ok()) return false;
  std::mt19937_64 rng(1);
  for (int q = 0; q < 6; ++q) {
    QueryNode query = testing::RandomQuery(rng, 100);
    for (uint32_t bin = 0; bin < (*index)->bins(); ++bin) {
      auto it = BuildIterator(**index, BinId{bin}, query);
      if (!it.ok()) break;
      size_t n = 0;
      for (DocId d = (*it)->doc(); d != kEndDoc && n < 100000; d = (*it)->Next(), ++n) {
        StoredDoc doc;
        (void)(*index)->TabletOf(BinId{bin}).GetDocument(BinId{bin}, d, &doc);
      }
    }
  }
  return true;
}

TEST(ResealedGarbage, DecodersSurviveDamageThatPassesChecksums) {
  std::mt19937_64 rng(5);
  testing::TempDir pristine;
  IndexOptions options;
  options.bins = 2;
  options.tablets = 1;
  {
    auto writer = IndexWriter::Open(pristine.path(), options);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(testing::RandomCorpus(rng, 600, 100, 40))).ok());
    ASSERT_TRUE((*writer)->Delete({"doc-3", "doc-4"}).ok());
  }
  std::vector<std::string> targets;
  for (const auto& e : fs::directory_iterator(pristine.path())) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(".tab") || name.ends_with(".gix")) targets.push_back(name);
  }
  ASSERT_FALSE(targets.empty());
  int rounds = 0, opened = 0;
  for (const auto& name : targets) {
    const std::string original = ReadFileToString(pristine.path() + "/" + name).value();
    const size_t body = DecodeFixed64(reinterpret_cast<const uint8_t*>(
        original.data() + original.size() - kFooterSize + 16));
    for (int round = 0; round < 40; ++round, ++rounds) {
      testing::TempDir copy;
      for (const auto& e : fs::directory_iterator(pristine.path())) {
        fs::copy_file(e.path(), copy.path() + "/" + e.path().filename().string());
      }
      std::string bytes = original;
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int k = 0; k < flips; ++k) {
        const size_t at = rng() % body;
        bytes[at] = static_cast<char>(rng() % 3 == 0 ? 0xff : rng());
      }
      Reseal(&bytes);
      std::ofstream(copy.path() + "/" + name, std::ios::binary | std::ios::trunc)
          .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      opened += Exercise(copy.path());
    }
  }
  // Most damage lies in postings, dictionaries and doc blocks, which open
  // lazily: it must get past Open to test their decoders.
  EXPECT_GT(opened, rounds / 4) << opened << " of " << rounds << " damaged indexes opened";
}

}  // namespace
}  // namespace dps
