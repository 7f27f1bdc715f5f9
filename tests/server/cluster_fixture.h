// Shared by the cluster tests: a random index with its reference model,
// shard servers over it on loopback, and a client asking them.
#pragma once

#include <gtest/gtest.h>

#include <utility>  // before Asio (common.md)
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <sys/socket.h>

#include <atomic>
#include <thread>

#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"
#include "query/cluster_client.h"
#include "shards/protocol.h"
#include "shards/server.h"
#include "tests/testing/test_util.h"

namespace dps::cluster_testing {

using Clock = std::chrono::steady_clock;

constexpr size_t kVocab = 60;

// An injected delay no passing test waits out: tests whose servers stall
// check what must happen long before it ends (a deadline or hedge of at most
// 3 s), so they assert order and flags, and wall time only as "sooner than
// the stall" where nothing but the stall could have made the answer late.
constexpr double kStallMs = 30000;

// A random index of 8 bins in 4 tablets, with its reference model.
struct Fixture {
  testing::TempDir dir;
  std::map<std::string, testing::ModelDoc> live;
  std::unique_ptr<IndexReader> index;

  explicit Fixture(uint64_t seed, size_t docs = 600) {
    std::mt19937_64 rng(seed);
    IndexOptions options;
    options.bins = 8;
    options.tablets = 4;
    auto writer = IndexWriter::Open(dir.path(), options);
    EXPECT_TRUE(writer.ok());
    auto corpus = testing::RandomCorpus(rng, docs, kVocab, 30);
    for (size_t i = 0; i < corpus.size(); ++i) corpus[i].id = "doc-" + std::to_string(i);
    EXPECT_TRUE((*writer)->Commit(testing::ToAnalyzed(corpus)).ok());
    for (auto& d : corpus) live[d.id] = d;
    auto r = IndexReader::Open(dir.path());
    EXPECT_TRUE(r.ok());
    index = std::move(r).value();
  }

  std::set<std::string> Want(const QueryNode& q) const {
    std::set<std::string> want;
    for (const auto& [id, d] : live) {
      if (testing::Matches(q, d.terms)) want.insert(id);
    }
    return want;
  }

  std::unique_ptr<ShardServer> Serve(uint32_t first, uint32_t last, ServerOptions o = {}) {
    o.workers = 2;
    if (!o.log) o.log = [](const std::string&) {};
    auto s = ShardServer::Start(index.get(), first, last, o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return std::move(s).value();
  }
};

inline std::string Addr(uint16_t port) { return "127.0.0.1:" + std::to_string(port); }

inline std::unique_ptr<ClusterClient> Client(std::vector<ClusterRange> ranges, ClusterOptions o = {}) {
  auto c = ClusterClient::Connect(std::move(ranges), o);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(c).value() : nullptr;
}

struct Answer {
  std::set<std::string> ids;
  uint64_t count = 0;
  SearchStats stats;
  Status status;
  double ms = 0;  // wall time of the whole Run
};

inline Answer Ask(ClusterClient* client, const QueryNode& q, bool count_only = false, size_t limit = 0) {
  Answer a;
  const auto t0 = Clock::now();
  SearchOptions options;
  options.count_only = count_only;
  options.limit = limit;
  a.status = client->Run(q, options, [&](const BinResult& b) {
    a.count += b.count;
    for (size_t i = 0; i < b.docs.size(); ++i) {
      EXPECT_TRUE(i == 0 || b.docs[i] > b.docs[i - 1]) << "docid order within a bin";
      EXPECT_TRUE(a.ids.insert(b.stored[i].id).second) << "duplicate " << b.stored[i].id;
    }
    return true;
  }, &a.stats);
  a.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return a;
}

// A fake server: answers Hello with a copy of a real server's Welcome, then
// `after_welcome` (garbage, or nothing at all).
class FakeServer {
 public:
  FakeServer(const IndexReader& index, std::string after_welcome, bool answer_hello = true)
      : acceptor_(io_, boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)) {
    const Manifest& m = index.manifest();
    EncodeWelcome({kWireVersion, m.index_id, m.generation, m.bins,
                   static_cast<uint32_t>(m.tablets.size()), 0, static_cast<uint32_t>(m.tablets.size() - 1), m.analyzer,
                   m.fields},
                  &welcome_);
    thread_ = std::thread([this, after_welcome, answer_hello] {
      boost::system::error_code ec;
      while (!stop_) {
        boost::asio::ip::tcp::socket s(io_);
        acceptor_.accept(s, ec);
        if (ec || stop_) break;
        char header[kFrameHeaderSize + 64];
        s.read_some(boost::asio::buffer(header), ec);  // the Hello
        if (answer_hello) boost::asio::write(s, boost::asio::buffer(welcome_), ec);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the Query arrives
        boost::asio::write(s, boost::asio::buffer(after_welcome), ec);
        sockets_.push_back(std::move(s));  // hold it open: hanging is the point
      }
    });
  }
  ~FakeServer() {
    stop_ = true;
    boost::system::error_code ec;
    boost::asio::ip::tcp::socket poke(io_);
    poke.connect(acceptor_.local_endpoint(), ec);
    thread_.join();
  }
  uint16_t port() const { return acceptor_.local_endpoint().port(); }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::string welcome_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::vector<boost::asio::ip::tcp::socket> sockets_;
};

// A raw connection for sending arbitrary bytes.
struct RawClient {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket{io};
  explicit RawClient(uint16_t port) { socket.connect(boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port)); }
  void Send(const std::string& bytes) { boost::asio::write(socket, boost::asio::buffer(bytes)); }
  // The next frame from the server within ten seconds; false on a timeout
  // or a closed connection.
  bool ReadFrame(FrameType* type, std::string* payload) {
    socket.non_blocking(false);
    struct timeval tv = {10, 0};
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    uint8_t header[kFrameHeaderSize];
    boost::system::error_code ec;
    boost::asio::read(socket, boost::asio::buffer(header), ec);
    uint32_t len = 0;
    if (ec || !DecodeFrameHeader(header, &len, type).ok()) return false;
    payload->resize(len);
    boost::asio::read(socket, boost::asio::buffer(*payload), ec);
    return !ec;
  }
  // True when the server closed the connection (read hits EOF or reset)
  // within ten seconds (a bound only a connection left open waits out).
  bool Closed() {
    socket.non_blocking(false);
    struct timeval tv = {10, 0};
    setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[4096];
    boost::system::error_code ec;
    for (;;) {
      socket.read_some(boost::asio::buffer(buf), ec);
      if (ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset) return true;
      if (ec) return false;  // timeout: still open
    }
  }
};

inline std::string HelloFrame(const std::string& token = "") {
  std::string f;
  EncodeHello({kWireVersion, token}, &f);
  return f;
}

// A Query frame for tablets 0..last_tablet (the most common term by default).
inline std::string QueryFrame(uint64_t id, uint32_t last_tablet,
                              QueryNode root = QueryNode::Term(testing::VocabTerm(0))) {
  QueryRequest q;
  q.request_id = id;
  q.last_tablet = last_tablet;
  q.root = std::move(root);
  std::string frame;
  EncodeQuery(q, &frame);
  return frame;
}

}  // namespace dps::cluster_testing
