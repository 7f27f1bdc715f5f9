// A live cluster (issue 22): four servers follow an index that batches are
// committed to (documents replaced, tablets compacted) while clients query
// them. No error; every answer equals the in-process answer of the
// generation it reports (bin by bin when servers answer at different
// ones; a --consistent answer, ranked too, to the bit against a snapshot
// of that generation); a commit is visible within 2 s. And --consistent
// against a server that lags or never follows: it waits, or at the
// deadline flags a partial answer of the one generation.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <random>
#include <thread>

#include "query/cluster_client.h"
#include "query/coordinator.h"
#include "shards/server.h"
#include "tests/server/live_index.h"

namespace dps {
namespace {

using namespace follow_testing;
using Clock = std::chrono::steady_clock;

std::string Addr(uint16_t port) { return "127.0.0.1:" + std::to_string(port); }

std::unique_ptr<ShardServer> Serve(const std::string& dir, uint32_t first, uint32_t last, uint32_t follow_ms) {
  auto index = IndexReader::Open(dir);
  EXPECT_TRUE(index.ok()) << index.status().ToString();
  ServerOptions o;
  o.workers = 2;
  o.follow_interval_ms = follow_ms;
  o.log = [](const std::string&) {};
  auto s = ShardServer::Start(std::shared_ptr<const IndexReader>(std::move(index).value()), first, last, o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(s).value();
}

std::unique_ptr<ClusterClient> Client(std::vector<ClusterRange> ranges, bool consistent, uint32_t deadline_ms = 0) {
  ClusterOptions o;
  o.consistent = consistent;
  o.deadline_ms = deadline_ms;
  auto c = ClusterClient::Connect(std::move(ranges), o);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(c).value() : nullptr;
}

struct Answer {
  std::map<uint32_t, std::set<std::string>> by_bin;  // ids by bin
  std::vector<std::pair<std::string, double>> ranked;  // ranked: (id, score) best first
  SearchStats stats;
  Status status;
};

Answer Ask(Searcher* s, const QueryNode& q, size_t top_k = 0) {
  Answer a;
  SearchOptions options;
  options.top_k = top_k;
  options.fetch = Fetch::kIdsAndTitles;
  a.status = s->Run(q, options, [&](const BinResult& b) {
    for (size_t i = 0; i < b.stored.size(); ++i) {
      a.by_bin[b.bin.value].insert(b.stored[i].id);
      if (top_k > 0) a.ranked.emplace_back(b.stored[i].id, b.scores[i]);
    }
    return true;
  }, &a.stats);
  return a;
}

// Failures seen by the query threads (thread-safe).
struct Failures {
  std::mutex mu;
  std::vector<std::string> all;
  void Add(const std::string& f) {
    std::lock_guard<std::mutex> lock(mu);
    if (all.size() < 20) all.push_back(f);
  }
};

// An unranked answer over servers at (perhaps) different generations: each
// bin's ids are that bin's matches at one of the generations reported.
void CheckByBin(LiveIndex& live, const QueryNode& q, const Answer& a, Failures* fail) {
  std::vector<std::map<uint32_t, std::set<std::string>>> wants;
  for (uint64_t g : a.stats.generations) wants.push_back(LiveIndex::WantByBin(live.At(g), q));
  for (uint32_t bin = 0; bin < kBins; ++bin) {
    auto got = a.by_bin.count(bin) ? a.by_bin.at(bin) : std::set<std::string>();
    bool ok = false;
    for (auto& w : wants) ok = ok || (w.count(bin) ? w.at(bin) : std::set<std::string>()) == got;
    if (!ok) fail->Add(q.ToString() + ": bin " + std::to_string(bin) + " matches no generation reported");
  }
}

TEST(FollowCluster, AnswersMatchTheirGenerationWhileBatchesAreCommitted) {
  LiveIndex live(81, 400);
  // Four servers, two replicas of each half, following at the default pace.
  std::vector<std::unique_ptr<ShardServer>> servers;
  for (uint32_t i = 0; i < 4; ++i) servers.push_back(Serve(live.dir(), i < 2 ? 0 : 2, i < 2 ? 1 : 3, 250));
  const std::vector<ClusterRange> ranges = {{0, 1, {Addr(servers[0]->port()), Addr(servers[1]->port())}},
                                            {2, 3, {Addr(servers[2]->port()), Addr(servers[3]->port())}}};
  std::atomic<bool> stop{false};
  Failures fail;
  std::atomic<size_t> mixed{0}, consistent{0}, ranked{0};
  // Unranked queries, each server at its own generation.
  std::thread any([&] {
    auto client = Client(ranges, false);
    std::mt19937_64 rng(1);
    while (client && !stop) {
      const QueryNode q = testing::RandomQuery(rng, kVocab);
      const Answer a = Ask(client.get(), q);
      if (!a.status.ok() || a.stats.partial || a.stats.generations.empty()) {
        fail.Add(q.ToString() + ": " + a.status.ToString() + (a.stats.partial ? " partial" : ""));
        continue;
      }
      CheckByBin(live, q, a, &fail);
      ++mixed;
    }
  });
  // --consistent: one generation, the in-process answer at it; ranked
  // answers to the bit against a snapshot of that generation.
  std::thread one([&] {
    auto client = Client(ranges, true, 5000);
    std::mt19937_64 rng(2);
    std::map<uint64_t, std::unique_ptr<IndexReader>> snapshots;
    while (client && !stop) {
      const QueryNode q = testing::RandomQuery(rng, kVocab);
      const bool rank = rng() % 2 == 0;
      const Answer a = Ask(client.get(), q, rank ? 10 : 0);
      if (!a.status.ok() || a.stats.partial || a.stats.generations.size() != 1) {
        fail.Add("consistent " + q.ToString() + (rank ? " ranked" : "") + ": " + a.status.ToString() +
                 " generations " + std::to_string(a.stats.generations.size()) + " requests " +
                 std::to_string(a.stats.requests) + " bins " + std::to_string(a.stats.bins_visited) +
                 (a.stats.partial ? " partial" : ""));
        continue;
      }
      const uint64_t g = a.stats.generations[0];
      if (!rank) {
        if (a.by_bin != LiveIndex::WantByBin(live.At(g), q)) fail.Add("consistent " + q.ToString() + " at " + std::to_string(g));
        ++consistent;
        continue;
      }
      live.At(g);  // its snapshot is made
      auto& snap = snapshots[g];
      if (!snap) {
        auto r = IndexReader::Open(live.SnapshotDir(g));
        if (!r.ok()) {
          fail.Add("snapshot " + std::to_string(g) + ": " + r.status().ToString());
          continue;
        }
        snap = std::move(r).value();
      }
      Coordinator local(snap.get(), CoordinatorOptions{1});
      const Answer want = Ask(&local, q, 10);
      if (a.ranked != want.ranked) fail.Add("ranked " + q.ToString() + " at " + std::to_string(g) + " differs");
      ++ranked;
    }
  });
  // Batches: new documents, replaced ones, and now and then a compaction
  // that deletes files the servers have open. Each is timed until every
  // server answers with it.
  auto probe = Client(ranges, false);
  ASSERT_NE(probe, nullptr);
  std::vector<double> visible_ms;
  for (size_t k = 1; k <= 8; ++k) {
    live.Commit(30, 10);
    if (k % 3 == 0) live.CompactAll();
    const auto committed = Clock::now();
    const QueryNode fresh = QueryNode::Term(BatchTerm(k));
    const auto want = LiveIndex::WantByBin(live.At(live.generation()), fresh);
    for (;;) {
      const Answer a = Ask(probe.get(), fresh);
      if (a.status.ok() && a.by_bin == want && !a.stats.generations.empty() &&
          a.stats.generations.front() >= live.generation()) {
        break;
      }
      if (Clock::now() - committed > std::chrono::seconds(10)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    visible_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - committed).count());
    EXPECT_LT(visible_ms.back(), 2000) << "batch " << k << " visible on every server after " << visible_ms.back() << " ms";
  }
  stop = true;
  any.join();
  one.join();
  std::sort(visible_ms.begin(), visible_ms.end());
  std::printf("commit to visible on all 4 servers: median %.0f ms, max %.0f ms; answers checked: %zu mixed, %zu "
              "consistent, %zu ranked\n",
              visible_ms[visible_ms.size() / 2], visible_ms.back(), mixed.load(), consistent.load(), ranked.load());
  for (const auto& f : fail.all) ADD_FAILURE() << f;
  EXPECT_GT(mixed.load(), 0u);
  EXPECT_GT(consistent.load(), 0u);
  EXPECT_GT(ranked.load(), 0u);
}

// One server follows at once, the other not at all: a --consistent query
// asks for the newest generation, waits for the other until the deadline,
// and answers partial with the one generation; without --consistent both
// generations answer, each range its own.
TEST(FollowCluster, ConsistentWaitsForTheNewestGenerationUntilTheDeadline) {
  LiveIndex live(82, 300);
  const uint64_t g0 = live.generation();
  auto follows = Serve(live.dir(), 0, 1, 20);
  auto stays = Serve(live.dir(), 2, 3, 0);
  std::atomic<uint64_t> heard{0};
  follows->OnGenerationChanged([&](uint64_t g) { heard = g; });  // the registry's hook
  const uint64_t g1 = live.Commit(50, 50);
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (heard != g1 && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(heard.load(), g1);
  EXPECT_EQ(follows->generation(), g1);
  EXPECT_EQ(stays->generation(), g0);
  const std::vector<ClusterRange> ranges = {{0, 1, {Addr(follows->port())}}, {2, 3, {Addr(stays->port())}}};
  const QueryNode q = QueryNode::Term(testing::VocabTerm(0));

  auto any = Client(ranges, false);
  ASSERT_NE(any, nullptr);
  Answer a = Ask(any.get(), q);
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_FALSE(a.stats.partial);
  EXPECT_EQ(a.stats.generations, (std::vector<uint64_t>{g0, g1}));
  const auto want0 = LiveIndex::WantByBin(live.At(g0), q), want1 = LiveIndex::WantByBin(live.At(g1), q);
  for (uint32_t bin = 0; bin < kBins; ++bin) {
    const auto& want = bin < 4 ? want1 : want0;  // tablets 0-1 hold bins 0-3
    EXPECT_EQ(a.by_bin[bin], want.count(bin) ? want.at(bin) : std::set<std::string>()) << "bin " << bin;
  }

  auto one = Client(ranges, true, 300);
  ASSERT_NE(one, nullptr);
  const auto t0 = Clock::now();
  a = Ask(one.get(), q);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_TRUE(a.stats.partial);
  EXPECT_EQ(a.stats.missing, std::vector<std::string>{"2-3"});
  EXPECT_EQ(a.stats.generations, std::vector<uint64_t>{g1});
  EXPECT_GE(ms, 290) << "it waited for the lagging server";
  EXPECT_GT(a.stats.requests, 3u) << "the lagging range was asked again";
  for (uint32_t bin = 0; bin < 4; ++bin) {
    EXPECT_EQ(a.by_bin[bin], want1.count(bin) ? want1.at(bin) : std::set<std::string>()) << "bin " << bin;
  }
  for (uint32_t bin = 4; bin < kBins; ++bin) EXPECT_EQ(a.by_bin.count(bin), 0u) << "bin " << bin;
}

// A server that catches up within the deadline: the consistent answer is
// whole, at the newest generation.
TEST(FollowCluster, ConsistentAnswersOnceALaggingServerCatchesUp) {
  LiveIndex live(83, 300);
  auto fast = Serve(live.dir(), 0, 1, 20);
  auto slow = Serve(live.dir(), 2, 3, 1000);
  const uint64_t g1 = live.Commit(50, 50);
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (fast->generation() != g1 && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(fast->generation(), g1);
  auto one = Client({{0, 1, {Addr(fast->port())}}, {2, 3, {Addr(slow->port())}}}, true, 5000);
  ASSERT_NE(one, nullptr);
  const QueryNode q = QueryNode::Term(BatchTerm(1));
  const Answer a = Ask(one.get(), q);
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_FALSE(a.stats.partial);
  EXPECT_EQ(a.stats.generations, std::vector<uint64_t>{g1});
  EXPECT_EQ(a.by_bin, LiveIndex::WantByBin(live.At(g1), q));
  EXPECT_EQ(slow->generation(), g1);
}

// The client last heard of g0; both servers have moved two generations
// on since (g0 is closed): every range answers "not at g0, serving g2",
// and the query starts again at g2 (nothing of g0 was delivered).
TEST(FollowCluster, ConsistentStartsAgainWhenTheServersHaveMovedOn) {
  LiveIndex live(84, 300);
  const uint64_t g0 = live.generation();
  auto a = Serve(live.dir(), 0, 1, 20);
  auto b = Serve(live.dir(), 2, 3, 20);
  auto one = Client({{0, 1, {Addr(a->port())}}, {2, 3, {Addr(b->port())}}}, true, 5000);
  ASSERT_NE(one, nullptr);
  auto served = [&](uint64_t g) {  // by both, one after the other: each opens every generation
    const auto until = Clock::now() + std::chrono::seconds(5);
    while ((a->generation() != g || b->generation() != g) && Clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  };
  served(live.Commit(30, 30));
  const uint64_t g2 = live.Commit(30, 30);
  served(g2);
  ASSERT_EQ(a->generation(), g2);
  ASSERT_EQ(b->generation(), g2);
  ASSERT_EQ(a->index().At(g0), nullptr) << "g0 is closed";
  for (const QueryNode& q : {QueryNode::Term(testing::VocabTerm(0)), QueryNode::Term(BatchTerm(2))}) {
    const Answer got = Ask(one.get(), q);
    ASSERT_TRUE(got.status.ok()) << got.status.ToString();
    EXPECT_FALSE(got.stats.partial);
    EXPECT_EQ(got.stats.generations, std::vector<uint64_t>{g2});
    EXPECT_EQ(got.by_bin, LiveIndex::WantByBin(live.At(g2), q)) << q.ToString();
  }
}

}  // namespace
}  // namespace dps
