// A cluster file against the servers it names, on loopback: tablets no range
// covers are refused before any query runs, or with allow_partial flag every
// answer partial; a replica of another index, or one not hosting its range,
// is warned about once and skipped (also when it is reached only during a
// query), and a range left without a usable replica is an error.
#include <gtest/gtest.h>

#include <mutex>

#include "tests/server/cluster_fixture.h"
#include "tests/server/log_lines.h"

namespace dps {
namespace {

using namespace cluster_testing;

// The client's warnings (the network thread logs some of them).
using Warnings = testing::LogLines;

// The model's matches that live in tablets [first, last].
std::set<std::string> WantIn(const Fixture& f, const QueryNode& q, uint32_t first, uint32_t last) {
  const Manifest& m = f.index->manifest();
  std::set<std::string> want;
  for (const auto& id : f.Want(q)) {
    const size_t t = m.TabletOf(BinOfId(id, m.bins).value);
    if (t >= first && t <= last) want.insert(id);
  }
  return want;
}

// `n` distinct ports nothing listens on now, for servers started later.
std::vector<uint16_t> FreedPorts(Fixture& f, size_t n) {
  std::vector<std::unique_ptr<ShardServer>> servers;
  std::vector<uint16_t> ports;
  for (size_t i = 0; i < n; ++i) {
    servers.push_back(f.Serve(0, 0));
    ports.push_back(servers.back()->port());
  }
  for (auto& s : servers) s->Stop();
  return ports;
}

TEST(ClusterConfig, UncoveredTabletsAreRefusedBeforeAnyQuery) {
  Fixture f(21);
  auto server = f.Serve(0, 3);
  auto c = ClusterClient::Connect({{0, 1, {Addr(server->port())}}}, {});
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.status().IsInvalidArgument()) << c.status().ToString();
  EXPECT_EQ(c.status().message(),
            "tablets 2-3 of index " + f.index->manifest().index_id + " (4 tablets) are not covered by any range");
  EXPECT_EQ(server->counters().queries, 0u);
}

TEST(ClusterConfig, AllowPartialFlagsEveryAnswerAndNamesTheUncoveredTablets) {
  Fixture f(22);
  auto server = f.Serve(0, 3);
  ClusterOptions o;
  o.allow_partial = true;
  auto client = Client({{1, 2, {Addr(server->port())}}}, o);
  ASSERT_NE(client, nullptr);
  std::mt19937_64 rng(3);
  size_t matched = 0;
  for (int k = 0; k < 50; ++k) {
    const QueryNode q = testing::RandomQuery(rng, kVocab);
    const auto want = WantIn(f, q, 1, 2);
    matched += want.empty() ? 0 : 1;
    for (bool count_only : {false, true}) {
      Answer a = Ask(client.get(), q, count_only);
      ASSERT_TRUE(a.status.ok()) << a.status.ToString();
      if (!count_only) {
        EXPECT_EQ(a.ids, want) << q.ToString();
      }
      EXPECT_EQ(a.count, want.size()) << q.ToString();
      EXPECT_TRUE(a.stats.partial) << "an answer without tablets 0 and 3 not flagged: " << q.ToString();
      EXPECT_EQ(a.stats.missing, (std::vector<std::string>{"0-0", "3-3"}));
    }
  }
  EXPECT_GT(matched, 10u) << "too few queries match to show anything";
}

TEST(ClusterConfig, AReplicaOfAnotherIndexIsSkippedWithOneWarning) {
  Fixture f(23), other(24);
  auto s01 = f.Serve(0, 1), s23 = f.Serve(2, 3);
  auto stranger = other.Serve(0, 3);
  Warnings w;
  ClusterOptions o;
  o.log = w.Sink();
  auto client = Client({{0, 1, {Addr(stranger->port()), Addr(s01->port())}}, {2, 3, {Addr(s23->port())}}}, o);
  ASSERT_NE(client, nullptr);
  std::mt19937_64 rng(4);
  for (int k = 0; k < 30; ++k) {
    const QueryNode q = testing::RandomQuery(rng, kVocab);
    Answer a = Ask(client.get(), q);
    ASSERT_TRUE(a.status.ok()) << a.status.ToString();
    EXPECT_EQ(a.ids, f.Want(q)) << q.ToString();
    EXPECT_FALSE(a.stats.partial);
    EXPECT_EQ(a.stats.failovers, 0u) << "the stranger was asked";
  }
  EXPECT_EQ(stranger->counters().queries, 0u);
  EXPECT_EQ(w.Get(), std::vector<std::string>{"server " + Addr(stranger->port()) +
                                              " (replica of tablets 0-1) is of another index (" +
                                              "index " + other.index->manifest().index_id +
                                              " (8 bins, 4 tablets, analyzer icu)); using the other replicas"});
}

TEST(ClusterConfig, ARangeWhoseReplicasAreAllOfAnotherIndexIsRefused) {
  Fixture f(25), other(26);
  auto s01 = f.Serve(0, 1), all = f.Serve(0, 3);
  auto stranger = other.Serve(0, 3);
  auto c = ClusterClient::Connect(
      {{0, 1, {Addr(s01->port()), Addr(all->port())}}, {2, 3, {Addr(stranger->port())}}}, {});
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.status().IsInvalidArgument());
  EXPECT_EQ(c.status().message(), "tablets 2-3 have no usable replica: " + Addr(stranger->port()) +
                                      " is of another index (index " + other.index->manifest().index_id +
                                      " (8 bins, 4 tablets, analyzer icu))");
}

