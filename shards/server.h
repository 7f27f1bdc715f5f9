// The shard server behind `dpsearch serve`: hosts a tablet range of an
// opened index and answers the wire protocol of docs/PROTOCOL.md. One
// network thread runs Boost.Asio (every socket operation happens there);
// bins are evaluated on a separate worker pool by the same BinExecutor as
// in-process queries, so a slow bin never stalls the network loop. This
// file listens, accepts and stops; server_connection.h handles one client's
// frames, server_query.h runs one request.
//
// Robustness: every malformed, oversized or unexpected frame closes only
// its connection, with one logged line; a client that stops reading is cut
// off once its unread output passes a limit; Stop() is graceful.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "index/index_reader.h"
#include "shards/delay.h"
#include "shards/index_holder.h"

namespace dps {

struct ServerOptions {
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  uint16_t port = 0;               // 0: any free port (see ShardServer::port)
  std::string token;               // non-empty: clients must present it
  unsigned workers = 0;            // evaluation threads; 0: all cores
  std::vector<DelayRule> delays;   // --inject-delay
  size_t max_unread_output = 64u << 20;        // per connection
  size_t max_unread_output_total = 1u << 30;   // over all connections
  size_t max_client_frame = 1u << 20;  // clients only send small frames
  // Resources are bounded before any token is checked (issue 21): a
  // connection past max_connections is closed at once; one that has not
  // sent its Hello within handshake_timeout_ms, or sends a frame bigger
  // than a Hello first, is closed; a greeted one with nothing in flight
  // and nothing received for idle_timeout_ms is closed (clients reconnect
  // on demand); a Query past max_requests_per_connection in flight on one
  // connection is refused with a Done frame. Payload memory grows with the
  // bytes received, never with the length a header claims.
  size_t max_connections = 1024;
  uint32_t handshake_timeout_ms = 5000;
  uint32_t idle_timeout_ms = 600'000;
  size_t max_requests_per_connection = 256;
  // One line per connection fault or lifecycle event; may be empty (the
  // library never writes to stderr itself).
  std::function<void(const std::string&)> log;
  // Follow the index directory (issue 22, shards/index_follower.h): look
  // at its MANIFEST every this many ms and serve each new generation
  // committed there; 0: serve the generation opened at Start only.
  uint32_t follow_interval_ms = 0;
};

struct ServerCounters {
  uint64_t connections = 0;         // accepted so far
  uint64_t open_connections = 0;
  uint64_t queries = 0;
  uint64_t protocol_errors = 0;     // connections closed for a bad frame
  uint64_t refused_connections = 0; // closed at once: max_connections were open
  uint64_t timed_out = 0;           // closed for no Hello in time, idle, or not reading
  uint64_t unread_output_peak = 0;  // the most output queued, unread, over all connections
};

class ShardServer {
 public:
  // Binds, listens and starts serving tablets [first_tablet, last_tablet]
  // of `index` (which must outlive the server).
  static Result<std::unique_ptr<ShardServer>> Start(const IndexReader* index, uint32_t first_tablet,
                                                    uint32_t last_tablet, ServerOptions options);
  // The same, owning the first generation (a followed index's first one
  // is dropped like any other once two newer ones are served).
  static Result<std::unique_ptr<ShardServer>> Start(std::shared_ptr<const IndexReader> index, uint32_t first_tablet,
                                                    uint32_t last_tablet, ServerOptions options);
  ~ShardServer();

  uint16_t port() const;
  // The newest generation served.
  uint64_t generation() const;
  // The generations open (at most two: IndexHolder).
  const IndexHolder& index() const;
  // The hook for a cluster registry (ZooKeeper): `observer` is called with
  // each generation the server starts serving from now on (on the
  // follower's thread, after new requests already run on it). Call it
  // before the first commit to be followed, or read generation() after.
  void OnGenerationChanged(GenerationObserver observer);
  ServerCounters counters() const;
  // Stops accepting, cancels the requests in flight (their bins stop at the
  // next check and each gets its Done frame), flushes, closes every
  // connection and joins the threads. Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit ShardServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dps
