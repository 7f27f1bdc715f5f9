// A server's resources are bounded before any token is checked (issue 21):
// a frame bigger than a Hello before the handshake closes the connection;
// a connection that sends no Hello in time, or stays idle, is closed (and a
// cluster client reconnects on its next query); connections past the cap
// are closed as they come; requests past the per-connection cap are
// refused with a Done frame. Good clients are answered throughout.
#include <string>
#include <vector>

#include "tests/server/cluster_fixture.h"

namespace dps {
namespace {

using namespace cluster_testing;

TEST(ServerLimits, AFrameBiggerThanAHelloBeforeTheHandshakeIsRefused) {
  Fixture f(61);
  auto server = f.Serve(0, 3);
  // A Query-sized claim (1 MiB, within the greeted limit) before Hello.
  RawClient early(server->port());
  early.Send(std::string("\x00\x00\x10\x00\x01", 5));
  EXPECT_TRUE(early.Closed());
  EXPECT_EQ(server->counters().protocol_errors, 1u);
  // After the handshake the same claim is a frame still arriving: the
  // connection waits for its bytes (memory follows what arrives).
  RawClient greeted(server->port());
  greeted.Send(HelloFrame() + std::string("\x00\x00\x10\x00\x10", 5));
  FrameType type{};
  std::string payload;
  ASSERT_TRUE(greeted.ReadFrame(&type, &payload));
  EXPECT_EQ(type, FrameType::kWelcome);
  auto good = Client({{0, 3, {Addr(server->port())}}});
  ASSERT_NE(good, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(1));
  EXPECT_EQ(Ask(good.get(), q).ids, f.Want(q));
  EXPECT_EQ(server->counters().protocol_errors, 1u);
}

TEST(ServerLimits, NoHelloInTimeAndIdleConnectionsAreClosedAndClientsReconnect) {
  Fixture f(62);
  ServerOptions o;
  o.handshake_timeout_ms = 150;
  o.idle_timeout_ms = 300;
  auto server = f.Serve(0, 3, o);
  RawClient silent(server->port());
  EXPECT_TRUE(silent.Closed());
  EXPECT_EQ(server->counters().timed_out, 1u);

  auto client = Client({{0, 3, {Addr(server->port())}}});
  ASSERT_NE(client, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(2));
  EXPECT_EQ(Ask(client.get(), q).ids, f.Want(q));
  // Idle past the limit: the server closes the client's connection...
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (server->counters().open_connections > 0 && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server->counters().open_connections, 0u);
  EXPECT_EQ(server->counters().timed_out, 2u);
  // ...and the next query reconnects and is answered whole.
  const Answer again = Ask(client.get(), q);
  EXPECT_TRUE(again.status.ok()) << again.status.ToString();
  EXPECT_EQ(again.ids, f.Want(q));
  EXPECT_FALSE(again.stats.partial);
}

TEST(ServerLimits, ConnectionsPastTheCapAreClosedAsTheyCome) {
  Fixture f(63);
  ServerOptions o;
  o.max_connections = 3;
  auto server = f.Serve(0, 3, o);
  std::vector<std::unique_ptr<RawClient>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(std::make_unique<RawClient>(server->port()));
    held.back()->Send(HelloFrame());
    FrameType type{};
    std::string payload;
    ASSERT_TRUE(held.back()->ReadFrame(&type, &payload));  // accepted and greeted
  }
  RawClient extra(server->port());
  EXPECT_TRUE(extra.Closed());
  EXPECT_EQ(server->counters().refused_connections, 1u);
  held.pop_back();  // one leaves: room for a good client
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (server->counters().open_connections > 2 && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto good = Client({{0, 3, {Addr(server->port())}}});
  ASSERT_NE(good, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(3));
  EXPECT_EQ(Ask(good.get(), q).ids, f.Want(q));
}

TEST(ServerLimits, RequestsPastThePerConnectionCapAreRefused) {
  Fixture f(64);
  ServerOptions o;
  o.max_requests_per_connection = 2;
  o.delays = {DelayRule{-1, 1.0, 300, 0}};  // requests stay in flight a while
  auto server = f.Serve(0, 3, o);
  RawClient raw(server->port());
  raw.Send(HelloFrame() + QueryFrame(1, 3) + QueryFrame(2, 3) + QueryFrame(3, 3));
  FrameType type{};
  std::string payload;
  ASSERT_TRUE(raw.ReadFrame(&type, &payload));
  ASSERT_EQ(type, FrameType::kWelcome);
  // The third is refused at once, before the first two answer.
  ASSERT_TRUE(raw.ReadFrame(&type, &payload));
  ASSERT_EQ(type, FrameType::kDone);
  Done done;
  ASSERT_TRUE(DecodeDone(payload, &done).ok());
  EXPECT_EQ(done.request_id, 3u);
  EXPECT_EQ(done.code, DoneCode::kInvalidQuery);
  EXPECT_EQ(done.message, "too many requests in flight on one connection (the server's limit is 2)");
  // The first two are answered in full.
  int finished = 0;
  while (finished < 2 && raw.ReadFrame(&type, &payload)) {
    if (type != FrameType::kDone) continue;
    ASSERT_TRUE(DecodeDone(payload, &done).ok());
    EXPECT_EQ(done.code, DoneCode::kOk);
    ++finished;
  }
  EXPECT_EQ(finished, 2);
}

// Slow readers together are bounded by the server's total of unread
// output, not only one by one: past a quarter of it no connection with
// output waiting gets more work, and none passes the whole.
TEST(ServerLimits, UnreadOutputIsBoundedOverAllConnections) {
  Fixture f(65, 3000);
  ServerOptions o;
  o.max_unread_output_total = 128 << 10;  // the per-connection limit stays 64 MiB
  o.idle_timeout_ms = 1500;
  auto server = f.Serve(0, 3, o);
  std::vector<std::unique_ptr<RawClient>> lazy;
  for (int c = 0; c < 3; ++c) {
    lazy.push_back(std::make_unique<RawClient>(server->port()));
    lazy.back()->socket.set_option(boost::asio::socket_base::receive_buffer_size(4096));
    std::string bytes = HelloFrame();
    for (uint64_t id = 1; id <= 200; ++id) bytes += QueryFrame(id, 3);
    lazy.back()->Send(bytes);
  }
  FrameType type{};
  std::string payload;
  for (auto& c : lazy) ASSERT_TRUE(c->ReadFrame(&type, &payload));  // the Welcome: accepted
  const auto until = Clock::now() + std::chrono::seconds(10);
  while (server->counters().open_connections > 0 && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server->counters().open_connections, 0u) << "slow readers were kept";
  EXPECT_GT(server->counters().unread_output_peak, 0u);
  EXPECT_LE(server->counters().unread_output_peak, o.max_unread_output_total);
  auto good = Client({{0, 3, {Addr(server->port())}}});
  ASSERT_NE(good, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(1));
  EXPECT_EQ(Ask(good.get(), q).ids, f.Want(q));
}

// Backpressure: a client that does not read gets no more work done for it
// once about 1 MiB of its answers wait, so it neither grows the server's
// output to its limit nor takes the workers; once its output has not moved
// for the idle time, it is closed.
TEST(ServerLimits, AClientThatDoesNotReadGetsNoMoreWorkAndIsThenClosed) {
  Fixture f(66, 3000);
  ServerOptions o;
  o.max_unread_output = 4 << 20;  // below what the 400 answers come to
  o.idle_timeout_ms = 1500;
  auto server = f.Serve(0, 3, o);
  RawClient lazy(server->port());
  lazy.socket.set_option(boost::asio::socket_base::receive_buffer_size(4096));
  std::string bytes = HelloFrame();
  for (uint64_t id = 1; id <= 400; ++id) bytes += QueryFrame(id, 3);
  lazy.Send(bytes);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  EXPECT_EQ(server->counters().open_connections, 1u) << "the work went on until the output limit cut it off";
  auto good = Client({{0, 3, {Addr(server->port())}}});
  ASSERT_NE(good, nullptr);
  const QueryNode q = QueryNode::Term(testing::VocabTerm(1));
  EXPECT_EQ(Ask(good.get(), q).ids, f.Want(q));
  good.reset();
  // Reading nothing (Closed() would read): the server's counters say.
  const auto until = Clock::now() + std::chrono::seconds(10);
  while (server->counters().open_connections > 0 && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server->counters().open_connections, 0u) << "a client that does not read was kept";
  EXPECT_EQ(server->counters().timed_out, 1u);
}

}  // namespace
}  // namespace dps
