// Word positions through the real ingest pipeline: the analyzer's token
// stream (title, then text: one stream), the buffer, spill runs merged
// (tiny budgets) or not, replacements within and across ingests. The
// oracle splits title + text on spaces: the documents are lowercase ASCII
// words, which the analyzer keeps as they are. Also: --no-positions
// indexes refuse a change of kind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>

#include "index/index_writer.h"
#include "index/field_key.h"
#include "ingest/ingest.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

struct Doc {
  std::string id, title, text;
};

std::string Words(std::mt19937_64& rng, size_t n, size_t vocab) {
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    // Skewed: a few words repeat a lot (long position lists, many blocks).
    const size_t r = rng() % 3 ? rng() % 6 : rng() % vocab;
    if (!s.empty()) s += ' ';
    s.push_back('w');
    s.push_back(static_cast<char>('a' + r % 26));
    s.append(std::to_string(r / 26));
  }
  return s;
}

testing::PositionsByEntry Expected(const std::map<std::string, Doc>& live) {
  testing::PositionsByEntry want;
  for (const auto& [id, d] : live) {
    std::string stream = d.title;
    stream.push_back(' ');
    stream.append(d.text);
    uint32_t position = 0;
    size_t at = 0;
    while (at < stream.size()) {
      const size_t end = std::min(stream.find(' ', at), stream.size());
      if (end > at) {
        const std::string word = stream.substr(at, end - at);
        // The title's words are the title field's too, at the same positions.
        if (at < d.title.size()) want[{FieldKey(kTitleField, word), id}].push_back(position);
        want[{word, id}].push_back(position++);
      }
      at = end + 1;
    }
  }
  return want;
}

TEST(IngestPositions, AnalyzerPositionsSurviveBuffersRunsAndReplacements) {
  uint64_t spilled = 0, unspilled = 0;  // both paths ran
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    testing::TempDir dir;
    const std::string index = dir.path() + "/index";
    std::map<std::string, Doc> live;
    for (int round = 0; round < 3; ++round) {
      const std::string input = dir.path() + "/in" + std::to_string(round) + ".jsonl";
      std::ofstream out(input);
      const size_t n = 100 + rng() % 300;
      for (size_t i = 0; i < n; ++i) {
        Doc d{std::to_string(rng() % 400), Words(rng, rng() % 4, 300), Words(rng, rng() % 300, 2000)};
        out << "{\"id\": \"" << d.id << "\", \"title\": \"" << d.title << "\", \"text\": \"" << d.text << "\"}\n";
        live[d.id] = d;  // the last copy wins, within an ingest too
      }
      out.close();
      IngestOptions options;
      options.index.positions = true;
      options.index.fields = FieldSet({"title"});
      options.index.bins = 3;
      options.index.tablets = 2;
      options.memory_budget = rng() % 2 ? (1u << 16) : (64u << 20);  // tiny budgets spill runs
      IngestStats stats;
      const Status s = Ingest(index, {input}, options, &stats);
      ASSERT_TRUE(s.ok()) << s.ToString();
      (stats.runs > 0 ? spilled : unspilled) += 1;
      testing::PositionsByEntry got;
      const Status read = testing::ReadAllPositions(index, &got);
      ASSERT_TRUE(read.ok()) << read.ToString();
      EXPECT_TRUE(got == Expected(live)) << "round " << round;
    }
  }
  EXPECT_GT(spilled, 0u);
  EXPECT_GT(unspilled, 0u);
}

// A tablet built with more threads than tablets has its lists encoded by
// parallel tasks in batches (tablet_build.cc WriteBinLists), from the
// buffer or from spilled runs; its files are byte for byte those of the
// one-thread build, positions, fields and block impacts included.
TEST(IngestPositions, ParallelTabletBuildWritesTheSerialBuildsBytes) {
  testing::TempDir dir;
  std::mt19937_64 rng(77);
  const std::string input = dir.path() + "/in.jsonl";
  {
    std::ofstream out(input);
    for (int i = 0; i < 1500; ++i) {
      out << "{\"id\": \"" << i << "\", \"title\": \"" << Words(rng, rng() % 4, 300) << "\", \"text\": \""
          << Words(rng, rng() % 400, 3000) << "\"}\n";
    }
  }
  for (uint64_t budget : {uint64_t{64} << 20, uint64_t{1} << 18}) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    std::map<std::string, std::string> files[2];
    uint64_t runs[2] = {0, 0};
    for (int parallel = 0; parallel < 2; ++parallel) {
      const std::string index = dir.path() + "/index" + std::to_string(budget) + "-" + std::to_string(parallel);
      IngestOptions options;
      options.index.positions = true;
      options.index.fields = FieldSet({"title"});
      options.index.bins = 1;  // some 200,000 postings: several batches of the buffer's bin
      options.index.tablets = 1;
      options.threads = parallel ? 4 : 1;  // 4 > 1 tablet: lists encoded in parallel
      options.memory_budget = budget;
      IngestStats stats;
      const Status s = Ingest(index, {input}, options, &stats);
      ASSERT_TRUE(s.ok()) << s.ToString();
      runs[parallel] = stats.runs;
      for (const auto& entry : std::filesystem::directory_iterator(index)) {
        const std::string name = entry.path().filename().string();
        if (name == "MANIFEST" || name == "LOCK") continue;  // the index's id and times
        std::ifstream in(entry.path(), std::ios::binary);
        files[parallel][name] = std::string(std::istreambuf_iterator<char>(in), {});
      }
    }
    EXPECT_EQ(runs[0], runs[1]);
    EXPECT_EQ(budget < (1u << 20), runs[0] > 0) << "both paths: from the buffer and from runs";
    ASSERT_EQ(files[0].size(), files[1].size());
    for (const auto& [name, bytes] : files[0]) {
      ASSERT_TRUE(files[1].count(name)) << name;
      EXPECT_TRUE(files[1][name] == bytes) << name << " differs";
      EXPECT_GT(bytes.size(), 0u) << name;
    }
  }
}

TEST(IngestPositions, AnIndexKeepsItsKind) {
  testing::TempDir dir;
  const std::string input = dir.path() + "/in.jsonl";
  std::ofstream(input) << "{\"id\": \"a\", \"text\": \"x y\"}\n";
  for (bool positions : {true, false}) {
    std::string index = dir.path();
    index.append(positions ? "/with" : "/without");
    IngestOptions options;
    options.index.positions = positions;
    IngestStats stats;
    ASSERT_TRUE(Ingest(index, {input}, options, &stats).ok());
    options.index.positions = !positions;
    options.positions_set = true;
    const Status s = Ingest(index, {input}, options, &stats);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find(positions ? "has word positions" : "has no word positions"), std::string::npos)
        << s.ToString();
    options.positions_set = false;  // no flag: the index's own kind
    EXPECT_TRUE(Ingest(index, {input}, options, &stats).ok());
  }
}

}  // namespace
}  // namespace dps
