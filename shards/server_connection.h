// One client connection of a shard server: reads frames (bounded size,
// Hello first, token checked in constant time), starts and cancels
// queries (ServerQuery), and writes their frames back in gathered writes.
// Every malformed, oversized or unexpected frame closes only this
// connection, with one logged line; a client that stops reading is cut off
// once its unread output passes a limit; one that sends no Hello in time,
// or stays idle too long, is closed (ServerOptions says which limits).
//
// Network thread only. A connection lives while its read loop or a query
// holds it.
#pragma once

#include <utility>  // before Asio: awaitable.hpp uses std::exchange

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "shards/server_query.h"

namespace dps {

// What the connections of one server share.
struct ConnectionHost {
  QueryHost queries;
  std::string token;
  size_t max_unread_output = 0;
  size_t max_unread_total = SIZE_MAX;
  size_t unread_total = 0;  // queued output of every connection (network thread)
  std::atomic<uint64_t> unread_peak{0};  // the most unread_total has been
  size_t max_client_frame = 0;
  uint32_t handshake_timeout_ms = 0;  // 0: none
  uint32_t idle_timeout_ms = 0;       // 0: none
  size_t max_requests_per_connection = SIZE_MAX;
  size_t max_pooled_bins = SIZE_MAX;  // a connection's bins on the workers at once
  size_t max_pooled_total = SIZE_MAX;  // every connection's
  size_t pooled_total = 0;             // network thread
  // Connections with a pooled bin held back only by max_pooled_total, in
  // the order they came; served one bin each as slots free up.
  std::deque<std::weak_ptr<class ServerConnection>> waiting;
  void ReleaseWaiting();
  std::function<void(const std::string&)> log;  // may be empty
  std::atomic<uint64_t> open_connections{0}, queries_started{0}, protocol_errors{0}, timed_out{0};
  // The open connections, for Stop (network thread only).
  std::unordered_map<class ServerConnection*, std::weak_ptr<class ServerConnection>> live;
  void Log(const std::string& line) const {
    if (log) log(line);
  }
};

class ServerConnection final : public FrameSink, public std::enable_shared_from_this<ServerConnection> {
 public:
  ServerConnection(ConnectionHost* host, boost::asio::ip::tcp::socket socket);

  // The read loop; the coroutine owns its connection (a reference taken
  // inside the body would come too late: it starts after co_spawn returns).
  static boost::asio::awaitable<void> Serve(std::shared_ptr<ServerConnection> self);
  // Closes the socket and cancels everything in flight ("" logs nothing).
  void Close(const std::string& reason);
  // Cancels the requests in flight; their Done frames still go out.
  void CancelAll();
  bool idle() const { return queries_.empty() && !writing_; }
  // ConnectionHost::ReleaseWaiting: starts this connection's next bin if it
  // may; true when it waits again.
  bool TakeTurn();

  // FrameSink.
  void Send(std::string bytes) override;
  void QueryDone(uint64_t request_id) override { queries_.erase(request_id); }
  void Admit(std::function<void()> start, bool pooled) override;
  void PooledBinEnded() override;

 private:
  boost::asio::awaitable<void> ReadLoop();
  // Reads a payload of `len` bytes a chunk at a time: memory follows what
  // arrives, not what the header claims.
  boost::asio::awaitable<void> ReadPayload(uint32_t len, std::string* payload);
  // (Re)starts the handshake or idle clock.
  void ArmTimer();
  Status Dispatch(FrameType type, std::string_view payload);
  void StartQuery(QueryRequest q);
  void ProtocolError(const std::string& why);
  void WriteNext();

  ConnectionHost* host_;
  boost::asio::ip::tcp::socket socket_;
  std::string peer_;
  boost::asio::steady_timer timer_;
  bool greeted_ = false;
  bool closed_ = false;
  bool writing_ = false;
  size_t unread_ = 0;
  // Bins waiting to begin (Admit), in order: while the client has more
  // than kCongestedBytes unread, or (pooled ones) while host_->max_pooled_bins
  // of this connection's bins are on the workers.
  static constexpr size_t kCongestedBytes = 1u << 20;
  struct Parked {
    std::function<void()> start;
    bool pooled;
  };
  std::deque<Parked> parked_;
  size_t pooled_ = 0;  // this connection's bins on the workers
  std::chrono::steady_clock::time_point last_write_;  // when the write in progress began
  bool MayStart(const Parked& p) const;
  bool PoolHasRoom() const;
  void ReleaseParked(size_t at_most = SIZE_MAX);
  bool waiting_ = false;  // in host_->waiting
  size_t in_flight_ = 0;  // frames of out_ in the current write
  std::deque<std::string> out_;
  std::unordered_map<uint64_t, std::shared_ptr<ServerQuery>> queries_;
};

}  // namespace dps