TEST(ClusterConfig, AServerNotHostingItsRangeIsSkipped) {
  Fixture f(27);
  auto s01 = f.Serve(0, 1), s23 = f.Serve(2, 3);
  Warnings w;
  ClusterOptions o;
  o.log = w.Sink();
  auto client = Client({{0, 1, {Addr(s23->port()), Addr(s01->port())}}, {2, 3, {Addr(s23->port())}}}, o);
  ASSERT_NE(client, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(0));
  Answer a = Ask(client.get(), q);
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_EQ(a.ids, f.Want(q));
  EXPECT_EQ(a.stats.requests, 2u);
  EXPECT_EQ(s23->counters().queries, 1u) << "asked for a range it does not host";
  EXPECT_EQ(w.Get(), std::vector<std::string>{"server " + Addr(s23->port()) +
                                              " (replica of tablets 0-1) hosts tablets 2-3 only; using the "
                                              "other replicas"});
}

// Servers down at Connect are checked when a query reaches them.
TEST(ClusterConfig, ABadReplicaReachedOnlyDuringAQueryFailsOver) {
  Fixture f(28), other(29);
  auto s01 = f.Serve(0, 1), s23 = f.Serve(2, 3);
  const auto ports = FreedPorts(f, 2);
  const uint16_t stranger_port = ports[0], misplaced_port = ports[1];
  Warnings w;
  ClusterOptions o;
  o.log = w.Sink();
  auto client = Client({{0, 1, {Addr(stranger_port), Addr(s01->port())}},
                        {2, 3, {Addr(misplaced_port), Addr(s23->port())}}},
                       o);
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(w.Get().size(), 2u) << "the two servers down are warned about";
  ServerOptions at;
  at.port = stranger_port;
  auto stranger = other.Serve(0, 3, at);
  at.port = misplaced_port;
  auto misplaced = f.Serve(0, 1, at);  // listed for 2-3: answers Done code 1
  const QueryNode q = QueryNode::Term(testing::VocabTerm(1));
  for (int k = 0; k < 3; ++k) {
    Answer a = Ask(client.get(), q);
    ASSERT_TRUE(a.status.ok()) << a.status.ToString();
    EXPECT_EQ(a.ids, f.Want(q));
    EXPECT_FALSE(a.stats.partial);
    EXPECT_EQ(a.stats.failovers, k == 0 ? 2u : 0u) << "query " << k;
  }
  EXPECT_EQ(stranger->counters().queries, 0u);
  EXPECT_EQ(misplaced->counters().queries, 1u) << "asked again once known not to host the range";
  const auto lines = w.Get();
  ASSERT_EQ(lines.size(), 4u);
  std::set<std::string> late(lines.begin() + 2, lines.end());
  EXPECT_EQ(late, (std::set<std::string>{
                      "server " + Addr(stranger_port) + " (replica of tablets 0-1) is of another index (index " +
                          other.index->manifest().index_id + " (8 bins, 4 tablets, analyzer icu)); using the other replicas",
                      "server " + Addr(misplaced_port) +
                          " (replica of tablets 2-3) hosts tablets 0-1 only; using the other replicas"}));
}

TEST(ClusterConfig, ARangeLeftWithoutUsableReplicasDuringAQueryIsAnError) {
  Fixture f(30), other(31);
  auto s01 = f.Serve(0, 1);
  const uint16_t port = FreedPorts(f, 1)[0];
  auto client = Client({{0, 1, {Addr(s01->port())}}, {2, 3, {Addr(port)}}});
  ASSERT_NE(client, nullptr);
  ServerOptions at;
  at.port = port;
  auto stranger = other.Serve(0, 3, at);
  Answer a = Ask(client.get(), QueryNode::Term(testing::VocabTerm(0)));
  EXPECT_TRUE(a.status.IsInvalidArgument()) << a.status.ToString();
  EXPECT_EQ(a.status.message(), "tablets 2-3 have no usable replica: " + Addr(port) +
                                    " is of another index (index " + other.index->manifest().index_id +
                                    " (8 bins, 4 tablets, analyzer icu))");
}

TEST(ClusterConfig, ATieBetweenIndexesIsRefused) {
  Fixture a(1), b(2);
  auto sa = a.Serve(0, 3);
  auto sb = b.Serve(0, 3);
  auto c = ClusterClient::Connect({{0, 1, {Addr(sa->port())}}, {2, 3, {Addr(sb->port())}}}, {});
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.status().IsInvalidArgument());
  EXPECT_NE(c.status().message().find("the servers disagree on the index"), std::string::npos)
      << c.status().ToString();
}

}  // namespace
}  // namespace dps
