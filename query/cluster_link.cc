#include "query/cluster_link.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "common/coding.h"

namespace dps {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

void LinkEventQueue::Push(LinkEvent e) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(e));
  }
  cv_.notify_one();
}

void LinkEventQueue::PushAll(std::vector<LinkEvent>* batch) {
  if (batch->empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& e : *batch) events_.push_back(std::move(e));
  }
  batch->clear();
  cv_.notify_one();
}

bool LinkEventQueue::PopUntil(std::chrono::steady_clock::time_point until, LinkEvent* e) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_until(lock, until, [&] { return !events_.empty(); })) return false;
  *e = std::move(events_.front());
  events_.pop_front();
  return true;
}

namespace {
Status NetworkError(const error_code& ec) {
  return Status::IOError(ec == asio::error::eof ? "connection closed by server" : ec.message());
}
// The server's bytes made no sense: keep the decoder's words, not its code
// (InvalidArgument is reserved for a server refusing or being refused).
Status Garbage(const Status& s) { return Status::Corruption(s.message()); }
}  // namespace

Status DecodeLinkEvent(FrameType type, std::string_view payload, LinkEvent* e) {
  Status s;
  switch (type) {
    case FrameType::kResults:
      e->kind = LinkEvent::kResults;
      s = DecodeResults(payload, &e->results);
      e->rid = e->results.request_id;
      break;
    case FrameType::kBinStats:
      e->kind = LinkEvent::kStats;
      s = DecodeBinStats(payload, &e->stats);
      e->rid = e->stats.request_id;
      break;
    case FrameType::kDone:
      e->kind = LinkEvent::kDone;
      s = DecodeDone(payload, &e->done);
      e->rid = e->done.request_id;
      break;
    case FrameType::kStarted: {
      e->kind = LinkEvent::kStarted;
      Started started;
      s = DecodeStarted(payload, &started);
      e->rid = started.request_id;
      break;
    }
    default:
      return Status::Corruption(std::string("unexpected ") + FrameTypeName(type) + " frame");
  }
  return s.ok() ? s : Garbage(s);
}

ServerLink::ServerLink(const LinkContext* context, std::string address)
    : context_(context), address_(std::move(address)), socket_(*context->io) {}

void ServerLink::Connect(std::function<void(const Status&)> on_ready) {
  if (state_ == kReady) return on_ready(Status::OK());
  watchers_.push_back(std::move(on_ready));
  if (state_ == kConnecting) return;
  state_ = kConnecting;
  asio::co_spawn(*context_->io, Serve(shared_from_this()), asio::detached);
}

void ServerLink::Submit(uint64_t rid, std::string frame) {
  pending_.insert(rid);
  if (state_ == kReady) return Write(std::move(frame));
  auto self = shared_from_this();
  Connect([self, rid, frame = std::move(frame)](const Status& s) mutable {
    if (s.ok()) {
      if (self->pending_.count(rid)) self->Write(std::move(frame));
    } else if (self->pending_.erase(rid)) {
      self->context_->events->Push(LinkEvent{LinkEvent::kFailed, rid, {}, {}, {}, s});
    }
  });
}

void ServerLink::Cancel(uint64_t rid) {
  if (state_ != kReady || !pending_.count(rid)) return;
  std::string frame;
  EncodeCancel({rid}, &frame);
  Write(std::move(frame));
}

void ServerLink::Close() {
  error_code ignored;
  socket_.close(ignored);
}

asio::awaitable<void> ServerLink::Serve(std::shared_ptr<ServerLink> self) {
  Status s = co_await self->Handshake();
  if (s.ok()) {
    self->state_ = kReady;
    self->Notify(Status::OK());
    s = co_await self->ReadLoop();
  }
  self->Fail(s);
}

