#include "shards/server.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "shards/index_follower.h"
#include "shards/server_connection.h"

namespace dps {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct ShardServer::Impl {
  ServerOptions options;
  asio::io_context io;
  std::unique_ptr<asio::thread_pool> workers;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  tcp::acceptor acceptor{io};
  std::thread io_thread;
  std::unique_ptr<DelayInjector> delays;
  std::unique_ptr<IndexHolder> index;
  std::unique_ptr<IndexFollower> follower;  // null unless following
  ConnectionHost host;
  std::atomic<uint64_t> connections{0};
  std::atomic<uint64_t> refused{0};
  std::once_flag stop_once;

  asio::awaitable<void> AcceptLoop();
  void DoStop();
};

asio::awaitable<void> ShardServer::Impl::AcceptLoop() {
  for (;;) {
    boost::system::error_code ec;
    tcp::socket socket = co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
      host.Log(std::string("accept failed: ") + ec.message());
      // Out of descriptors (or another transient failure): the connection
      // waits in the backlog, and accepting again at once would spin.
      asio::steady_timer pause(io, std::chrono::milliseconds(50));
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    connections.fetch_add(1);
    if (host.open_connections.load() >= options.max_connections) {
      // Refused before anything is read: one line for the first and every
      // thousandth, not one per connection of a flood.
      if (refused.fetch_add(1) % 1000 == 0) {
        host.Log("refusing connections: " + std::to_string(options.max_connections) + " are open (" +
                 std::to_string(refused.load()) + " refused so far)");
      }
      socket.close(ec);
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);
    host.open_connections.fetch_add(1);
    auto conn = std::make_shared<ServerConnection>(&host, std::move(socket));
    host.live[conn.get()] = conn;
    asio::co_spawn(io, ServerConnection::Serve(conn), asio::detached);
  }
}

void ShardServer::Impl::DoStop() {
  // 1. Stop accepting; cancel what is in flight (on the network thread).
  asio::post(io, [this] {
    boost::system::error_code ec;
    acceptor.close(ec);
    for (auto& [p, weak] : host.live) {
      if (auto c = weak.lock()) c->CancelAll();
    }
  });
  // 2. Cancelled bins finish at once; wait (a bounded time) until every
  //    request has sent its Done frame and the output is flushed.
  for (int i = 0; i < 200; ++i) {
    std::promise<bool> idle;
    asio::post(io, [this, &idle] {
      bool all = true;
      for (auto& [p, weak] : host.live) {
        if (auto c = weak.lock(); c && !c->idle()) all = false;
      }
      idle.set_value(all);
    });
    if (idle.get_future().get()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // 3. Close every connection, then let the threads run out of work.
  asio::post(io, [this] {
    std::vector<std::shared_ptr<ServerConnection>> all;
    for (auto& [p, weak] : host.live) {
      if (auto c = weak.lock()) all.push_back(c);
    }
    for (auto& c : all) c->Close("");
  });
  workers->join();
  work.reset();
  io_thread.join();
  if (follower) follower->Stop();
}

ShardServer::ShardServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ShardServer::~ShardServer() { Stop(); }

Result<std::unique_ptr<ShardServer>> ShardServer::Start(const IndexReader* index, uint32_t first_tablet,
                                                        uint32_t last_tablet, ServerOptions options) {
  // The caller owns it and keeps it past the server.
  return Start(std::shared_ptr<const IndexReader>(index, [](const IndexReader*) {}), first_tablet, last_tablet,
               std::move(options));
}

Result<std::unique_ptr<ShardServer>> ShardServer::Start(std::shared_ptr<const IndexReader> index,
                                                        uint32_t first_tablet, uint32_t last_tablet,
                                                        ServerOptions options) {
  if (first_tablet > last_tablet || last_tablet >= index->tablet_count()) {
    return Status::InvalidArgument("tablets " + std::to_string(first_tablet) + "-" +
                                   std::to_string(last_tablet) + " outside the index's 0-" +
                                   std::to_string(index->tablet_count() - 1));
  }
  auto impl = std::make_unique<Impl>();
  impl->delays = std::make_unique<DelayInjector>(options.delays);
  impl->options = std::move(options);
  impl->index = std::make_unique<IndexHolder>(index);
  const unsigned n = impl->options.workers ? impl->options.workers
                                           : std::max(1u, std::thread::hardware_concurrency());
  impl->workers = std::make_unique<asio::thread_pool>(n);
  ConnectionHost& host = impl->host;
  host.queries = QueryHost{impl->index.get(), first_tablet,       last_tablet,
                           impl->delays.get(), &impl->io,         impl->workers.get()};
  host.token = impl->options.token;
  host.max_unread_output = impl->options.max_unread_output;
  host.max_unread_total = impl->options.max_unread_output_total;
  host.max_client_frame = impl->options.max_client_frame;
  host.handshake_timeout_ms = impl->options.handshake_timeout_ms;
  host.idle_timeout_ms = impl->options.idle_timeout_ms;
  host.max_requests_per_connection = impl->options.max_requests_per_connection;
  // Enough to keep every worker busy, little queued ahead of other clients.
  host.max_pooled_bins = 2 * n;
  host.max_pooled_total = 4 * n;
  host.log = impl->options.log;
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(impl->options.host, ec);
  if (ec) return Status::InvalidArgument("--listen: bad address " + impl->options.host);
  const tcp::endpoint endpoint(address, impl->options.port);
  const std::string where = impl->options.host + ":" + std::to_string(impl->options.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::IOError("cannot listen on " + where + ": " + ec.message());
  if (impl->options.follow_interval_ms > 0) {
    impl->follower = std::make_unique<IndexFollower>(
        impl->index.get(), FollowOptions{index->dir(), impl->options.follow_interval_ms, impl->options.log});
  }
  impl->work.emplace(impl->io.get_executor());
  Impl* raw = impl.get();
  asio::co_spawn(impl->io, raw->AcceptLoop(), asio::detached);
  impl->io_thread = std::thread([raw] { raw->io.run(); });
  return std::unique_ptr<ShardServer>(new ShardServer(std::move(impl)));
}

uint16_t ShardServer::port() const {
  boost::system::error_code ec;
  return impl_->acceptor.local_endpoint(ec).port();
}

uint64_t ShardServer::generation() const { return impl_->index->newest(); }

const IndexHolder& ShardServer::index() const { return *impl_->index; }

void ShardServer::OnGenerationChanged(GenerationObserver observer) {
  impl_->index->OnGenerationChanged(std::move(observer));
}

ServerCounters ShardServer::counters() const {
  const ConnectionHost& h = impl_->host;
  return {impl_->connections.load(), h.open_connections.load(), h.queries_started.load(),
          h.protocol_errors.load(), impl_->refused.load(), h.timed_out.load(), h.unread_peak.load()};
}

void ShardServer::Stop() {
  if (!impl_) return;
  std::call_once(impl_->stop_once, [this] { impl_->DoStop(); });
}

}  // namespace dps
