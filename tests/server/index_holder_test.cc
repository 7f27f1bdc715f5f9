// A server's generations (issue 22): a request keeps the generation it
// started on, so a compaction deleting that generation's files under it is
// safe; at most two generations are open; the follower serves each new
// commit, skips one it cannot serve (logged once) and tries again at the
// next change; observers hear each generation served.
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <thread>

#include "common/file.h"
#include "index/query_plan.h"
#include "shards/index_follower.h"
#include "shards/index_holder.h"
#include "tests/server/live_index.h"
#include "tests/server/log_lines.h"

namespace dps {
namespace {

using namespace follow_testing;
using Clock = std::chrono::steady_clock;

std::shared_ptr<const IndexReader> Open(const std::string& dir) {
  auto r = IndexReader::Open(dir);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::shared_ptr<const IndexReader>(std::move(r).value()) : nullptr;
}

// What a server's request does with its generation: plan, run every bin
// through the executor, read the matches' ids (from the doc store).
std::map<uint32_t, std::set<std::string>> Search(const ServedGeneration& g, const QueryNode& q) {
  std::map<uint32_t, std::set<std::string>> got;
  auto plan = PlanQuery(q, g.index->global(), g.index->bins());
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  if (!plan.ok() || plan->empty) return got;
  for (BinId bin : plan->bins) {
    BinTask task;
    task.bin = bin;
    task.fetch = Fetch::kIds;
    BinResult r;
    EXPECT_TRUE(g.executor.Execute(*plan, task, &r).ok()) << "bin " << bin.value;
    for (const auto& d : r.stored) got[bin.value].insert(d.id);
  }
  return got;
}

using Log = testing::LogLines;  // a follower's lines

// Waits (up to 5 s: the follower looks every 20 ms here) for `done`.
bool WaitFor(const std::function<bool()>& done) {
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (!done()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(IndexHolder, ACompactionDeletingFilesUnderARequestIsSafe) {
  LiveIndex live(71, 300);
  const uint64_t g1 = live.Commit(100, 0);  // two files a tablet
  IndexHolder holder(Open(live.dir()));
  ASSERT_EQ(holder.newest(), g1);
  // A request in flight holds generation g1.
  std::shared_ptr<const ServedGeneration> request = holder.Current();
  const QueryNode q = QueryNode::Term(testing::VocabTerm(1));
  const auto before = Search(*request, q);
  EXPECT_EQ(before, LiveIndex::WantByBin(live.At(g1), q));
  // Replace documents, then compact every tablet: g1's files are deleted.
  live.Commit(20, 60);
  const uint64_t g3 = live.CompactAll();
  for (const auto& t : request->index->manifest().tablets) {
    for (const auto& f : t.files) EXPECT_FALSE(FileExists(live.dir() + "/" + f)) << f << " still on disk";
  }
  holder.Retire();
  ASSERT_TRUE(holder.HasRoom());
  holder.Install(Open(live.dir()));
  EXPECT_EQ(holder.newest(), g3);
  // The request still reads g1 whole, from files no longer on disk.
  EXPECT_EQ(Search(*request, q), before);
  EXPECT_EQ(Search(*holder.Current(), q), LiveIndex::WantByBin(live.At(g3), q));
  EXPECT_NE(LiveIndex::WantByBin(live.At(g3), q), before) << "the test must replace matches";
  EXPECT_EQ(holder.At(g1), request) << "g1 is still the previous generation";
  EXPECT_EQ(holder.open_generations(), 2u);
}

TEST(IndexHolder, AtMostTwoGenerationsAreOpen) {
  LiveIndex live(72, 50);
  IndexHolder holder(Open(live.dir()));
  const uint64_t g0 = holder.newest();
  std::vector<uint64_t> heard;
  holder.OnGenerationChanged([&](uint64_t g) { heard.push_back(g); });
  ASSERT_TRUE(holder.HasRoom());
  const uint64_t g1 = live.Commit(10, 0);
  holder.Install(Open(live.dir()));
  EXPECT_EQ(holder.open_generations(), 2u);
  EXPECT_FALSE(holder.HasRoom()) << "current and previous are open";
  auto request = holder.At(g0);  // a request on the previous generation
  ASSERT_NE(request, nullptr);
  holder.Retire();
  EXPECT_EQ(holder.At(g0), nullptr) << "retired: no new request takes it";
  EXPECT_FALSE(holder.HasRoom()) << "its request has not ended";
  EXPECT_EQ(holder.open_generations(), 2u);
  request.reset();
  EXPECT_TRUE(holder.HasRoom());
  EXPECT_EQ(holder.open_generations(), 1u);
  const uint64_t g2 = live.Commit(10, 0);
  holder.Install(Open(live.dir()));
  EXPECT_EQ(holder.open_generations(), 2u);
  EXPECT_EQ(heard, (std::vector<uint64_t>{g1, g2}));
  EXPECT_NE(holder.At(g1), nullptr);
  EXPECT_NE(holder.At(g2), nullptr);
}

// A request holding the oldest of two open generations delays the third:
// the follower retires it, waits for it to drain, and only then opens.
TEST(IndexFollower, AThirdGenerationWaitsForTheOldestToDrain) {
  LiveIndex live(73, 50);
  IndexHolder holder(Open(live.dir()));
  const uint64_t g0 = holder.newest();
  std::atomic<size_t> most_open{0};
  Log log;
  IndexFollower follower(&holder, FollowOptions{live.dir(), 20, log.Sink()});
  auto request = holder.Current();  // in flight on g0
  const uint64_t g1 = live.Commit(10, 0);
  ASSERT_TRUE(WaitFor([&] { return holder.newest() == g1; }));
  const uint64_t g2 = live.Commit(10, 0);
  // The follower must not open g2 while g0's request runs.
  const auto until = Clock::now() + std::chrono::milliseconds(300);
  while (Clock::now() < until) {
    most_open = std::max(most_open.load(), holder.open_generations());
    EXPECT_EQ(holder.newest(), g1);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(request->generation(), g0);
  request.reset();  // its last request ends
  ASSERT_TRUE(WaitFor([&] { return holder.newest() == g2; }));
  EXPECT_LE(most_open.load(), 2u);
  EXPECT_EQ(holder.open_generations(), 2u);
  EXPECT_EQ(log.Get(), (std::vector<std::string>{
                           "serving generation " + std::to_string(g1) + " of " + live.dir() + " (was " +
                               std::to_string(g0) + ")",
                           "serving generation " + std::to_string(g2) + " of " + live.dir() + " (was " +
                               std::to_string(g1) + ")"}));
}

TEST(IndexFollower, AGenerationItCannotServeIsLoggedOnceAndRetriedAtTheNextChange) {
  LiveIndex live(74, 50);
  LiveIndex other(75, 50);  // another index id
  IndexHolder holder(Open(live.dir()));
  const uint64_t g0 = holder.newest();
  Log log;
  IndexFollower follower(&holder, FollowOptions{live.dir(), 20, log.Sink()});
  const std::string manifest = live.dir() + "/" + kManifestName;
  auto good = ReadFileToString(manifest);
  ASSERT_TRUE(good.ok());
  // A half-written MANIFEST (not how writers replace it: they rename).
  { std::ofstream(manifest, std::ios::trunc) << good->substr(0, good->size() / 2); }
  ASSERT_TRUE(WaitFor([&] { return log.Get().size() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // several more looks: no second line
  auto lines = log.Get();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("not following " + live.dir() + ": ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("; still serving generation " + std::to_string(g0)), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find('\n'), std::string::npos);
  EXPECT_EQ(holder.newest(), g0);
  // Another index's MANIFEST: refused, named.
  auto stranger = ReadFileToString(other.dir() + "/" + kManifestName);
  ASSERT_TRUE(stranger.ok());
  ASSERT_TRUE(WriteFileAtomically(manifest, *stranger).ok());
  ASSERT_TRUE(WaitFor([&] { return log.Get().size() == 2; }));
  EXPECT_NE(log.Get()[1].find("is of another index"), std::string::npos) << log.Get()[1];
  EXPECT_EQ(holder.newest(), g0);
  // The good one back, then a real commit: followed.
  ASSERT_TRUE(WriteFileAtomically(manifest, *good).ok());
  const uint64_t g1 = live.Commit(10, 0);
  ASSERT_TRUE(WaitFor([&] { return holder.newest() == g1; })) << "the next change is tried";
  const QueryNode q = QueryNode::Term(BatchTerm(1));
  EXPECT_EQ(Search(*holder.Current(), q), LiveIndex::WantByBin(live.At(g1), q));
  EXPECT_EQ(log.Get().size(), 3u);
}

TEST(ShapeChange, OnlyTheSameIndexInTheSameLayoutMayBeFollowed) {
  Manifest a;
  a.index_id = "x";
  a.generation = 4;
  a.bins = 8;
  a.tablets = {{0, 3, {}}, {4, 7, {}}};
  Manifest b = a;
  b.generation = 5;
  EXPECT_EQ(ShapeChange(a, b), "");
  b.tablets = {{0, 1, {}}, {2, 7, {}}};
  EXPECT_EQ(ShapeChange(a, b), "has another tablet layout");
  b = a;
  b.generation = 3;
  EXPECT_EQ(ShapeChange(a, b), "is older than the generation served (4)");
  b = a;
  b.bins = 16;
  EXPECT_EQ(ShapeChange(a, b), "has 16 bins, not 8");
  b = a;
  b.positions = !a.positions;
  EXPECT_EQ(ShapeChange(a, b), "changed whether positions are indexed");
  b = a;
  b.analyzer.stem = "english";
  EXPECT_EQ(ShapeChange(a, b), "has another analyzer (icu stem=english)");
}

}  // namespace
}  // namespace dps
