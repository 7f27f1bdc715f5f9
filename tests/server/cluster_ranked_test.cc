// Ranked queries (protocol 4) through a cluster's hard cases: the answer of
// a failover, of a hedge whose replica answers bins the first server also
// answered (each bin once, no document twice), of a deadline (a partial
// top-K: the best of what came, flagged), and of servers that send
// unscored or misordered results (their fault: the replica answers). The
// reference is the in-process searcher over the same index, to the bit.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <thread>

#include "query/coordinator.h"
#include "tests/server/cluster_fixture.h"

namespace dps {
namespace {

using namespace cluster_testing;

struct RankedDoc {
  std::string id;
  double score = 0;
  uint32_t bin = 0;
  bool operator==(const RankedDoc&) const = default;
};

struct RankedAnswer {
  std::vector<RankedDoc> docs;
  SearchStats stats;
  Status status;
  double ms = 0;
};

RankedAnswer AskRanked(Searcher* searcher, const QueryNode& q, size_t k, size_t offset = 0) {
  RankedAnswer a;
  SearchOptions options;
  options.top_k = k;
  options.offset = offset;
  options.fetch = Fetch::kIdsAndTitles;
  const auto t0 = Clock::now();
  a.status = searcher->Run(q, options, [&](const BinResult& b) {
    EXPECT_EQ(b.scores.size(), b.docs.size());
    for (size_t i = 0; i < b.docs.size(); ++i) a.docs.push_back({b.stored[i].id, b.scores[i], b.bin.value});
    return true;
  }, &a.stats);
  a.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::set<std::string> ids;
  for (const auto& d : a.docs) EXPECT_TRUE(ids.insert(d.id).second) << "duplicate " << d.id;
  return a;
}

// An OR of frequent terms: most documents match, in every bin.
QueryNode Broad() {
  return QueryNode::Or({QueryNode::Term(testing::VocabTerm(0)), QueryNode::Term(testing::VocabTerm(1)),
                        QueryNode::Term(testing::VocabTerm(5))});
}

TEST(ClusterRanked, FailoverAfterAServerDiesMidQueryGivesTheSameRanking) {
  Fixture f(21);
  Coordinator local(f.index.get(), CoordinatorOptions{1});
  ServerOptions stalled;
  stalled.delays = {DelayRule{-1, 1.0, kStallMs, 0}};
  auto primary = f.Serve(0, 3, stalled);
  auto replica = f.Serve(0, 3);
  auto client = Client({{0, 3, {Addr(primary->port()), Addr(replica->port())}}});
  ASSERT_NE(client, nullptr);
  std::thread killer([&] {
    const auto until = Clock::now() + std::chrono::seconds(60);
    while (primary->counters().queries == 0 && Clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    primary->Stop();
  });
  const RankedAnswer a = AskRanked(client.get(), Broad(), 25, 3);
  killer.join();
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_EQ(a.stats.failovers, 1u);
  EXPECT_FALSE(a.stats.partial);
  const RankedAnswer want = AskRanked(&local, Broad(), 25, 3);
  ASSERT_EQ(want.docs.size(), 25u);
  EXPECT_EQ(a.docs, want.docs);
  EXPECT_EQ(a.stats.skipped, 3u);
}

TEST(ClusterRanked, HedgedBinsAnsweredTwiceCountOnce) {
  Fixture f(22);
  Coordinator local(f.index.get(), CoordinatorOptions{1});
  // The first server answers tablets 0-2 after 100 ms and stalls on 3; the
  // hedge (after 20 ms, nothing complete yet) asks the replica for all
  // four, which answers 3 at once and 0-2 after 250 ms: bins 0-2 come from
  // both, and only the first answer of each may count.
  ServerOptions first_opts, replica_opts;
  for (int64_t t = 0; t < 3; ++t) {
    first_opts.delays.push_back(DelayRule{t, 1.0, 100, 0});
    replica_opts.delays.push_back(DelayRule{t, 1.0, 250, 0});
  }
  first_opts.delays.push_back(DelayRule{3, 1.0, kStallMs, 0});
  auto first = f.Serve(0, 3, first_opts);
  auto replica = f.Serve(0, 3, replica_opts);
  ClusterOptions o;
  o.hedge_after_ms = 20;
  auto client = Client({{0, 3, {Addr(first->port()), Addr(replica->port())}}}, o);
  ASSERT_NE(client, nullptr);
  const RankedAnswer a = AskRanked(client.get(), Broad(), 40);
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_EQ(a.stats.hedged, 1u);
  EXPECT_EQ(a.stats.requests, 2u);
  EXPECT_FALSE(a.stats.partial);
  std::set<uint32_t> bins;
  for (const auto& b : a.stats.bins) EXPECT_TRUE(bins.insert(b.bin).second) << "bin " << b.bin << " counted twice";
  EXPECT_EQ(bins.size(), 8u);
  EXPECT_GE(a.ms, 250) << "the replica's bins 0-2 cannot have arrived yet: the test did not hedge as meant";
  EXPECT_LT(a.ms, kStallMs);
  EXPECT_EQ(a.docs, AskRanked(&local, Broad(), 40).docs);
}

TEST(ClusterRanked, DeadlineGivesThePartialTopKOfWhatArrived) {
  Fixture f(23);
  Coordinator local(f.index.get(), CoordinatorOptions{1});
  ServerOptions slow;
  slow.delays = {DelayRule{0, 1.0, kStallMs, 0}};  // tablet 0 stalls
  auto s1 = f.Serve(0, 1, slow);
  auto s2 = f.Serve(2, 3);
  ClusterOptions o;
  o.deadline_ms = 1500;
  auto client = Client({{0, 1, {Addr(s1->port())}}, {2, 3, {Addr(s2->port())}}}, o);
  ASSERT_NE(client, nullptr);
  const size_t k = 30;
  const RankedAnswer a = AskRanked(client.get(), Broad(), k);
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_TRUE(a.stats.partial);
  EXPECT_EQ(a.stats.missing, std::vector<std::string>{"0-1"});
  EXPECT_GE(a.ms, o.deadline_ms);
  EXPECT_LT(a.ms, kStallMs);
  // The K best of the bins that answered, exactly: the full ranking with
  // the missing bins' documents taken out.
  std::set<uint32_t> answered;
  for (const auto& b : a.stats.bins) {
    EXPECT_NE(b.tablet, 0u);
    answered.insert(b.bin);
  }
  ASSERT_FALSE(answered.empty());
  std::vector<RankedDoc> want;
  for (const auto& d : AskRanked(&local, Broad(), 100000).docs) {
    if (answered.count(d.bin) && want.size() < k) want.push_back(d);
  }
  ASSERT_EQ(want.size(), k);
  EXPECT_EQ(a.docs, want);
}

// Frames a fake server sends for request 1 (the first query of a fresh
// client) on bin 0 of tablet 0.
std::string ScoredFrames(std::vector<std::vector<std::pair<DocId, double>>> frames, bool scored) {
  std::string out;
  for (const auto& docs : frames) {
    ResultBatch b{1, 0, 0, false, {}, scored};
    for (auto [docid, score] : docs) b.docs.push_back({docid, "fake", "", "", score});
    EncodeResults(b, &out);
  }
  EncodeBinStats({1, 0, 0, 2, 0, 0, 0, false, false, false, false}, &out);
  EncodeDone({1, DoneCode::kOk, ""}, &out);
  return out;
}

TEST(ClusterRanked, UnscoredOrMisorderedResultsAreTheServersFault) {
  Fixture f(24);
  Coordinator local(f.index.get(), CoordinatorOptions{1});
  const auto want = AskRanked(&local, Broad(), 10);
  ASSERT_EQ(want.docs.size(), 10u);
  auto real = f.Serve(0, 3);
  // Each frame in order, but the second ranks before the first's end.
  const std::string misordered = ScoredFrames({{{5, 1.0}}, {{6, 2.0}}}, true);
  const std::string unscored = ScoredFrames({{{5, 0}, {6, 0}}}, false);
  for (const auto& [name, frames] : {std::make_pair("misordered", misordered), std::make_pair("unscored", unscored)}) {
    SCOPED_TRACE(name);
    FakeServer liar(*f.index, frames);
    auto client = Client({{0, 3, {Addr(liar.port()), Addr(real->port())}}});
    ASSERT_NE(client, nullptr);
    const RankedAnswer a = AskRanked(client.get(), Broad(), 10);
    ASSERT_TRUE(a.status.ok()) << a.status.ToString();
    EXPECT_EQ(a.stats.failovers, 1u);
    EXPECT_FALSE(a.stats.partial);
    EXPECT_EQ(a.docs, want.docs);
  }
}

// A bin's best that fill several Results frames (2,048 docs a frame):
// the frames continue each other in rank order and the whole ranking
// comes back as in-process.
TEST(ClusterRanked, BinsOfSeveralFramesKeepTheirOrder) {
  Fixture f(26, 24000);
  Coordinator local(f.index.get(), CoordinatorOptions{1});
  auto server = f.Serve(0, 3);
  auto client = Client({{0, 3, {Addr(server->port())}}});
  ASSERT_NE(client, nullptr);
  const RankedAnswer want = AskRanked(&local, Broad(), 100000);
  ASSERT_GT(want.docs.size(), 8u * 2048) << "some bin must answer in several frames";
  const RankedAnswer a = AskRanked(client.get(), Broad(), 100000);
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_EQ(a.docs, want.docs);
}

// A page far beyond the answer (--offset 10^12) is an empty page, not a
// collector sized by it (in-process, in the servers, or in the client).
TEST(ClusterRanked, PageFarBeyondTheAnswerIsEmpty) {
  Fixture f(25);
  Coordinator local(f.index.get(), CoordinatorOptions{1});
  auto server = f.Serve(0, 3);
  auto client = Client({{0, 3, {Addr(server->port())}}});
  ASSERT_NE(client, nullptr);
  const size_t matches = f.Want(Broad()).size();
  ASSERT_GT(matches, 0u);
  for (Searcher* searcher : {static_cast<Searcher*>(&local), static_cast<Searcher*>(client.get())}) {
    const RankedAnswer a = AskRanked(searcher, Broad(), 10, size_t{1} << 40);
    ASSERT_TRUE(a.status.ok()) << a.status.ToString();
    EXPECT_TRUE(a.docs.empty());
    EXPECT_EQ(a.stats.skipped, matches);
  }
  EXPECT_EQ(AskRanked(client.get(), Broad(), 10).docs, AskRanked(&local, Broad(), 10).docs) << "the server still answers";
}

}  // namespace
}  // namespace dps
