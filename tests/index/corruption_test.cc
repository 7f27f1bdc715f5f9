// Corruption tests (leveldb corruption_test style): build a real index, then
// flip and truncate bytes in every region of every file type — tablet header,
// postings, doc store, dictionary, tombstones, directory, page
// table, footer; the global index; the MANIFEST. Every damaged index must
// give a clear error naming the file (and an offset for binary files) or,
// where the damaged bytes are never read, exactly the right answer. Never a
// crash (run under ASan/UBSan by scripts/test.sh), never a wrong answer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "common/file.h"
#include "index/check.h"
#include "index/index_reader.h"
#include "index/tablet_format.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

namespace fs = std::filesystem;

struct Answers {
  std::vector<std::set<std::string>> results;
  Status status;
};

std::vector<QueryNode> Queries() {
  std::vector<QueryNode> qs;
  std::mt19937_64 rng(99);
  for (int i = 0; i < 12; ++i) qs.push_back(testing::RandomQuery(rng, 200));
  qs.push_back(QueryNode::And({QueryNode::Term("t0"), QueryNode::Term("t1")}));
  qs.push_back(QueryNode::Term("t5"));
  // Phrases read the positions regions and inline positions.
  qs.push_back(QueryNode::Phrase({"t0", "t1"}));
  qs.push_back(QueryNode::Phrase({"t2", "t0", "t1"}));
  qs.push_back(QueryNode::Phrase({"t0", "t0"}));
  qs.push_back(QueryNode::And({QueryNode::Term("t3"), QueryNode::Phrase({"t40", "t0"})}));
  return qs;
}

// Runs every query (and fetches every matching stored document); returns the
// first error, like a user would see it.
Answers Ask(const std::string& dir) {
  Answers a;
  auto index = IndexReader::Open(dir);
  if (!index.ok()) {
    a.status = index.status();
    return a;
  }
  for (const auto& q : Queries()) {
    std::set<std::string> ids;
    for (uint32_t bin = 0; bin < (*index)->bins() && a.status.ok(); ++bin) {
      const Tablet& tablet = (*index)->TabletOf(BinId{bin});
      auto it = BuildIterator(**index, BinId{bin}, q);
      if (!it.ok()) {
        a.status = it.status();
        break;
      }
      for (DocId d = (*it)->doc(); d != kEndDoc; d = (*it)->Next()) {
        StoredDoc doc;
        Status s = tablet.GetDocument(BinId{bin}, d, &doc);
        if (!s.ok()) {
          a.status = s;
          break;
        }
        ids.insert(doc.id);
      }
      if (a.status.ok()) a.status = (*it)->status();
    }
    if (!a.status.ok()) break;
    a.results.push_back(ids);
  }
  return a;
}

class CorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(3);
    IndexOptions options;
    options.bins = 4;
    options.tablets = 2;
    options.positions = true;
    auto writer = IndexWriter::Open(pristine_.path(), options);
    ASSERT_TRUE(writer.ok());
    auto docs = testing::RandomCorpus(rng, 3000, 200, 60);
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(docs, true)).ok());
    auto more = testing::RandomCorpus(rng, 300, 200, 60);  // replaces doc-0..299
    ASSERT_TRUE((*writer)->Commit(testing::ToAnalyzed(more, true)).ok());
    ASSERT_TRUE((*writer)->Delete({"doc-1", "doc-2", "doc-77", "doc-1234"}).ok());
    expected_ = Ask(pristine_.path());
    ASSERT_TRUE(expected_.status.ok()) << expected_.status.ToString();
  }

  // Copies the pristine index, lets `damage` change one file, and checks the
  // outcome. Returns true if an error was reported.
  bool Damaged(const std::string& name, const std::function<void(std::string*)>& damage,
               const std::string& what) {
    testing::TempDir copy;
    for (const auto& e : fs::directory_iterator(pristine_.path())) {
      fs::copy_file(e.path(), copy.path() + "/" + e.path().filename().string());
    }
    const std::string path = copy.path() + "/" + name;
    std::string bytes = ReadFileToString(path).value();
    damage(&bytes);
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    Answers got = Ask(copy.path());
    CheckReport report;
    Status check = CheckIndex(copy.path(), &report);
    if (got.status.ok()) {
      EXPECT_EQ(got.results, expected_.results) << what << ": wrong answer without an error";
    } else {
      EXPECT_NE(got.status.message().find(name), std::string::npos)
          << what << ": error does not name the file: " << got.status.ToString();
      if (name != kManifestName) {
        EXPECT_NE(got.status.message().find("offset"), std::string::npos)
            << what << ": error does not name an offset: " << got.status.ToString();
      }
    }
    // `check` reads everything, so it must notice every flip and truncation.
    EXPECT_FALSE(check.ok()) << what << ": dpsearch check passed a damaged index";
    if (!check.ok()) {
      EXPECT_NE(check.message().find(name), std::string::npos) << check.ToString();
    }
    return !got.status.ok();
  }

  std::vector<std::string> Files(const std::string& ext) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(pristine_.path())) {
      if (e.path().extension() == ext) names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  testing::TempDir pristine_;
  Answers expected_;
};

