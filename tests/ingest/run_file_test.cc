// Spill runs: records of several bins round-trip through many blocks, and
// a flipped byte or a missing end block is an error naming the file, never
// a wrong list.
#include "ingest/run_file.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <fstream>
#include <random>

#include "common/coding.h"
#include "common/file_header.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

struct Record {
  uint32_t bin;
  std::string term;
  std::vector<DocId> docs;
  std::vector<uint32_t> weights;
};

std::vector<Record> RandomRecords(std::mt19937_64& rng) {
  std::vector<Record> out;
  for (uint32_t bin = 0; bin < 3; ++bin) {
    for (int t = 0; t < 3000; ++t) {
      Record r;
      r.bin = bin;
      char term[16];
      std::snprintf(term, sizeof term, "t%05d", t);
      r.term = term;
      const size_t df = rng() % 4 == 0 ? 1 + rng() % 400 : 1;  // mostly singletons
      DocId d = static_cast<DocId>(rng() % 50);
      for (size_t k = 0; k < df; ++k) {
        r.docs.push_back(d);
        r.weights.push_back(1 + static_cast<uint32_t>(rng() % 3));
        d += 1 + static_cast<DocId>(rng() % 20);
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

void Write(const std::string& path, const std::vector<Record>& records) {
  auto w = RunWriter::Create(path);
  ASSERT_TRUE(w.ok());
  for (const auto& r : records) ASSERT_TRUE((*w)->Add(r.bin, r.term, r.docs, r.weights).ok());
  ASSERT_TRUE((*w)->Finish().ok());
}

Status ReadAll(const std::string& path, std::vector<Record>* out) {
  DPS_ASSIGN_OR_RETURN(auto reader, RunReader::Open(path));
  PostingCursor cursor;
  for (; reader->Valid(); ) {
    Record r;
    r.bin = reader->bin();
    r.term = std::string(reader->term());
    DPS_RETURN_IF_ERROR(reader->OpenList(&cursor));
    for (DocId d = cursor.doc(); d != kEndDoc; d = cursor.Next()) {
      r.docs.push_back(d);
      r.weights.push_back(cursor.weight());
    }
    DPS_RETURN_IF_ERROR(cursor.status());
    out->push_back(std::move(r));
    DPS_RETURN_IF_ERROR(reader->Next());
  }
  return Status::OK();
}

TEST(RunFile, RecordsRoundTripAcrossBlocksAndBins) {
  std::mt19937_64 rng(5);
  testing::TempDir dir;
  const auto records = RandomRecords(rng);
  const std::string path = dir.path() + "/r.run.tmp";
  Write(path, records);
  std::vector<Record> got;
  Status s = ReadAll(path, &got);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(got.size(), records.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].bin, records[i].bin);
    EXPECT_EQ(got[i].term, records[i].term);
    EXPECT_EQ(got[i].docs, records[i].docs) << got[i].term;
    EXPECT_EQ(got[i].weights, records[i].weights) << got[i].term;
  }
}

TEST(RunFile, DamageIsDetected) {
  std::mt19937_64 rng(6);
  testing::TempDir dir;
  const auto records = RandomRecords(rng);
  const std::string path = dir.path() + "/r.run.tmp";
  Write(path, records);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 100000u);
  const std::string damaged_path = dir.path() + "/d.run.tmp";
  for (int trial = 0; trial < 40; ++trial) {
    std::string damaged = bytes;
    if (trial % 4 == 3) {
      damaged.resize(16 + rng() % (bytes.size() - 16));  // truncated
    } else {
      damaged[rng() % damaged.size()] ^= static_cast<char>(1 + rng() % 255);
    }
    {
      std::ofstream out(damaged_path, std::ios::binary | std::ios::trunc);
      out << damaged;
    }
    std::vector<Record> got;
    Status s = ReadAll(damaged_path, &got);
    EXPECT_FALSE(s.ok()) << "trial " << trial;
    EXPECT_NE(s.ToString().find("d.run.tmp"), std::string::npos) << s.ToString();
  }
}

// Found while writing run_file_fuzz: a block header claiming 1 GiB in a
// file of 28 bytes made the reader allocate (and zero) the gigabyte before
// finding the file too short.
TEST(RunFile, ALengthPastTheFileIsRefusedBeforeAllocating) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/big.run.tmp";
  {
    std::string bytes;
    EncodeFileHeader({kRunMagic, kRunVersion, 0}, &bytes);
    PutFixed32(&bytes, 1u << 30);  // the largest length a block may have
    PutFixed64(&bytes, 0);
    std::ofstream out(path, std::ios::binary);
    out << bytes;
  }
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  auto r = RunReader::Open(path);
  getrusage(RUSAGE_SELF, &after);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("truncated spill run"), std::string::npos) << r.status().ToString();
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 256 * 1024) << "peak RSS grew by " << after.ru_maxrss - before.ru_maxrss << " KB";
}

}  // namespace
}  // namespace dps
