// Shard servers and the cluster coordinator on loopback: results equal the
// brute-force reference; a dead, hanging, slow or garbage-speaking server is
// survived (failover, deadline, hedging); malformed traffic closes only the
// offending connection.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "shards/protocol.h"
#include "tests/server/cluster_fixture.h"

namespace dps {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace cluster_testing;

TEST(Cluster, MatchesBruteForceWithCountsAndLimits) {
  Fixture f(11);
  auto s1 = f.Serve(0, 1);
  auto s2 = f.Serve(2, 3);
  auto client = Client({{0, 1, {Addr(s1->port())}}, {2, 3, {Addr(s2->port())}}});
  ASSERT_NE(client, nullptr);
  std::mt19937_64 rng(5);
  for (int k = 0; k < 200; ++k) {
    const QueryNode q = testing::RandomQuery(rng, kVocab);
    const auto want = f.Want(q);
    Answer a = Ask(client.get(), q);
    ASSERT_TRUE(a.status.ok()) << a.status.ToString();
    ASSERT_EQ(a.ids, want) << q.ToString();
    ASSERT_EQ(a.count, want.size());
    EXPECT_FALSE(a.stats.partial);
    Answer c = Ask(client.get(), q, /*count_only=*/true);
    ASSERT_EQ(c.count, want.size()) << q.ToString();
    EXPECT_TRUE(c.ids.empty());
    if (want.size() >= 3) {
      Answer l = Ask(client.get(), q, false, 2);
      EXPECT_EQ(l.count, 2u);
      for (const auto& id : l.ids) EXPECT_TRUE(want.count(id));
    }
  }
  // A query every server refuses is an error, not an empty answer.
  QueryNode only_not = QueryNode::And({QueryNode::Term("t1", true)});
  EXPECT_TRUE(Ask(client.get(), only_not).status.IsInvalidArgument());
}

TEST(Cluster, TokenIsRequiredWhenConfigured) {
  Fixture f(3);
  ServerOptions o;
  o.token = "s3cret";
  auto s = f.Serve(0, 3, o);
  EXPECT_FALSE(ClusterClient::Connect({{0, 3, {Addr(s->port())}}}, {}).ok());
  ClusterOptions good;
  good.token = "s3cret";
  auto c = Client({{0, 3, {Addr(s->port())}}}, good);
  ASSERT_NE(c, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(0));
  EXPECT_EQ(Ask(c.get(), q).ids, f.Want(q));
}

TEST(Cluster, FailsOverToAReplicaWhenAServerDies) {
  Fixture f(4);
  auto primary = f.Serve(0, 3);
  auto replica = f.Serve(0, 3);
  auto client = Client({{0, 1, {Addr(primary->port()), Addr(replica->port())}},
                        {2, 3, {Addr(primary->port()), Addr(replica->port())}}});
  ASSERT_NE(client, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(1));
  EXPECT_EQ(Ask(client.get(), q).ids, f.Want(q));
  primary->Stop();  // dead before the next query
  Answer a = Ask(client.get(), q);
  EXPECT_EQ(a.ids, f.Want(q));
  EXPECT_GE(a.stats.failovers, 1u);
  EXPECT_FALSE(a.stats.partial);
}

TEST(Cluster, ServerKilledMidQueryFailsOver) {
  Fixture f(5);
  ServerOptions stalled;
  stalled.delays = {DelayRule{-1, 1.0, kStallMs, 0}};  // every tablet: the primary cannot answer first
  auto primary = f.Serve(0, 3, stalled);
  auto replica = f.Serve(0, 3);
  auto client = Client({{0, 3, {Addr(primary->port()), Addr(replica->port())}}});
  ASSERT_NE(client, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(2));
  // Killed once it holds the query, whatever the machine's speed.
  std::thread killer([&] {
    const auto until = Clock::now() + std::chrono::seconds(60);
    while (primary->counters().queries == 0 && Clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    primary->Stop();
  });
  Answer a = Ask(client.get(), q);
  killer.join();
  EXPECT_EQ(primary->counters().queries, 1u) << "the primary was killed before it had the query";
  EXPECT_EQ(a.ids, f.Want(q));
  EXPECT_FALSE(a.stats.partial);
  EXPECT_EQ(a.stats.failovers, 1u);
  EXPECT_EQ(a.stats.requests, 2u);
  EXPECT_EQ(replica->counters().queries, 1u);
  EXPECT_LT(a.ms, kStallMs) << "the answer waited for the killed server's stall";
}

TEST(Cluster, DeadlineReturnsPartialResultsNamingMissingTablets) {
  Fixture f(6);
  ServerOptions slow;
  slow.delays = {DelayRule{0, 1.0, kStallMs, 0}};  // tablet 0 stalls
  auto s1 = f.Serve(0, 1, slow);
  auto s2 = f.Serve(2, 3);
  ClusterOptions o;
  o.deadline_ms = 3000;  // ample for every tablet but 0, a tenth of its stall
  auto client = Client({{0, 1, {Addr(s1->port())}}, {2, 3, {Addr(s2->port())}}}, o);
  ASSERT_NE(client, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(0));
  Answer a = Ask(client.get(), q);
  ASSERT_TRUE(a.status.ok());
  EXPECT_TRUE(a.stats.partial);
  ASSERT_EQ(a.stats.missing.size(), 1u);
  EXPECT_EQ(a.stats.missing[0], "0-1");
  // Range 0-1 cannot complete before the stall ends: only the deadline can
  // have ended the wait, and not before it passed.
  EXPECT_GE(a.ms, o.deadline_ms) << "a partial answer before the deadline";
  EXPECT_LT(a.ms, kStallMs) << "the deadline did not cut the wait";
  // What arrived is part of the answer, and nothing of the stalled tablet 0
  // (tablet 1, on the same server, may have made it in time) ...
  const auto want = f.Want(q);
  for (const auto& id : a.ids) EXPECT_TRUE(want.count(id));
  for (const auto& b : a.stats.bins) EXPECT_NE(b.tablet, 0u);
  // ... and all of tablets 2-3, which had the whole deadline to answer.
  ClusterOptions partial;
  partial.allow_partial = true;
  auto fast_only = Client({{2, 3, {Addr(s2->port())}}}, partial);
  ASSERT_NE(fast_only, nullptr);
  const Answer fast = Ask(fast_only.get(), q);
  ASSERT_TRUE(fast.status.ok());
  EXPECT_EQ(fast.stats.missing, std::vector<std::string>{"0-1"});
  ASSERT_FALSE(fast.ids.empty());
  for (const auto& id : fast.ids) EXPECT_TRUE(a.ids.count(id)) << id << " of tablets 2-3 is missing";
}

TEST(Cluster, HedgingBeatsASlowReplica) {
  Fixture f(7);
  ServerOptions slow;
  slow.delays = {DelayRule{-1, 1.0, kStallMs, 0}};
  auto slow_server = f.Serve(0, 3, slow);
  auto fast_server = f.Serve(0, 3);
  ClusterOptions o;
  o.hedge_after_ms = 20;
  auto client = Client({{0, 3, {Addr(slow_server->port()), Addr(fast_server->port())}}}, o);
  ASSERT_NE(client, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(3));
  const auto want = f.Want(q);
  ASSERT_FALSE(want.empty());
  Answer a = Ask(client.get(), q);
  EXPECT_EQ(a.ids, want);
  EXPECT_FALSE(a.stats.partial);
  EXPECT_EQ(a.stats.hedged, 1u);
  EXPECT_EQ(a.stats.requests, 2u);
  EXPECT_EQ(a.stats.failovers, 0u);
  EXPECT_EQ(fast_server->counters().queries, 1u);
  // The first replica stalls, so every result came through the hedge, sent
  // no sooner than hedge_after_ms; without the hedge the answer would have
  // waited out the stall.
  EXPECT_GE(a.stats.ttfr_us, o.hedge_after_ms * 1000) << "results before the hedge was sent";
  EXPECT_LT(a.ms, kStallMs) << "the hedge did not answer first";
}

TEST(Cluster, HedgeAsksOnlyForTabletsStillOwed) {
  Fixture f(8);
  // The first server stalls on tablet 1 only; the replica would stall on
  // every other tablet. A hedge asking the replica for more than tablet 1
  // would wait out a stall (the range is done only when one request is);
  // one asking only for tablet 1 does not. The hedge waits a second: tablets
  // 0, 2 and 3 answer within milliseconds.
  ServerOptions slow_on_1, slow_elsewhere;
  slow_on_1.delays = {DelayRule{1, 1.0, kStallMs, 0}};
  slow_elsewhere.delays = {DelayRule{0, 1.0, kStallMs, 0}, DelayRule{2, 1.0, kStallMs, 0},
                           DelayRule{3, 1.0, kStallMs, 0}};
  auto first = f.Serve(0, 3, slow_on_1);
  auto replica = f.Serve(0, 3, slow_elsewhere);
  ClusterOptions o;
  o.hedge_after_ms = 1000;
  auto client = Client({{0, 3, {Addr(first->port()), Addr(replica->port())}}}, o);
  ASSERT_NE(client, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(0));
  Answer a = Ask(client.get(), q);
  EXPECT_EQ(a.ids, f.Want(q));
  EXPECT_EQ(a.stats.hedged, 1u);
  EXPECT_EQ(a.stats.requests, 2u);
  EXPECT_FALSE(a.stats.partial);
  // Completion order: every bin of tablets 0, 2 and 3 (the first server)
  // before any bin of tablet 1, which only the hedge could bring.
  uint64_t tablet1_results = 0;
  bool tablet1_seen = false;
  for (const auto& b : a.stats.bins) {
    if (b.tablet == 1) {
      tablet1_seen = true;
      tablet1_results += b.results;
    } else {
      EXPECT_FALSE(tablet1_seen) << "tablet " << b.tablet << " arrived after tablet 1";
    }
  }
  ASSERT_GT(tablet1_results, 0u);
  EXPECT_EQ(a.stats.last_tablet, 1);
  EXPECT_GE(a.stats.ttlr_us, o.hedge_after_ms * 1000) << "tablet 1 arrived before the hedge was sent";
  EXPECT_LT(a.ms, kStallMs) << "the hedge asked for tablets that had already answered";
}

// ---- hostile peers ----


TEST(Server, MalformedTrafficClosesOnlyThatConnection) {
  Fixture f(8);
  auto server = f.Serve(0, 3);
  auto good = Client({{0, 3, {Addr(server->port())}}});
  ASSERT_NE(good, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(0));
  const auto want = f.Want(q);

  std::string query;
  QueryRequest qr;
  qr.request_id = 1;
  qr.last_tablet = 3;
  qr.root = q;
  EncodeQuery(qr, &query);
  std::string oversized("\xff\xff\xff\x7f\x10", 5);
  std::string zero_length("\0\0\0\0\x10", 5);
  std::string unknown_type("\x01\0\0\0\x7e", 5);
  std::string bad_payload = HelloFrame() + std::string("\x03\0\0\0\x10\x01\x02", 7);
  std::string hello_twice = HelloFrame() + HelloFrame();
  // Ranked (protocol 4) with a k1 that is no number, and with K 0.
  std::string nan_k1, zero_k;
  QueryRequest ranked = qr;
  ranked.top_k = 10;
  ranked.bm25.k1 = std::numeric_limits<double>::quiet_NaN();
  EncodeQuery(ranked, &nan_k1);
  ranked.bm25 = Bm25Params();
  EncodeQuery(ranked, &zero_k);
  zero_k[kFrameHeaderSize + 22] = 0;  // request id, flags, limit, deadline, tablets: K
  std::string wrong_magic = HelloFrame();
  wrong_magic[5] ^= 1;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"garbage", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"},
      {"oversized", HelloFrame() + oversized},
      {"zero length", zero_length},
      {"unknown type", HelloFrame() + unknown_type},
      {"query before hello", query},
      {"bad payload", bad_payload},
      {"hello twice", hello_twice},
      {"wrong magic", wrong_magic},
      {"wrong token", HelloFrame("nope")},
      {"ranked query with k1 NaN", HelloFrame() + nan_k1},
      {"ranked query with K 0", HelloFrame() + zero_k},
      {"server frame from client", HelloFrame() + [] { std::string d; EncodeDone({1, DoneCode::kOk, ""}, &d); return d; }()},
  };
  uint64_t errors = server->counters().protocol_errors;
  for (const auto& [name, bytes] : cases) {
    RawClient raw(server->port());
    raw.Send(bytes);
    EXPECT_TRUE(raw.Closed()) << name << ": connection left open";
    EXPECT_GT(server->counters().protocol_errors, errors) << name << ": not counted";
    errors = server->counters().protocol_errors;
    EXPECT_EQ(Ask(good.get(), q).ids, want) << "after " << name;
  }
  // Truncated frames and clients vanishing mid-request harm nobody.
  for (size_t cut : {size_t{3}, query.size() / 2}) {
    RawClient raw(server->port());
    raw.Send(HelloFrame() + query.substr(0, cut));
  }
  for (int i = 0; i < 20; ++i) {
    RawClient raw(server->port());
    raw.Send(HelloFrame() + query);  // and close at once, results unread
  }
  EXPECT_EQ(Ask(good.get(), q).ids, want);
}

TEST(Server, ClientThatNeverReadsIsCutOff) {
  Fixture f(9, 3000);
  ServerOptions o;
  o.max_unread_output = 64 << 10;
  auto server = f.Serve(0, 3, o);
  RawClient lazy(server->port());
  // Shrink the receive window so unread results pile up in the server.
  lazy.socket.set_option(asio::socket_base::receive_buffer_size(4096));
  std::string bytes = HelloFrame();
  for (uint64_t id = 1; id <= 400; ++id) {
    QueryRequest qr;
    qr.request_id = id;
    qr.last_tablet = 3;
    qr.root = QueryNode::Term(testing::VocabTerm(0));  // the commonest term
    EncodeQuery(qr, &bytes);
  }
  lazy.Send(bytes);
  const auto until = Clock::now() + std::chrono::seconds(10);
  while (server->counters().open_connections > 0 && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server->counters().open_connections, 0u) << "a client that never reads still holds output";
  auto good = Client({{0, 3, {Addr(server->port())}}});
  ASSERT_NE(good, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(1));
  EXPECT_EQ(Ask(good.get(), q).ids, f.Want(q));
}

TEST(Server, ManyConcurrentClientsAllAnsweredCorrectly) {
  Fixture f(10);
  auto server = f.Serve(0, 3);
  constexpr int kClients = 16, kQueriesEach = 100;  // a count, not a time: as many under ASan
  std::atomic<int> wrong{0}, done{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto client = ClusterClient::Connect({{0, 3, {Addr(server->port())}}}, {});
      if (!client.ok()) {
        ++wrong;
        return;
      }
      std::mt19937_64 rng(c);
      for (int k = 0; k < kQueriesEach; ++k) {
        const QueryNode q = testing::RandomQuery(rng, kVocab);
        if (Ask(client->get(), q).ids != f.Want(q)) ++wrong;
        ++done;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(done.load(), kClients * kQueriesEach);
  EXPECT_GE(server->counters().connections, uint64_t{kClients});
}

TEST(Cluster, GarbageFromAServerFailsOver) {
  Fixture f(12);
  FakeServer liar(*f.index, std::string("\x05\0\0\0\x20garbage-garbage", 20));
  auto real = f.Serve(0, 3);
  auto client = Client({{0, 3, {Addr(liar.port()), Addr(real->port())}}});
  ASSERT_NE(client, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(4));
  Answer a = Ask(client.get(), q);
  EXPECT_EQ(a.ids, f.Want(q));
  EXPECT_GE(a.stats.failovers, 1u);
}

TEST(Cluster, HangingServerIsCutByTheDeadline) {
  Fixture f(13);
  FakeServer hang(*f.index, "");  // welcomes, then never answers a query
  ClusterOptions o;
  o.deadline_ms = 150;
  auto client = Client({{0, 3, {Addr(hang.port())}}}, o);
  ASSERT_NE(client, nullptr);
  Answer a = Ask(client.get(), QueryNode::Term(testing::VocabTerm(0)));
  EXPECT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_TRUE(a.stats.partial);
  EXPECT_EQ(a.stats.missing, std::vector<std::string>{"0-3"});
  EXPECT_TRUE(a.ids.empty());
  // The server never answers: nothing but the deadline ends the wait, and
  // not before it passed. (A hang has no end; the bound is 200 deadlines.)
  EXPECT_GE(a.ms, o.deadline_ms);
  EXPECT_LT(a.ms, kStallMs) << "the deadline did not cut the wait";
}

}  // namespace
}  // namespace dps
