// Soak test of `dpsearch serve` (issue 5): one server process, 64 concurrent
// clients for SECONDS (default 30). 56 well-behaved clients run random
// queries through ClusterClient and compare every answer with the reference
// model; 8 hostile clients cycle through garbage, oversized and truncated
// frames, vanishing mid-stream, never reading, and stalling half-way
// through a header. Passes when no good answer was wrong, the server
// survived, its RSS stayed bounded (no growth from the first half of the
// run to the second beyond 25% + 16 MiB), its descriptors returned to the
// idle count, and SIGTERM stopped it cleanly.
//
// Usage: server_soak path/to/dpsearch [SECONDS]   (exit 0 = pass)
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "index/index_writer.h"
#include "query/cluster_client.h"
#include "shards/protocol.h"
#include "tests/testing/test_util.h"

extern char** environ;

namespace dps {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr size_t kVocab = 80;
constexpr int kGoodClients = 56;
constexpr int kHostileClients = 8;

int failures = 0;
void Fail(const std::string& what) {
  std::fprintf(stderr, "FAIL: %s\n", what.c_str());
  ++failures;
}

// The server process: spawned with stderr in a file, from which its port is read.
struct ServerProcess {
  pid_t pid = -1;
  uint16_t port = 0;

  bool Start(const std::string& binary, const std::string& index, const std::string& log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> args = {binary, "serve", "--index", index, "--listen", "127.0.0.1:0", "--threads", "2"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return false;
    // "dpsearch serve: DIR tablets A-B on HOST:PORT"
    for (int i = 0; i < 500 && port == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      std::ifstream in(log);
      std::string line;
      while (std::getline(in, line)) {
        const size_t on = line.find(" on 127.0.0.1:");
        if (on != std::string::npos) port = static_cast<uint16_t>(std::atoi(line.c_str() + on + 14));
      }
    }
    return port != 0;
  }

  bool Alive() const { return waitpid(pid, nullptr, WNOHANG) == 0; }

  long RssKiB() const {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string key;
    long value = -1;
    while (in >> key) {
      if (key == "VmRSS:") {
        in >> value;
        break;
      }
    }
    return value;
  }

  size_t OpenFds() const {
    size_t n = 0;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
      ++n;
    }
    return n;
  }
};

std::string HelloFrame() {
  std::string f;
  EncodeHello({kWireVersion, ""}, &f);
  return f;
}

std::string QueryFrames(uint64_t first_id, int n, const QueryNode& q) {
  std::string bytes;
  for (int i = 0; i < n; ++i) {
    QueryRequest qr;
    qr.request_id = first_id + i;
    qr.last_tablet = 3;
    qr.root = q;
    EncodeQuery(qr, &bytes);
  }
  return bytes;
}

// One round of misbehaviour; every connection is dropped at the end.
void Misbehave(uint16_t port, int mode, std::mt19937_64& rng) {
  asio::io_context io;
  tcp::socket s(io);
  boost::system::error_code ec;
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  if (ec) return;
  const QueryNode common = QueryNode::Term(testing::VocabTerm(0));
  std::string bytes;
  switch (mode) {
    case 0: {  // random garbage
      bytes.resize(1 + rng() % 4096);
      for (char& c : bytes) c = static_cast<char>(rng());
      break;
    }
    case 1:  // oversized frame announced after a valid hello
      bytes = HelloFrame() + std::string("\xff\xff\xff\x7f\x10", 5);
      break;
    case 2: {  // a query cut anywhere
      const std::string q = QueryFrames(1, 1, common);
      bytes = HelloFrame() + q.substr(0, rng() % q.size());
      break;
    }
    case 3:  // queries for many results, then gone before reading them
      bytes = HelloFrame() + QueryFrames(1, 20, common);
      break;
    case 4: {  // never reads: results pile up in the server
      s.set_option(asio::socket_base::receive_buffer_size(4096), ec);
      bytes = HelloFrame() + QueryFrames(1, 200, common);
      asio::write(s, asio::buffer(bytes), ec);
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      return;
    }
    default: {  // stalls in the middle of a frame header
      bytes = HelloFrame().substr(0, 3);
      asio::write(s, asio::buffer(bytes), ec);
      std::this_thread::sleep_for(std::chrono::milliseconds(800));
      return;
    }
  }
  asio::write(s, asio::buffer(bytes), ec);
}

int Run(const std::string& binary, int seconds) {
  testing::TempDir dir;
  std::mt19937_64 rng(20261122);
  IndexOptions options;
  options.bins = 8;
  options.tablets = 4;
  std::map<std::string, testing::ModelDoc> live;
  {
    auto writer = IndexWriter::Open(dir.path(), options);
    if (!writer.ok()) return Fail(writer.status().ToString()), 1;
    auto corpus = testing::RandomCorpus(rng, 4000, kVocab, 40);
    for (size_t i = 0; i < corpus.size(); ++i) corpus[i].id = "doc-" + std::to_string(i);
    if (Status s = (*writer)->Commit(testing::ToAnalyzed(corpus)); !s.ok()) return Fail(s.ToString()), 1;
    for (auto& d : corpus) live[d.id] = d;
  }
  ServerProcess server;
  const std::string log = dir.path() + "/serve.log";
  if (!server.Start(binary, dir.path(), log)) return Fail("server did not start (see its log)"), 1;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const size_t idle_fds = server.OpenFds();
  const std::vector<ClusterRange> ranges = {{0, 3, {"127.0.0.1:" + std::to_string(server.port)}}};

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> answered{0}, wrong{0}, errors{0}, hostile_rounds{0};
  std::mutex report_mu;
  std::vector<std::thread> threads;
  // The 56 handshakes arrive at once while the first clients already query
  // and check answers by brute force: under ASan on 2 cores the slowest took
  // 1.4-1.7 s alone and up to 3.6 s beside busy cores, against the client's
  // default 2 s. How fast a handshake is under this load is not what the soak
  // checks; that every client gets in is (a server that never answers still
  // fails it).
  ClusterOptions client_options;
  client_options.connect_timeout_ms = 30000;
  for (int c = 0; c < kGoodClients; ++c) {
    threads.emplace_back([&, c] {
      auto client = ClusterClient::Connect(ranges, client_options);
      if (!client.ok()) {
        ++errors;
        return;
      }
      std::mt19937_64 r(c);
      while (!stop) {
        const QueryNode q = testing::RandomQuery(r, kVocab);
        std::set<std::string> want;
        for (const auto& [id, d] : live) {
          if (testing::Matches(q, d.terms)) want.insert(id);
        }
        const int kind = static_cast<int>(r() % 3);  // full, count, limited
        const size_t limit = kind == 2 ? 1 + r() % 50 : 0;
        std::set<std::string> got;
        uint64_t count = 0;
        bool dup = false;
        SearchOptions options;
        options.count_only = kind == 1;
        options.limit = limit;
        Status s = (*client)->Run(q, options, [&](const BinResult& b) {
          count += b.count;
          for (const auto& d : b.stored) dup |= !got.insert(d.id).second;
          return true;
        }, nullptr);
        bool ok = s.ok() && !dup;
        if (ok && kind == 0) ok = got == want && count == want.size();
        if (ok && kind == 1) ok = count == want.size();
        if (ok && kind == 2) {
          ok = got.size() == std::min(limit, want.size());
          for (const auto& id : got) ok &= want.count(id) > 0;
        }
        if (!ok) {
          ++wrong;
          std::lock_guard<std::mutex> lock(report_mu);
          std::fprintf(stderr, "wrong answer (client %d, kind %d, status %s): got %zu/%llu, want %zu\n", c, kind,
                       s.ToString().c_str(), got.size(), static_cast<unsigned long long>(count), want.size());
        }
        ++answered;
      }
    });
  }
  for (int h = 0; h < kHostileClients; ++h) {
    threads.emplace_back([&, h] {
      std::mt19937_64 r(1000 + h);
      for (int round = 0; !stop; ++round) {
        Misbehave(server.port, (h + round) % 6, r);
        ++hostile_rounds;
      }
    });
  }

  // Sample the server's RSS twice a second.
  std::vector<long> rss;
  const auto start = Clock::now();
  while (Clock::now() - start < std::chrono::seconds(seconds)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    if (!server.Alive()) break;
    rss.push_back(server.RssKiB());
  }
  stop = true;
  for (auto& t : threads) t.join();

  if (!server.Alive()) return Fail("the server died"), 1;
  // Descriptors return to the idle count once every client is gone.
  size_t fds = server.OpenFds();
  for (int i = 0; i < 100 && fds > idle_fds; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    fds = server.OpenFds();
  }
  const size_t half = rss.size() / 2;
  long first_half = 0, second_half = 0, peak = 0;
  for (size_t i = 0; i < rss.size(); ++i) {
    (i < half ? first_half : second_half) = std::max(i < half ? first_half : second_half, rss[i]);
    peak = std::max(peak, rss[i]);
  }
  std::ostringstream series;
  for (size_t i = 0; i < rss.size(); i += 4) series << (i ? " " : "") << rss[i] / 1024;
  std::printf("soak: %d s, %d good + %d hostile clients: %llu answers (%llu wrong, %llu client errors), "
              "%llu hostile rounds\n",
              seconds, kGoodClients, kHostileClients, static_cast<unsigned long long>(answered.load()),
              static_cast<unsigned long long>(wrong.load()), static_cast<unsigned long long>(errors.load()),
              static_cast<unsigned long long>(hostile_rounds.load()));
  std::printf("server RSS MiB every 2 s: %s; peak %ld MiB, first half %ld, second half %ld; fds idle %zu, after %zu\n",
              series.str().c_str(), peak / 1024, first_half / 1024, second_half / 1024, idle_fds, fds);

  if (wrong > 0) Fail("wrong answers");
  if (errors > 0) Fail("clients could not connect");
  if (answered < static_cast<uint64_t>(kGoodClients) * 4) Fail("too few answers: the server starved clients");
  if (rss.size() < 4) Fail("too few RSS samples");
  if (second_half > first_half + first_half / 4 + 16 * 1024) Fail("server RSS kept growing (leak?)");
  if (fds > idle_fds) Fail("connections left open after every client left");

  kill(server.pid, SIGTERM);
  int status = 0;
  waitpid(server.pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) Fail("server did not exit cleanly on SIGTERM");
  if (failures) {
    std::ifstream in(log);
    std::string line;
    int shown = 0;
    while (std::getline(in, line) && shown++ < 20) std::fprintf(stderr, "serve.log: %s\n", line.c_str());
  }
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace dps

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s path/to/dpsearch [SECONDS]\n", argv[0]);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  return dps::Run(argv[1], argc > 2 ? std::atoi(argv[2]) : 30);
}
