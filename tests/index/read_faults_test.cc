// Read errors (issue 21): wherever a read of an index file fails (opening
// it, a dictionary block, a posting list, a stored document), the query is
// an I/O error naming the file and the offset, never a wrong answer; and
// once the device reads again, the same reader answers right.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "common/fault_injection.h"
#include "index/index_reader.h"
#include "index/query_node.h"
#include "index/tablet.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

constexpr size_t kVocab = 300;

// The ids matching `q`, or the first error met.
Result<std::set<std::string>> Evaluate(const IndexReader& index, const QueryNode& q) {
  std::set<std::string> ids;
  for (uint32_t bin = 0; bin < index.bins(); ++bin) {
    DPS_ASSIGN_OR_RETURN(auto it, BuildIterator(index, BinId{bin}, q));
    DocBlockCache cache;
    for (DocId d = it->doc(); d != kEndDoc; d = it->Next()) {
      StoredDoc doc;
      DPS_RETURN_IF_ERROR(index.TabletOf(BinId{bin}).GetDocument(BinId{bin}, d, &doc, &cache));
      ids.insert(doc.id);
    }
    DPS_RETURN_IF_ERROR(it->status());
  }
  return ids;
}

// An error must be the injected read's, naming the file and an offset
// (after the bin it was reading, if any).
void ExpectReadError(const Status& s, const std::string& path) {
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find(path + ": read at offset "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(std::strerror(EIO)), std::string::npos) << s.message();
}

TEST(ReadFaults, AFailedReadAnywhereIsAnErrorNamingFileAndOffsetNeverAWrongAnswer) {
  std::mt19937_64 rng(31);
  testing::TempDir dir;
  IndexOptions options;
  options.bins = 4;
  options.tablets = 2;
  std::vector<std::string> files;
  {
    auto writer = IndexWriter::Open(dir.path(), options);
    ASSERT_TRUE(writer.ok());
    auto docs = testing::RandomCorpus(rng, 3000, kVocab, 40);
    for (size_t i = 0; i < docs.size(); ++i) docs[i].id = "doc-" + std::to_string(i);
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs)).ok());
    const Manifest& m = (*writer)->manifest();
    for (const auto& t : m.tablets) files.insert(files.end(), t.files.begin(), t.files.end());
    files.push_back(m.global_index);
  }
  std::vector<QueryNode> queries;
  std::vector<std::set<std::string>> want;
  auto clean = IndexReader::Open(dir.path());
  ASSERT_TRUE(clean.ok());
  for (int q = 0; q < 16; ++q) {
    queries.push_back(testing::RandomQuery(rng, kVocab));
    auto ids = Evaluate(**clean, queries.back());
    ASSERT_TRUE(ids.ok()) << ids.status().ToString();
    want.push_back(*ids);
  }
  uint64_t failed_opens = 0, failed_queries = 0, answered = 0;
  for (const std::string& name : files) {
    const std::string path = dir.path() + "/" + name;
    const uint64_t size = std::filesystem::file_size(path);
    uint64_t failed_here = 0;
    for (uint64_t offset = 0; offset < size; offset += 2048) {
      SCOPED_TRACE(name + " offset " + std::to_string(offset));
      faults::Rule bad;
      bad.op = faults::Op::kRead;
      bad.path = "/" + name;
      bad.offset = offset;
      faults::Arm(bad);
      auto index = IndexReader::Open(dir.path());
      if (!index.ok()) {
        ExpectReadError(index.status(), path);
        ++failed_opens;
        ++failed_here;
        faults::Disarm();
        continue;
      }
      for (size_t q = 0; q < queries.size(); ++q) {
        auto ids = Evaluate(**index, queries[q]);
        if (ids.ok()) {
          EXPECT_EQ(*ids, want[q]) << queries[q].ToString();
          ++answered;
        } else {
          ExpectReadError(ids.status(), path);
          ++failed_queries;
          ++failed_here;
        }
      }
      faults::Disarm();
      for (size_t q = 0; q < queries.size(); ++q) {  // the device is back
        auto ids = Evaluate(**index, queries[q]);
        ASSERT_TRUE(ids.ok()) << ids.status().ToString();
        EXPECT_EQ(*ids, want[q]);
      }
      ASSERT_FALSE(::testing::Test::HasFailure());
    }
    EXPECT_GT(failed_here, 0u) << name << ": no injected read failed: the hook is not on its read path";
  }
  std::printf("read faults: %llu failed opens, %llu failed queries, %llu right answers\n",
              static_cast<unsigned long long>(failed_opens), static_cast<unsigned long long>(failed_queries),
              static_cast<unsigned long long>(answered));
  EXPECT_GT(failed_queries, 0u);
  EXPECT_GT(answered, 0u);
}

}  // namespace
}  // namespace dps
