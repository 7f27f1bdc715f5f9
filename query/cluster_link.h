// One connection from a cluster client to a shard server (ServerLink), or
// to a replica served in this process (query/local_shards.h): connects and
// handshakes on demand (Hello/Welcome, docs/PROTOCOL.md), writes Query and
// Cancel frames, reads Results/BinStats/Done/Started frames and hands them to the
// client's event queue. A failure (network, garbage, wrong index) fails
// every request pending on the link with a Status naming the server; the
// next request reconnects.
//
// Thread-safety: everything but the event queue runs on the client's
// network thread (the Asio io_context); the queue is the hand-off to the
// thread running the query.
#pragma once

#include <utility>  // before Asio: awaitable.hpp uses std::exchange

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "shards/protocol.h"

namespace dps {

// A frame (or a failure) of one request, from the network thread.
struct LinkEvent {
  enum Kind { kResults, kStats, kDone, kStarted, kFailed } kind = kFailed;
  uint64_t rid = 0;
  ResultBatch results;
  BinStats stats;
  Done done;
  Status error;  // kFailed: why the request's server failed
};

class LinkEventQueue {
 public:
  void Push(LinkEvent e);
  // One wake-up for a batch (the frames of one socket read).
  void PushAll(std::vector<LinkEvent>* batch);
  // False when `until` passes first.
  bool PopUntil(std::chrono::steady_clock::time_point until, LinkEvent* e);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<LinkEvent> events_;
};

// Shared by the links of one client.
struct LinkContext {
  boost::asio::io_context* io = nullptr;
  std::string token;
  uint32_t connect_timeout_ms = 2000;
  LinkEventQueue* events = nullptr;
  // Accepts a server's Welcome or refuses it (InvalidArgument: the link
  // fails); called with the server's address. Thread-safe.
  std::function<Status(const std::string& address, const Welcome&)> on_welcome;
};

// Decodes one frame a server sends a client into *e. Corruption for a
// frame that makes no sense (InvalidArgument is kept for refusals).
Status DecodeLinkEvent(FrameType type, std::string_view payload, LinkEvent* e);

// What the cluster client asks of a connection; the client's network
// thread calls every method.
class Link {
 public:
  virtual ~Link() = default;
  // Connects now if idle; `on_ready` learns the outcome.
  virtual void Connect(std::function<void(const Status&)> on_ready) = 0;
  // Sends a Query frame for request `rid` (connecting first if needed).
  virtual void Submit(uint64_t rid, std::string frame) = 0;
  // Asks the server to stop request `rid` (its Done frame still comes).
  virtual void Cancel(uint64_t rid) = 0;
  virtual void Close() = 0;
};

class ServerLink final : public Link, public std::enable_shared_from_this<ServerLink> {
 public:
  ServerLink(const LinkContext* context, std::string address);

  void Connect(std::function<void(const Status&)> on_ready) override;
  void Submit(uint64_t rid, std::string frame) override;
  void Cancel(uint64_t rid) override;
  void Close() override;

 private:
  enum State { kIdle, kConnecting, kReady };
  struct Frame {
    FrameType type{};
    std::string payload;
  };
  static boost::asio::awaitable<void> Serve(std::shared_ptr<ServerLink> self);
  boost::asio::awaitable<Status> Handshake();
  boost::asio::awaitable<Status> Greet(const boost::asio::ip::tcp::resolver::results_type& endpoints);
  boost::asio::awaitable<Status> ReadLoop();
  boost::asio::awaitable<Status> ReadFrame(Frame* frame);
  boost::asio::awaitable<Status> Fill(size_t need);
  bool FrameBuffered() const;
  void Notify(const Status& status);
  void Fail(const Status& why);
  void Write(std::string frame);
  void WriteNext();

  const LinkContext* context_;
  std::string address_;
  boost::asio::ip::tcp::socket socket_;
  State state_ = kIdle;
  std::deque<std::string> out_;
  bool writing_ = false;
  std::set<uint64_t> pending_;
  std::vector<std::function<void(const Status&)>> watchers_;
  std::string in_;  // bytes read, not yet parsed from in_pos_ on
  size_t in_pos_ = 0;
};

}  // namespace dps
