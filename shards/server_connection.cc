#include "shards/server_connection.h"

#include <boost/asio/read.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <chrono>
#include <vector>

namespace dps {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {
bool ConstantTimeEqual(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}
}  // namespace

ServerConnection::ServerConnection(ConnectionHost* host, tcp::socket socket)
    : host_(host), socket_(std::move(socket)), timer_(socket_.get_executor()) {
  boost::system::error_code ec;
  auto ep = socket_.remote_endpoint(ec);
  peer_ = ec ? std::string("?") : ep.address().to_string() + ":" + std::to_string(ep.port());
}

asio::awaitable<void> ServerConnection::Serve(std::shared_ptr<ServerConnection> self) {
  self->ArmTimer();
  co_await self->ReadLoop();
}

void ServerConnection::ArmTimer() {
  const uint32_t ms = greeted_ ? host_->idle_timeout_ms : host_->handshake_timeout_ms;
  if (ms == 0 || closed_) return (void)timer_.cancel();
  timer_.expires_after(std::chrono::milliseconds(ms));  // cancels the wait before
  timer_.async_wait([self = shared_from_this(), ms](const boost::system::error_code& ec) {
    if (ec || self->closed_) return;  // re-armed, or closed
    // Busy is not idle, unless its output has not moved for as long: a
    // client that stopped reading holds its parked work (and the socket).
    const bool stalled = self->writing_ && std::chrono::steady_clock::now() - self->last_write_ >=
                                               std::chrono::milliseconds(ms);
    if (self->greeted_ && !stalled && (!self->queries_.empty() || self->writing_)) return self->ArmTimer();
    self->host_->timed_out.fetch_add(1);
    self->Close(!self->greeted_ ? "no Hello within " + std::to_string(ms) + " ms"
                : stalled  ? "not reading: no output taken for " + std::to_string(ms) + " ms"
                           : "idle for " + std::to_string(ms) + " ms");
  });
}

asio::awaitable<void> ServerConnection::ReadPayload(uint32_t len, std::string* payload) {
  // 4 KiB first, then as much again as has arrived: the buffer is never
  // more than twice the bytes received (plus 4 KiB).
  payload->clear();
  size_t chunk = 4096;
  while (payload->size() < len) {
    const size_t at = payload->size();
    const size_t n = std::min<size_t>(len - at, std::max(chunk, at));
    payload->resize(at + n);
    co_await asio::async_read(socket_, asio::buffer(payload->data() + at, n), asio::use_awaitable);
  }
}

asio::awaitable<void> ServerConnection::ReadLoop() {
  try {
    for (;;) {
      uint8_t header[kFrameHeaderSize];
      co_await asio::async_read(socket_, asio::buffer(header), asio::use_awaitable);
      uint32_t len = 0;
      FrameType type{};
      Status s = DecodeFrameHeader(header, &len, &type);
      if (s.ok() && !greeted_ && len + 1 > kMaxHelloFrame) {
        s = Status::InvalidArgument("frame of " + std::to_string(len + 1) + " bytes before the handshake (a Hello is at most " +
                                    std::to_string(kMaxHelloFrame) + ")");
      } else if (s.ok() && len + 1 > host_->max_client_frame) {
        s = Status::InvalidArgument("frame of " + std::to_string(len + 1) + " bytes exceeds the " +
                                    std::to_string(host_->max_client_frame) +
                                    "-byte limit for client frames");
      }
      if (!s.ok()) {
        ProtocolError(s.message());
        co_return;
      }
      std::string payload;
      co_await ReadPayload(len, &payload);
      s = Dispatch(type, payload);
      if (!s.ok()) {
        ProtocolError(s.message());
        co_return;
      }
      if (closed_) co_return;
      ArmTimer();  // a frame came: the idle clock starts again
    }
  } catch (const boost::system::system_error& e) {
    // The peer went away (EOF, reset) or Stop() closed the socket.
    Close(e.code() == asio::error::eof || e.code() == asio::error::operation_aborted
              ? std::string()
              : std::string("read failed: ") + e.code().message());
  }
}

void ServerConnection::Close(const std::string& reason) {
  if (closed_) return;
  closed_ = true;
  timer_.cancel();
  host_->unread_total -= unread_;  // no longer this server's to send
  unread_ = 0;
  if (!writing_) out_.clear();  // a write in progress still reads its buffers
  if (!reason.empty()) host_->Log(peer_ + ": closing connection: " + reason);
  CancelAll();
  // The queries hold this connection (their frame sink) until their last
  // bin ends; drop ours so no cycle outlives a bin that never runs (a
  // worker pool joined at Stop).
  queries_.clear();
  boost::system::error_code ec;
  socket_.shutdown(tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  host_->open_connections.fetch_sub(1);
  host_->live.erase(this);
}

void ServerConnection::CancelAll() {
  for (auto& [id, query] : queries_) query->Cancel();
  ReleaseParked();  // cancelled bins end at once and send their Done frames
}

bool ServerConnection::MayStart(const Parked& p) const {
  if (closed_) return true;
  // Past a quarter of the server's total, every connection with output
  // still unread waits for it to leave: slow readers together stop early.
  const bool server_full = host_->unread_total > host_->max_unread_total / 4 && unread_ > 0;
  return unread_ <= kCongestedBytes && !server_full && (!p.pooled || PoolHasRoom());
}

bool ServerConnection::PoolHasRoom() const {
  return pooled_ < host_->max_pooled_bins && host_->pooled_total < host_->max_pooled_total;
}

void ServerConnection::Admit(std::function<void()> start, bool pooled) {
  parked_.push_back(Parked{std::move(start), pooled});
  ReleaseParked();
}

void ServerConnection::PooledBinEnded() {
  if (pooled_ > 0) {
    --pooled_;
    --host_->pooled_total;
  }
  ReleaseParked();
  host_->ReleaseWaiting();
}

// In order, as long as the first may start (a bin started inline may come
// back here through its Done: the loop takes one at a time). A pooled bin
// held back only by the server-wide pool limit puts this connection in
// line for the next free slot (ConnectionHost::ReleaseWaiting).
void ServerConnection::ReleaseParked(size_t at_most) {
  for (size_t started = 0; started < at_most && !parked_.empty() && MayStart(parked_.front()); ++started) {
    Parked p = std::move(parked_.front());
    parked_.pop_front();
    if (p.pooled && !closed_) {
      ++pooled_;
      ++host_->pooled_total;
    }
    p.start();
  }
  if (!closed_ && !waiting_ && !parked_.empty() && parked_.front().pooled && pooled_ < host_->max_pooled_bins &&
      host_->pooled_total >= host_->max_pooled_total) {
    waiting_ = true;
    host_->waiting.push_back(weak_from_this());
  }
}

bool ServerConnection::TakeTurn() {
  waiting_ = false;
  ReleaseParked(/*at_most=*/1);
  return waiting_;
}

// Free pool slots go to the waiting connections in turn, one bin each, so
// a client with one query is not queued behind one with hundreds.
void ConnectionHost::ReleaseWaiting() {
  for (size_t turns = waiting.size(); turns > 0 && pooled_total < max_pooled_total && !waiting.empty(); --turns) {
    auto c = waiting.front().lock();
    waiting.pop_front();
    if (c) c->TakeTurn();
  }
}

void ServerConnection::ProtocolError(const std::string& why) {
  host_->protocol_errors.fetch_add(1);
  Close(why);
}

Status ServerConnection::Dispatch(FrameType type, std::string_view payload) {
  if (!greeted_) {
    if (type != FrameType::kHello) {
      return Status::InvalidArgument(std::string("expected Hello, got ") + FrameTypeName(type));
    }
    Hello hello;
    DPS_RETURN_IF_ERROR(DecodeHello(payload, &hello));
    if (hello.version != kWireVersion) {
      return Status::InvalidArgument("protocol version " + std::to_string(hello.version) +
                                     " (this server speaks " + std::to_string(kWireVersion) + ")");
    }
    if (!ConstantTimeEqual(hello.token, host_->token)) {
      return Status::InvalidArgument("wrong token");
    }
    greeted_ = true;
    std::string frame;
    EncodeWelcome(WelcomeOf(host_->queries), &frame);
    Send(std::move(frame));
    return Status::OK();
  }
  switch (type) {
    case FrameType::kQuery: {
      QueryRequest q;
      DPS_RETURN_IF_ERROR(DecodeQuery(payload, &q));
      StartQuery(std::move(q));
      return Status::OK();
    }
    case FrameType::kCancel: {
      Cancel c;
      DPS_RETURN_IF_ERROR(DecodeCancel(payload, &c));
      auto it = queries_.find(c.request_id);
      if (it != queries_.end()) it->second->Cancel();
      return Status::OK();
    }
    default:
      return Status::InvalidArgument(std::string("unexpected ") + FrameTypeName(type) + " frame");
  }
}

void ServerConnection::StartQuery(QueryRequest q) {
  host_->queries_started.fetch_add(1);
  if (queries_.count(q.request_id)) {
    std::string frame;
    EncodeDone({q.request_id, DoneCode::kInvalidQuery, "request id already in flight", host_->queries.index->newest()},
               &frame);
    return Send(std::move(frame));
  }
  if (queries_.size() >= host_->max_requests_per_connection) {
    std::string frame;
    EncodeDone({q.request_id, DoneCode::kInvalidQuery,
                "too many requests in flight on one connection (the server's limit is " +
                    std::to_string(host_->max_requests_per_connection) + ")",
                host_->queries.index->newest()},
               &frame);
    return Send(std::move(frame));
  }
  const uint64_t id = q.request_id;
  auto query = ServerQuery::Start(&host_->queries, std::move(q), shared_from_this());
  if (query == nullptr) return;
  // Starting may have closed this connection (its output passed the limit):
  // then nothing will cancel the query later.
  if (closed_) return query->Cancel();
  queries_[id] = std::move(query);
}

void ServerConnection::Send(std::string bytes) {
  if (closed_) return;
  unread_ += bytes.size();
  host_->unread_total += bytes.size();
  if (host_->unread_total > host_->unread_peak.load(std::memory_order_relaxed)) {
    host_->unread_peak.store(host_->unread_total, std::memory_order_relaxed);
  }
  if (unread_ > host_->max_unread_output) {
    return Close("client is not reading (" + std::to_string(unread_) + " bytes unread)");
  }
  // Many slow readers together: the one whose output tips the server past
  // its total goes (each may hold up to max_unread_output).
  if (host_->unread_total > host_->max_unread_total) {
    return Close("the server's unread output passed " + std::to_string(host_->max_unread_total) +
                 " bytes over all connections (" + std::to_string(unread_) + " of them this client's)");
  }
  out_.push_back(std::move(bytes));
  WriteNext();
}

// Writes everything queued in one gathered write: a query's BinStats and
// Done frames then leave in one segment, not one syscall each.
void ServerConnection::WriteNext() {
  if (writing_ || out_.empty() || closed_) return;
  writing_ = true;
  last_write_ = std::chrono::steady_clock::now();  // a write stalls from its start
  in_flight_ = out_.size();
  std::vector<asio::const_buffer> buffers;
  buffers.reserve(in_flight_);
  for (const auto& b : out_) buffers.push_back(asio::buffer(b));
  auto self = shared_from_this();
  asio::async_write(socket_, buffers, [self](const boost::system::error_code& ec, size_t n) {
    self->writing_ = false;
    if (self->closed_) return self->out_.clear();  // Close counted its output out
    self->unread_ -= n;
    self->host_->unread_total -= n;
    for (size_t i = 0; i < self->in_flight_ && !self->out_.empty(); ++i) self->out_.pop_front();
    if (ec) return self->Close(ec == asio::error::operation_aborted ? "" : "write failed: " + ec.message());
    self->WriteNext();
    if (self->unread_ <= kCongestedBytes) self->ReleaseParked();
  });
}

}  // namespace dps
