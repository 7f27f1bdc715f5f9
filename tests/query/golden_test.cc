// The golden index of the current format (tests/golden/v11, made once by
// tests/golden/make_golden.sh and never regenerated; its documents have a
// declared field, author) opens, checks clean and answers fixed queries
// with fixed weights, positions and field statistics; an index naming another MANIFEST, tablet or global index version
// is refused with a message naming the file and both versions
// (docs/FORMAT.md "Compatibility").
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "common/checksum.h"
#include "common/file_header.h"
#include "index/check.h"
#include "index/field_key.h"
#include "index/global_index.h"
#include "index/index_reader.h"
#include "index/paged_file.h"
#include "index/tablet_format.h"
#include "ingest/analyzer.h"
#include "query/coordinator.h"
#include "query/parser.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

namespace fs = std::filesystem;

const std::string kGoldenDir = std::string(DPS_SOURCE_DIR) + "/tests/golden";
const std::string kGoldenIndex = kGoldenDir + "/v11/index";

std::string Sorted(std::set<std::string> ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : " ") + id;
  return out;
}

TEST(Golden, CurrentVersionOpensChecksCleanAndAnswersFixedQueries) {
  auto index = IndexReader::Open(kGoldenIndex);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  EXPECT_EQ((*index)->bins(), 4u);
  EXPECT_EQ((*index)->tablet_count(), 2u);
  EXPECT_EQ((*index)->manifest().analyzer.ToString(), "icu");
  EXPECT_EQ((*index)->manifest().fields.List(), "title, author");
  CheckReport report;
  Status checked = CheckIndex(kGoldenIndex, &report);
  EXPECT_TRUE(checked.ok()) << checked.ToString();

  auto analyzer = Analyzer::Create();
  ASSERT_TRUE(analyzer.ok());
  Coordinator searcher(index->get(), CoordinatorOptions{1});
  std::ifstream expected(kGoldenDir + "/expected.tsv");
  ASSERT_TRUE(expected) << "tests/golden/expected.tsv";
  std::string line;
  size_t queries = 0;
  while (std::getline(expected, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    const std::string text = line.substr(0, tab), want = line.substr(tab + 1);
    auto root = ParseQuery(text, analyzer->get(), &(*index)->manifest().fields);
    ASSERT_TRUE(root.ok()) << text << ": " << root.status().ToString();
    std::set<std::string> ids;
    SearchOptions options;
    options.fetch = Fetch::kIdsAndTitles;
    Status s = searcher.Run(std::move(root).value(), options, [&](const BinResult& b) {
      for (const auto& d : b.stored) ids.insert(d.id);
      return true;
    }, nullptr);
    ASSERT_TRUE(s.ok()) << text << ": " << s.ToString();
    EXPECT_EQ(Sorted(ids), want) << "query " << text;
    ++queries;
  }
  EXPECT_EQ(queries, 33u);

  // Weights (tf over title + text) and stored fields of the replacement.
  std::map<std::pair<std::string, std::string>, uint32_t> want_tf = {
      {{"4", "apple"}, 3}, {{"g2", "banana"}, 2}, {{"g2", "kiwi"}, 1}, {{"g1", "apple"}, 2}};
  for (const auto& [key, tf] : want_tf) {
    const auto& [id, term] = key;
    const BinId bin = BinOfId(id, (*index)->bins());
    auto postings = (*index)->OpenTerm(bin, term);
    ASSERT_TRUE(postings.ok() && *postings != nullptr) << id << " " << term;
    bool found = false;
    for (DocId d = (*postings)->doc(); d != kEndDoc; d = (*postings)->Next()) {
      StoredDoc doc;
      ASSERT_TRUE((*index)->TabletOf(bin).GetDocument(bin, d, &doc).ok());
      if (doc.id != id) continue;
      found = true;
      EXPECT_EQ((*postings)->weight(), tf) << id << " " << term;
      if (id == "g2") {
        EXPECT_EQ(doc.title, "Banana boat, replaced");
        EXPECT_EQ(doc.text, "kiwi banana");
      }
    }
    EXPECT_TRUE(found) << id << " " << term;
  }

  // Positions: title then text, one stream.
  testing::PositionsByEntry positions;
  ASSERT_TRUE(testing::ReadAllPositions(kGoldenIndex, &positions).ok());
  const testing::PositionsByEntry want_positions = {
      {{"apple", "4"}, {2, 3, 4}}, {{"apple", "g1"}, {0, 2}}, {{"banana", "g2"}, {0, 4}}, {{"strasse", "g6"}, {0, 2}},
      // The title field: the title's words at their positions in the stream.
      {{FieldKey("title", "apple"), "g1"}, {0}}, {{FieldKey("title", "orchard"), "g1"}, {1}}, {{FieldKey("title", "replaced"), "g2"}, {2}},
      // A declared field: each value after a gap of 100 positions.
      {{FieldKey("author", "lee"), "g5"}, {0}}, {{FieldKey("author", "ann"), "g5"}, {101}}, {{FieldKey("author", "smith"), "g5"}, {102}},
      {{FieldKey("author", "ann"), "g9"}, {0}}, {{FieldKey("author", "lee"), "g9"}, {101}}, {{FieldKey("author", "cy"), "g2"}, {0}}};
  for (const auto& [key, want] : want_positions) EXPECT_EQ(positions[key], want) << key.first << " " << key.second;
  EXPECT_EQ(positions.size(), 47u);  // every entry has its positions

  // Field statistics, worked out from the corpora: every stored document
  // counts (the replaced g2 and the deleted g7 until a compaction), those
  // with a title (10, of 14 words) and those with an author (5, of 11).
  const CollectionStats& stats = (*index)->collection_stats();
  EXPECT_EQ(stats.documents, 11u);
  ASSERT_EQ(stats.field_totals.size(), 2u);
  EXPECT_EQ(stats.field_totals[0].documents, 10u);
  EXPECT_EQ(stats.field_totals[0].tokens, 14u);
  EXPECT_EQ(stats.field_totals[1].documents, 5u);
  EXPECT_EQ(stats.field_totals[1].tokens, 11u);
}

// A copy of the golden index to alter.
struct GoldenCopy {
  testing::TempDir dir;
  GoldenCopy() {
    for (const auto& e : fs::directory_iterator(kGoldenIndex)) {
      fs::copy_file(e.path(), fs::path(dir.path()) / e.path().filename());
    }
  }
  std::string path(const std::string& name) const { return dir.path() + "/" + name; }
  // Replaces a paged file by an empty one of the same kind and `version`.
  void WritePagedFile(const std::string& name, uint64_t magic, uint32_t version) const {
    fs::remove(path(name));
    auto w = PagedFileWriter::Create(path(name));
    ASSERT_TRUE(w.ok());
    std::string header;
    EncodeFileHeader({magic, version, 0}, &header);
    ASSERT_TRUE((*w)->Append(header).ok());
    ASSERT_TRUE((*w)->Finish(kFileHeaderSize, 0, version).ok());
  }
};

std::string OpenError(const std::string& dir, bool* unsupported) {
  auto index = IndexReader::Open(dir);
  *unsupported = !index.ok() && index.status().code() == Status::Code::kUnsupported;
  return index.ok() ? "opened" : index.status().ToString();
}

// Rewrites the copy's MANIFEST: `edit` changes the text before the
// checksum line, which is then recomputed.
void RewriteManifest(const GoldenCopy& copy, const std::function<void(std::string*)>& edit) {
  std::ifstream in(copy.path("MANIFEST"));
  std::stringstream all;
  all << in.rdbuf();
  std::string text = all.str();
  text = text.substr(0, text.rfind("checksum "));
  edit(&text);
  char sum[32];
  std::snprintf(sum, sizeof sum, "checksum %016" PRIx64 "\n", StableHash64(text));
  std::ofstream(copy.path("MANIFEST"), std::ios::trunc) << text << sum;
}

void Replace(std::string* text, const std::string& from, const std::string& to) {
  const size_t at = text->find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text->replace(at, from.size(), to);
}

TEST(Golden, NewerManifestVersionIsRefusedNamingBoth) {
  GoldenCopy copy;
  RewriteManifest(copy, [](std::string* text) {
    ASSERT_EQ(text->rfind("dpsearch-manifest 3\n", 0), 0u);
    Replace(text, "dpsearch-manifest 3", "dpsearch-manifest 4");
  });
  bool unsupported = false;
  const std::string error = OpenError(copy.dir.path(), &unsupported);
  EXPECT_TRUE(unsupported) << error;
  EXPECT_NE(error.find("MANIFEST version 4"), std::string::npos) << error;
  EXPECT_NE(error.find("reads 3"), std::string::npos) << error;
}

// Older MANIFESTs as their builds wrote them are refused: re-ingest.
// Version 1 had no analyzer line (its terms are the icu analyzer's) and
// version 2 no fields line (its tablet files have no field lengths).
TEST(Golden, OlderManifestVersionsAreRefusedAskingForReingest) {
  for (const int version : {1, 2}) {
    GoldenCopy copy;
    RewriteManifest(copy, [version](std::string* text) {
      Replace(text, "dpsearch-manifest 3", "dpsearch-manifest " + std::to_string(version));
      if (version == 1) Replace(text, "analyzer icu\n", "");
      Replace(text, "fields title author\n", "");
    });
    bool unsupported = false;
    const std::string error = OpenError(copy.dir.path(), &unsupported);
    EXPECT_TRUE(unsupported) << error;
    EXPECT_NE(error.find("MANIFEST version " + std::to_string(version) + " (this build reads 3); re-ingest"),
              std::string::npos)
        << error;
  }
}

// A fields line that is missing, repeats or misnames a field, or disagrees with the tablet files' length columns, is corruption.
TEST(Golden, ManifestWithoutFieldsOrWithBadOnesIsCorrupt) {
  for (const auto& [line, message] : std::vector<std::pair<std::string, std::string>>{
           {"", "fields line"},
           {"fields title author title\n", "named twice"},
           {"fields title au-thor\n", "field name 'au-thor'"},
           {"fields title\n", "2 field length columns, the index 1 fields"},
           {"fields\n", "2 field length columns, the index 0 fields"},
           {"fields title author tags\n", "2 field length columns, the index 3 fields"}}) {
    GoldenCopy copy;
    RewriteManifest(copy, [&](std::string* text) { Replace(text, "fields title author\n", line); });
    auto index = IndexReader::Open(copy.dir.path());
    ASSERT_FALSE(index.ok()) << line;
    EXPECT_TRUE(index.status().IsCorruption()) << index.status().ToString();
    EXPECT_NE(index.status().ToString().find(message), std::string::npos) << index.status().ToString();
  }
}

TEST(Golden, ManifestWithoutAnalyzerOrWithABadOneIsCorrupt) {
  for (const std::string& line : {std::string(), std::string("analyzer icu stem=\n"),
                                  std::string("analyzer whitespace fold-accents\n"),
                                  std::string("analyzer snowball\n")}) {
    GoldenCopy copy;
    RewriteManifest(copy, [&](std::string* text) { Replace(text, "analyzer icu\n", line); });
    auto index = IndexReader::Open(copy.dir.path());
    ASSERT_FALSE(index.ok()) << line;
    EXPECT_TRUE(index.status().IsCorruption()) << index.status().ToString();
    EXPECT_NE(index.status().ToString().find(line.empty() ? "analyzer line" : "analyzer '"), std::string::npos)
        << index.status().ToString();
  }
}

TEST(Golden, OtherTabletVersionIsRefusedNamingFileAndBoth) {
  GoldenCopy copy;
  copy.WritePagedFile("000009.tab", kTabletMagic, kTabletFormatVersion - 1);
  bool unsupported = false;
  const std::string error = OpenError(copy.dir.path(), &unsupported);
  EXPECT_TRUE(unsupported) << error;
  EXPECT_NE(error.find("000009.tab"), std::string::npos) << error;
  EXPECT_NE(error.find("tablet format version " + std::to_string(kTabletFormatVersion - 1)), std::string::npos)
      << error;
  EXPECT_NE(error.find("reads " + std::to_string(kTabletFormatVersion)), std::string::npos) << error;
}

TEST(Golden, OtherGlobalIndexVersionIsRefusedNamingFileAndBoth) {
  GoldenCopy copy;
  copy.WritePagedFile("000010.gix", kGlobalIndexMagic, kGlobalIndexVersion + 1);
  bool unsupported = false;
  const std::string error = OpenError(copy.dir.path(), &unsupported);
  EXPECT_TRUE(unsupported) << error;
  EXPECT_NE(error.find("000010.gix"), std::string::npos) << error;
  EXPECT_NE(error.find("global index version " + std::to_string(kGlobalIndexVersion + 1)), std::string::npos)
      << error;
  EXPECT_NE(error.find("reads " + std::to_string(kGlobalIndexVersion)), std::string::npos) << error;
}

}  // namespace
}  // namespace dps
