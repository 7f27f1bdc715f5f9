// `dpsearch serve`: a shard server for a tablet range of an index.
#include <signal.h>
#include <sys/resource.h>

#include <charconv>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cluster/membership.h"
#include "cli/validators.h"
#include "common/file.h"
#include "index/index_reader.h"
#include "shards/protocol.h"
#include "shards/server.h"

namespace dps::cli {

namespace {

// "3", "0-7" or spans "0-1,6-7" (ascending, disjoint); empty means every
// tablet. *first and *last: the span covering them all (what the server
// opens and its Welcome says); *spans: the spans themselves (what a
// ZooKeeper node advertises, docs/PROTOCOL.md "Server node").
Status ParseTabletRange(const std::string& text, size_t tablets, uint32_t* first, uint32_t* last,
                        std::vector<TabletSpan>* spans) {
  spans->clear();
  if (text.empty()) {
    *first = 0;
    *last = static_cast<uint32_t>(tablets - 1);
    spans->push_back(TabletSpan{*first, *last});
    return Status::OK();
  }
  const auto bad = [&] {
    return Status::InvalidArgument("--tablets " + text + ": expected N, FIRST-LAST or spans (0-1,6-7)");
  };
  const char* p = text.data();
  const char* const end = p + text.size();
  while (true) {
    unsigned long a = 0, b = 0;
    auto r = std::from_chars(p, end, a);
    if (r.ec != std::errc() || r.ptr == p) return bad();
    p = r.ptr;
    b = a;
    if (p != end && *p == '-') {
      r = std::from_chars(p + 1, end, b);
      if (r.ec != std::errc() || r.ptr == p + 1) return bad();
      p = r.ptr;
    }
    if (a > b || b >= tablets) {
      return Status::InvalidArgument("--tablets " + text + ": the index has tablets 0-" +
                                     std::to_string(tablets - 1));
    }
    if (!spans->empty() && a <= spans->back().last) {
      return Status::InvalidArgument("--tablets " + text + ": spans must be ascending and disjoint");
    }
    spans->push_back(TabletSpan{static_cast<uint32_t>(a), static_cast<uint32_t>(b)});
    if (p == end) break;
    if (*p != ',' || p + 1 == end) return bad();
    ++p;
  }
  *first = spans->front().first;
  *last = spans->back().last;
  return Status::OK();
}

Status ParseListen(const std::string& text, ServerOptions* o) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return Status::InvalidArgument("--listen " + text + ": expected HOST:PORT");
  o->host = text.substr(0, colon);
  if (o->host.size() >= 2 && o->host.front() == '[' && o->host.back() == ']') {
    o->host = o->host.substr(1, o->host.size() - 2);
  }
  char* end = nullptr;
  const unsigned long port = std::strtoul(text.c_str() + colon + 1, &end, 10);
  if (end == text.c_str() + colon + 1 || *end != '\0' || port > 65535) {
    return Status::InvalidArgument("--listen " + text + ": bad port");
  }
  o->port = static_cast<uint16_t>(port);
  return Status::OK();
}

}  // namespace

Result<std::string> ReadTokenFile(const std::string& path) {
  auto read = ReadFileToString(path);
  // The token file is the user's input: a missing one is a usage error (2).
  if (!read.ok()) return Status::InvalidArgument("--token-file " + read.status().message());
  std::string token = std::move(read).value();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  if (token.empty()) return Status::InvalidArgument(path + ": empty token file");
  if (token.size() > kMaxTokenBytes) {
    return Status::InvalidArgument(path + ": a token of " + std::to_string(token.size()) + " bytes (at most " +
                                   std::to_string(kMaxTokenBytes) + ")");
  }
  return token;
}

namespace {
// What clients connect to: the listening host and the port bound (the
// real one when --listen asked for port 0), IPv6 in brackets.
std::string AdvertisedAddress(const std::string& host, uint16_t port) {
  const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

// Each connection is a descriptor: raise the soft limit to the hard one
// (Debian's soft default, 1,024, is below --max-connections' default plus
// the index's files), and refuse a connection cap the system cannot give.
Status RaiseDescriptorLimit(size_t max_connections) {
  constexpr rlim_t kSpare = 128;  // index files, the listener, the client side of tests
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return Status::OK();
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
    ::getrlimit(RLIMIT_NOFILE, &limit);
  }
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < max_connections + kSpare) {
    return Status::InvalidArgument("--max-connections " + std::to_string(max_connections) + " needs " +
                                   std::to_string(max_connections + kSpare) + " file descriptors; this process may open " +
                                   std::to_string(limit.rlim_cur) + " (ulimit -n)");
  }
  return Status::OK();
}
}  // namespace