asio::awaitable<Status> ServerLink::Handshake() {
  error_code ec;
  const size_t colon = address_.rfind(':');
  tcp::resolver resolver(*context_->io);
  auto endpoints = co_await resolver.async_resolve(address_.substr(0, colon), address_.substr(colon + 1),
                                                   asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return NetworkError(ec);
  // The handshake must finish in time or the socket is closed under it. The
  // handler may already be queued when the handshake ends: it shares the
  // flag and the link, never this frame, and closes only a link still
  // connecting.
  asio::steady_timer timer(*context_->io, std::chrono::milliseconds(context_->connect_timeout_ms));
  auto timed_out = std::make_shared<bool>(false);
  timer.async_wait([self = shared_from_this(), timed_out](const error_code& e) {
    if (!e && self->state_ == kConnecting) {
      *timed_out = true;
      self->Close();
    }
  });
  Status s = co_await Greet(endpoints);
  timer.cancel();
  if (*timed_out) {
    co_return Status::IOError("no answer within " + std::to_string(context_->connect_timeout_ms) + " ms");
  }
  co_return s;
}

asio::awaitable<Status> ServerLink::Greet(const tcp::resolver::results_type& endpoints) {
  error_code ec;
  co_await asio::async_connect(socket_, endpoints, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return NetworkError(ec);
  socket_.set_option(tcp::no_delay(true), ec);
  std::string hello;
  EncodeHello({kWireVersion, context_->token}, &hello);
  co_await asio::async_write(socket_, asio::buffer(hello), asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return NetworkError(ec);
  Frame frame;
  DPS_CO_RETURN_IF_ERROR(co_await ReadFrame(&frame));
  if (frame.type != FrameType::kWelcome) co_return Status::Corruption("expected Welcome");
  Welcome welcome;
  if (Status d = DecodeWelcome(frame.payload, &welcome); !d.ok()) co_return Garbage(d);
  co_return context_->on_welcome(address_, welcome);
}

asio::awaitable<Status> ServerLink::ReadLoop() {
  std::vector<LinkEvent> batch;
  for (;;) {
    if (!FrameBuffered()) context_->events->PushAll(&batch);  // about to wait: deliver
    Frame frame;
    DPS_CO_RETURN_IF_ERROR(co_await ReadFrame(&frame));
    LinkEvent e;
    const Status s = DecodeLinkEvent(frame.type, frame.payload, &e);
    if (!s.ok()) co_return s;
    if (!pending_.count(e.rid)) continue;  // a request this link already gave up
    if (e.kind == LinkEvent::kDone) pending_.erase(e.rid);
    batch.push_back(std::move(e));
  }
}

bool ServerLink::FrameBuffered() const {
  const size_t avail = in_.size() - in_pos_;
  return avail >= 4 &&
         avail >= 4 + size_t{DecodeFixed32(reinterpret_cast<const uint8_t*>(in_.data() + in_pos_))};
}

// Reads through a buffer: one read_some usually brings many small frames.
asio::awaitable<Status> ServerLink::Fill(size_t need) {
  if (in_pos_ > 0 && in_.size() - in_pos_ < need) {
    in_.erase(0, in_pos_);
    in_pos_ = 0;
  }
  while (in_.size() - in_pos_ < need) {
    const size_t have = in_.size();
    in_.resize(std::max(have + 65536, in_pos_ + need));
    error_code ec;
    const size_t n = co_await socket_.async_read_some(asio::buffer(in_.data() + have, in_.size() - have),
                                                       asio::redirect_error(asio::use_awaitable, ec));
    in_.resize(have + n);
    if (ec) co_return NetworkError(ec);
  }
  co_return Status::OK();
}

asio::awaitable<Status> ServerLink::ReadFrame(Frame* frame) {
  DPS_CO_RETURN_IF_ERROR(co_await Fill(kFrameHeaderSize));
  uint32_t len = 0;
  Status s = DecodeFrameHeader(reinterpret_cast<const uint8_t*>(in_.data() + in_pos_), &len, &frame->type);
  if (!s.ok()) co_return Garbage(s);
  DPS_CO_RETURN_IF_ERROR(co_await Fill(kFrameHeaderSize + len));
  frame->payload = in_.substr(in_pos_ + kFrameHeaderSize, len);
  in_pos_ += kFrameHeaderSize + len;
  co_return Status::OK();
}

void ServerLink::Notify(const Status& status) {
  auto watchers = std::move(watchers_);
  watchers_.clear();
  for (auto& w : watchers) w(status);
}

void ServerLink::Fail(const Status& error) {
  const Status why = (error.ok() ? Status::IOError("connection lost") : error).WithContext(address_);
  Close();
  socket_ = tcp::socket(*context_->io);
  state_ = kIdle;
  in_.clear();
  in_pos_ = 0;
  out_.clear();
  writing_ = false;
  for (uint64_t rid : pending_) context_->events->Push(LinkEvent{LinkEvent::kFailed, rid, {}, {}, {}, why});
  pending_.clear();
  Notify(why);
}

void ServerLink::Write(std::string frame) {
  out_.push_back(std::move(frame));
  WriteNext();
}

void ServerLink::WriteNext() {
  if (writing_ || out_.empty() || state_ != kReady) return;
  writing_ = true;
  auto self = shared_from_this();
  asio::async_write(socket_, asio::buffer(out_.front()), [self](const error_code& ec, size_t) {
    self->writing_ = false;
    if (ec) return;  // the read loop notices the broken socket and fails the link
    if (!self->out_.empty()) self->out_.pop_front();
    self->WriteNext();
  });
}

}  // namespace dps