// Offsets to damage: every region boundary of a tablet file plus a stride.
std::vector<size_t> Probes(const std::string& path, size_t size) {
  std::set<size_t> at;
  for (size_t i = 0; i < size; i += std::max<size_t>(1, size / 150)) at.insert(i);
  for (size_t i = 0; i < 16 && i < size; ++i) at.insert(i);            // header
  for (size_t i = size - kFooterSize; i < size; ++i) at.insert(i);     // footer
  auto reader = TabletReader::Open(path);
  if (reader.ok()) {
    for (size_t b = 0; b < (*reader)->bin_count(); ++b) {
      const BinInfo& info = (*reader)->bin(b);
      for (uint64_t off : {info.postings_offset, info.docs_offset, info.ids_offset, info.lengths_offset,
                           info.tombstones_offset}) {
        if (off < size) at.insert(off);
        if (off + 1 < size) at.insert(off + 1);
      }
      if (info.docs_len > 0) at.insert(info.docs_offset + info.docs_len - 1);  // doc index
      if (info.ids_len > 0) at.insert(info.ids_offset + info.ids_len - 1);     // id column padding
    }
    const auto& f = (*reader)->file();
    at.insert(f.directory_offset());
    at.insert(f.directory_offset() + f.directory_size() - 1);
    at.insert(f.body_size());  // page table
  }
  return {at.begin(), at.end()};
}

TEST_F(CorruptionTest, EveryFlippedByteOfEveryTabletFileIsCaught) {
  for (const auto& name : Files(".tab")) {
    const std::string path = pristine_.path() + "/" + name;
    const size_t size = fs::file_size(path);
    for (size_t at : Probes(path, size)) {
      Damaged(name, [at](std::string* b) { (*b)[at] ^= 0x20; },
              name + " byte " + std::to_string(at));
    }
  }
}

TEST_F(CorruptionTest, TruncatedTabletFilesAreRejected) {
  for (const auto& name : Files(".tab")) {
    const size_t size = fs::file_size(pristine_.path() + "/" + name);
    for (size_t keep : {size_t{0}, size_t{10}, size / 3, size / 2, size - kFooterSize, size - 1}) {
      bool error = Damaged(name, [keep](std::string* b) { b->resize(keep); },
                           name + " truncated to " + std::to_string(keep));
      EXPECT_TRUE(error) << name << " truncated to " << keep;
    }
  }
}

TEST_F(CorruptionTest, GlobalIndexDamageIsCaught) {
  for (const auto& name : Files(".gix")) {
    const size_t size = fs::file_size(pristine_.path() + "/" + name);
    for (size_t at = 0; at < size; at += std::max<size_t>(1, size / 100)) {
      Damaged(name, [at](std::string* b) { (*b)[at] ^= 0x01; }, name + " byte " + std::to_string(at));
    }
    for (size_t keep : {size_t{0}, size / 2, size - 1}) {
      EXPECT_TRUE(Damaged(name, [keep](std::string* b) { b->resize(keep); }, name + " truncated"));
    }
  }
}

TEST_F(CorruptionTest, ManifestDamageIsCaught) {
  const size_t size = fs::file_size(pristine_.path() + "/" + kManifestName);
  for (size_t at = 0; at < size; ++at) {
    EXPECT_TRUE(Damaged(kManifestName, [at](std::string* b) { (*b)[at] ^= 0x04; },
                        "MANIFEST byte " + std::to_string(at)));
  }
  for (size_t keep = 0; keep < size; keep += 7) {
    EXPECT_TRUE(Damaged(kManifestName, [keep](std::string* b) { b->resize(keep); },
                        "MANIFEST truncated to " + std::to_string(keep)));
  }
}

TEST_F(CorruptionTest, MissingFileIsAnError) {
  for (const auto& name : Files(".tab")) {
    testing::TempDir copy;
    for (const auto& e : fs::directory_iterator(pristine_.path())) {
      if (e.path().filename() != name) {
        fs::copy_file(e.path(), copy.path() + "/" + e.path().filename().string());
      }
    }
    Answers got = Ask(copy.path());
    ASSERT_FALSE(got.status.ok());
    EXPECT_NE(got.status.message().find(name), std::string::npos) << got.status.ToString();
  }
}

}  // namespace
}  // namespace dps