void RegisterServe(CLI::App& app) {
  struct Args {
    std::string index, tablets, listen = "127.0.0.1:7701", token_file, zookeeper;
    uint32_t zookeeper_session_ms = 10'000;
    bool assign = false;
    uint32_t replicas = 0;
    std::vector<std::string> delays;
    unsigned threads = 0;
    ServerOptions limits;  // the resource limits' flags land here
    uint32_t follow_ms = 250;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve tablets of an index to query coordinators (docs/PROTOCOL.md)");
  cmd->add_option("--index", a->index, "Index directory")
      ->type_name("DIR")->required();
  cmd->add_option("--tablets", a->tablets, "Tablets to serve: N, FIRST-LAST, or spans (0-1,6-7: the server opens 0-7, and "
                  "with --zookeeper advertises only the spans)")->type_name("N|A-B[,C-D...]")->default_str("all");
  cmd->add_option("--listen", a->listen, "HOST:PORT to listen on (port 0 picks a free one)")
      ->type_name("HOST:PORT");
  cmd->add_option("--token-file", a->token_file, "Clients must present this file's secret")
      ->type_name("FILE");
  cmd->add_option("--inject-delay", a->delays, "WHO:PROBABILITY:MS (repeatable): delay a request for tablet WHO (or *) by MS ms with PROBABILITY")
      ->type_name("WHO:PROB:MS")
      ->default_str("none");
  cmd->add_option("--threads", a->threads, "Evaluation threads")->check(WholeNumber(1, 1024))->default_str("all cores");
  cmd->add_option("--zookeeper", a->zookeeper,
                  "Register in ZooKeeper under PATH/servers (an ephemeral node: address, index, generation, tablets) "
                  "so that query|bench|cluster status --zookeeper find this server")
      ->type_name("HOST:PORT[,...]/PATH");
  cmd->add_option("--zookeeper-session", a->zookeeper_session_ms,
                  "--zookeeper: the session timeout asked for, in ms: how long after this server dies its node stays")
      ->type_name("MS")->check(WholeNumber(400, 600'000))->default_str(std::to_string(a->zookeeper_session_ms));
  auto* assign = cmd->add_flag("--assign", a->assign,
                               "--zookeeper: take part in tablet assignment: the servers started so divide the index's "
                               "tablets among themselves (a manager elected in ZooKeeper), each tablet on R of them, and "
                               "advertise what they are given (each opens every tablet)");
  cmd->add_option("--replicas", a->replicas, "--assign: R, the live replicas each tablet should have (stored in "
                                             "ZooKeeper for the whole cluster)")
      ->type_name("R")->check(WholeNumber(1, 1000))->needs(assign)->default_str("as stored, else 1");
  ServerOptions& l = a->limits;
  cmd->add_option("--max-connections", l.max_connections, "Connections open at once; more are closed as they come")
      ->type_name("N")->check(WholeNumber(1, 1'000'000))->default_str(std::to_string(l.max_connections));
  cmd->add_option("--handshake-timeout", l.handshake_timeout_ms, "Close a connection that sends no Hello within MS ms")
      ->type_name("MS")->check(WholeNumber(1))->default_str(std::to_string(l.handshake_timeout_ms));
  cmd->add_option("--idle-timeout", l.idle_timeout_ms,
                  "Close a connection with nothing in flight and nothing received for MS ms (clients reconnect)")
      ->type_name("MS")->check(WholeNumber(1))->default_str(std::to_string(l.idle_timeout_ms));
  cmd->add_option("--max-requests-per-connection", l.max_requests_per_connection,
                  "Requests in flight on one connection; more are refused (Done: invalid query)")
      ->type_name("N")->check(WholeNumber(1, 1'000'000))->default_str(std::to_string(l.max_requests_per_connection));
  cmd->add_option("--follow-interval", a->follow_ms,
                  "Look at the index's MANIFEST every MS ms and serve each newly committed generation (requests in "
                  "flight finish on theirs); 0: serve the generation opened at start")
      ->type_name("MS")->check(WholeNumber(0, 1000))->default_str("250");
  cmd->callback([a] {
    ServerOptions options = a->limits;
    if (Status s = ParseListen(a->listen, &options); !s.ok()) return (void)Fail(s);
    if (a->assign && a->zookeeper.empty()) return (void)Fail(Status::InvalidArgument("--assign needs --zookeeper"));
    if (a->assign && !a->tablets.empty()) {
      return (void)Fail(Status::InvalidArgument("--assign: the manager chooses the tablets; leave --tablets out"));
    }
    if (!a->zookeeper.empty() && (options.host == "0.0.0.0" || options.host == "::" || options.host.empty())) {
      return (void)Fail(Status::InvalidArgument("--zookeeper: --listen " + a->listen +
                                                " is no address clients can reach; listen on the host's own address"));
    }
    if (!a->token_file.empty()) {
      auto token = ReadTokenFile(a->token_file);
      if (!token.ok()) return (void)Fail(token.status());
      options.token = *token;
    }
    for (const auto& spec : a->delays) {
      auto rule = ParseDelayRule(spec);
      if (!rule.ok()) return (void)Fail(rule.status());
      options.delays.push_back(*rule);
    }
    if (Status s = RaiseDescriptorLimit(options.max_connections); !s.ok()) return (void)Fail(s);
    options.workers = a->threads;
    options.follow_interval_ms = a->follow_ms;
    options.log = [](const std::string& line) { std::fprintf(stderr, "dpsearch serve: %s\n", line.c_str()); };
    auto index = IndexReader::Open(a->index);
    if (!index.ok()) return (void)Fail(index.status());
    uint32_t first = 0, last = 0;
    std::vector<TabletSpan> spans;
    if (Status s = ParseTabletRange(a->tablets, (*index)->tablet_count(), &first, &last, &spans); !s.ok()) {
      return (void)Fail(s);
    }
    // Block the stop signals before any thread starts, then wait for one.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    const Manifest manifest = (*index)->manifest();  // the index moves into the server
    auto server = ShardServer::Start(std::shared_ptr<const IndexReader>(std::move(index).value()), first, last, options);
    if (!server.ok()) return (void)Fail(server.status());
    std::fprintf(stderr, "dpsearch serve: %s generation %llu tablets %u-%u on %s:%u\n", a->index.c_str(),
                 static_cast<unsigned long long>((*server)->generation()), first, last, options.host.c_str(),
                 (*server)->port());
    std::unique_ptr<ServerMembership> membership;
    // The follower's thread may call the hook until the server stops: it
    // reaches the membership only while the membership lives.
    struct GenerationSink {
      std::mutex mu;
      ServerMembership* membership = nullptr;
    };
    auto generation_sink = std::make_shared<GenerationSink>();
    if (!a->zookeeper.empty()) {
      ServerRecord record{AdvertisedAddress(options.host, (*server)->port()), manifest.index_id,
                          (*server)->generation(), manifest.bins, static_cast<uint32_t>(manifest.tablets.size()),
                          spans};
      if (a->assign) record.hosted.clear();  // until the manager's plan gives it some
      auto joined = ServerMembership::Join(a->zookeeper, a->zookeeper_session_ms, a->zookeeper_session_ms + 5000,
                                           record, options.log);
      if (!joined.ok()) {
        (*server)->Stop();
        return (void)Fail(joined.status());
      }
      membership = std::move(joined).value();
      // The node follows the generation the server serves; one committed
      // between the record and the hook is caught by the call after it.
      generation_sink->membership = membership.get();
      (*server)->OnGenerationChanged([generation_sink](uint64_t g) {
        std::lock_guard<std::mutex> lock(generation_sink->mu);
        if (generation_sink->membership != nullptr) generation_sink->membership->UpdateGeneration(g);
      });
      membership->UpdateGeneration((*server)->generation());
      if (a->assign) membership->StartAssigner(record.tablets, a->replicas, options.log);
      std::fprintf(stderr, "dpsearch serve: registered as %s/servers/%s\n", membership->path().c_str(),
                   record.address.c_str());
    }
    int sig = 0;
    sigwait(&stop_signals, &sig);
    std::fprintf(stderr, "dpsearch serve: %s, stopping\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    {
      std::lock_guard<std::mutex> lock(generation_sink->mu);
      generation_sink->membership = nullptr;
    }
    membership.reset();  // leave the cluster before the port closes
    (*server)->Stop();
    const ServerCounters c = (*server)->counters();
    std::fprintf(stderr, "dpsearch serve: stopped after %llu connections, %llu queries, %llu protocol errors\n",
                 static_cast<unsigned long long>(c.connections), static_cast<unsigned long long>(c.queries),
                 static_cast<unsigned long long>(c.protocol_errors));
  });
}

}  // namespace dps::cli
