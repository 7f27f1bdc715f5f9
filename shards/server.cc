#include "shards/server.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <atomic>
#include <chrono>
#include <deque>
#include <future>
#include <optional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include "index/query_plan.h"
#include "shards/bin_executor.h"
#include "shards/protocol.h"

namespace dps {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

// Documents per Results frame: keeps frames far below the size limit and
// lets the client start printing before a big bin is complete on the wire.
constexpr size_t kDocsPerFrame = 2048;
// Plans estimated below this many postings are evaluated on the network
// thread (tens of microseconds at most).
constexpr uint64_t kInlinePostings = 20'000;

uint32_t ClampMicros(double us) { return static_cast<uint32_t>(std::clamp<double>(us, 0, UINT32_MAX)); }

bool ConstantTimeEqual(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// One query on one connection. Fields without atomics are touched only on
// the network thread; the plan is read-only once bins are scheduled.
struct Request {
  uint64_t id = 0;
  bool count_only = false;
  uint64_t limit = 0;
  Clock::time_point received;
  Clock::time_point deadline = Clock::time_point::max();
  QueryPlan plan;
  std::atomic<bool> cancel{false};
  std::optional<LimitBudget> budget;  // matches still allowed by the limit
  std::atomic<bool> deadline_hit{false};
  size_t pending_bins = 0;
  // Per tablet: bins not finished yet, and tablets one of whose bins was
  // cancelled or failed (network thread only; they decide BinStats'
  // tablet_complete flag).
  std::map<uint32_t, size_t> pending_of_tablet;
  std::set<uint32_t> tablets_not_whole;
  std::string error;
  // Injected delays not yet expired; cancelling the request cuts them short.
  std::vector<std::shared_ptr<asio::steady_timer>> timers;

  void Cancel() {
    cancel.store(true);
    for (auto& t : timers) t->cancel();
  }
};

// What a worker hands back to the network thread for one bin.
struct BinOutcome {
  std::string frames;  // Results frames
  BinStats stats;      // encoded after them by the network thread, unless error
  std::string error;
};

}  // namespace

struct ShardServer::Impl {
  const IndexReader* index = nullptr;
  uint32_t first_tablet = 0, last_tablet = 0;
  ServerOptions options;
  asio::io_context io;
  std::unique_ptr<asio::thread_pool> workers;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  tcp::acceptor acceptor{io};
  std::thread io_thread;
  std::unique_ptr<DelayInjector> delays;
  std::optional<BinExecutor> executor;
  std::atomic<uint64_t> connections{0}, open_connections{0}, queries{0}, protocol_errors{0};
  std::atomic<bool> stopping{false};
  std::once_flag stop_once;
  class Connection;
  std::unordered_map<Connection*, std::weak_ptr<Connection>> live;  // network thread only

  void Log(const std::string& line) const {
    if (options.log) options.log(line);
  }
  asio::awaitable<void> AcceptLoop();
  void DoStop();
};

class ShardServer::Impl::Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Impl* server, tcp::socket socket) : server_(server), socket_(std::move(socket)) {
    boost::system::error_code ec;
    auto ep = socket_.remote_endpoint(ec);
    peer_ = ec ? std::string("?") : ep.address().to_string() + ":" + std::to_string(ep.port());
  }

  // The coroutine owns its connection: a reference taken inside the body
  // would come too late (the body starts after co_spawn returns).
  static asio::awaitable<void> Serve(std::shared_ptr<Connection> self) { co_await self->ReadLoop(); }

 private:
  asio::awaitable<void> ReadLoop() {
    try {
      for (;;) {
        uint8_t header[kFrameHeaderSize];
        co_await asio::async_read(socket_, asio::buffer(header), asio::use_awaitable);
        uint32_t len = 0;
        FrameType type{};
        Status s = DecodeFrameHeader(header, &len, &type);
        if (s.ok() && len + 1 > server_->options.max_client_frame) {
          s = Status::InvalidArgument("frame of " + std::to_string(len + 1) + " bytes exceeds the " +
                                      std::to_string(server_->options.max_client_frame) +
                                      "-byte limit for client frames");
        }
        if (!s.ok()) {
          ProtocolError(s.message());
          co_return;
        }
        std::string payload(len, '\0');
        co_await asio::async_read(socket_, asio::buffer(payload), asio::use_awaitable);
        s = Dispatch(type, payload);
        if (!s.ok()) {
          ProtocolError(s.message());
          co_return;
        }
        if (closed_) co_return;
      }
    } catch (const boost::system::system_error& e) {
      // The peer went away (EOF, reset) or Stop() closed the socket.
      Close(e.code() == asio::error::eof || e.code() == asio::error::operation_aborted
                ? std::string()
                : std::string("read failed: ") + e.code().message());
    }
  }


 public:
  // Network thread: closes the socket and cancels everything in flight.
  void Close(const std::string& reason) {
    if (closed_) return;
    closed_ = true;
    if (!reason.empty()) server_->Log(peer_ + ": closing connection: " + reason);
    for (auto& [id, req] : requests_) req->Cancel();
    boost::system::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
    server_->open_connections.fetch_sub(1);
    server_->live.erase(this);
  }

  // Network thread: cancels requests in flight (delayed bins start now and
  // see the cancel); their Done frames still go out.
  void CancelAll() {
    for (auto& [id, req] : requests_) req->Cancel();
  }
  bool idle() const { return requests_.empty() && !writing_; }

 private:
  void ProtocolError(const std::string& why) {
    server_->protocol_errors.fetch_add(1);
    Close(why);
  }

  Status Dispatch(FrameType type, std::string_view payload) {
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
      if (!ConstantTimeEqual(hello.token, server_->options.token)) {
        return Status::InvalidArgument("wrong token");
      }
      greeted_ = true;
      const Manifest& m = server_->index->manifest();
      Welcome w{kWireVersion, m.index_id, m.generation, m.bins,
                static_cast<uint32_t>(m.tablets.size()), server_->first_tablet, server_->last_tablet};
      std::string frame;
      EncodeWelcome(w, &frame);
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
        auto it = requests_.find(c.request_id);
        if (it != requests_.end()) it->second->Cancel();
        return Status::OK();
      }
      default:
        return Status::InvalidArgument(std::string("unexpected ") + FrameTypeName(type) + " frame");
    }
  }

  void SendDone(uint64_t id, DoneCode code, const std::string& message) {
    std::string frame;
    EncodeDone({id, code, message}, &frame);
    Send(std::move(frame));
  }

  void StartQuery(QueryRequest q) {
    server_->queries.fetch_add(1);
    if (requests_.count(q.request_id)) {
      return SendDone(q.request_id, DoneCode::kInvalidQuery, "request id already in flight");
    }
    if (q.first_tablet < server_->first_tablet || q.last_tablet > server_->last_tablet) {
      return SendDone(q.request_id, DoneCode::kInvalidQuery,
                      "tablets " + std::to_string(q.first_tablet) + "-" + std::to_string(q.last_tablet) +
                          " not hosted here (" + std::to_string(server_->first_tablet) + "-" +
                          std::to_string(server_->last_tablet) + ")");
    }
    if (Status v = ValidateQuery(q.root); !v.ok()) {
      return SendDone(q.request_id, DoneCode::kInvalidQuery, v.message());
    }
    auto req = std::make_shared<Request>();
    req->id = q.request_id;
    req->count_only = q.count_only;
    req->limit = q.limit;
    req->received = Clock::now();
    if (q.deadline_ms > 0) req->deadline = req->received + std::chrono::milliseconds(q.deadline_ms);
    if (q.limit > 0) req->budget.emplace(q.limit);
    auto plan = PlanQuery(q.root, server_->index->global(), server_->index->bins());
    if (!plan.ok()) return SendDone(q.request_id, DoneCode::kIndexError, plan.status().message());
    req->plan = std::move(plan).value();
    const Manifest& manifest = server_->index->manifest();
    std::vector<BinId> bins;
    if (!req->plan.empty) {
      for (BinId bin : req->plan.bins) {
        const size_t t = manifest.TabletOf(bin.value);
        if (t >= q.first_tablet && t <= q.last_tablet) bins.push_back(bin);
      }
    }
    if (bins.empty()) return SendDone(q.request_id, DoneCode::kOk, "");
    req->pending_bins = bins.size();
    for (BinId bin : bins) ++req->pending_of_tablet[static_cast<uint32_t>(manifest.TabletOf(bin.value))];
    requests_[req->id] = req;
    TabletDelays delays;
    delays.Draw(server_->delays.get(), manifest, bins);
    for (BinId bin : bins) {
      const uint32_t tablet = static_cast<uint32_t>(manifest.TabletOf(bin.value));
      ScheduleBin(req, bin, tablet, delays.of(tablet));
    }
  }

  void ScheduleBin(const std::shared_ptr<Request>& req, BinId bin, uint32_t tablet, int64_t delay_us) {
    auto self = shared_from_this();
    // Cheap plans run right here: two thread hand-offs would cost more than
    // the bin (the in-process coordinator's rule, query/coordinator.h).
    if (delay_us <= 0 && req->plan.estimated_postings < kInlinePostings) {
      return BinFinished(req, EvaluateBin(*req, bin, tablet));
    }
    auto run = [self, req, bin, tablet] {
      asio::post(*self->server_->workers, [self, req, bin, tablet] {
        BinOutcome out = self->EvaluateBin(*req, bin, tablet);
        asio::post(self->server_->io, [self, req, out = std::move(out)]() mutable {
          self->BinFinished(req, std::move(out));
        });
      });
    };
    if (delay_us <= 0) return run();
    auto timer = std::make_shared<asio::steady_timer>(server_->io, std::chrono::microseconds(delay_us));
    req->timers.push_back(timer);
    timer->async_wait([timer, run](const boost::system::error_code&) { run(); });
  }

  // Worker thread.
  BinOutcome EvaluateBin(Request& req, BinId bin, uint32_t tablet) {
    BinOutcome out;
    BinTask task;
    task.bin = bin;
    task.count_only = req.count_only;
    task.limit = req.limit;
    task.budget = req.budget ? &*req.budget : nullptr;
    task.fetch = Fetch::kIdsAndTitles;
    task.cancel = &req.cancel;
    task.deadline = req.deadline;
    task.queued = req.received;
    BinResult r;
    Status s = server_->executor->Execute(req.plan, task, &r);
    BinStats& stats = out.stats;
    stats.request_id = req.id;
    stats.bin = bin.value;
    stats.tablet = tablet;
    if (!s.ok()) {
      out.error = s.message();
      return out;
    }
    if (r.deadline_passed) req.deadline_hit.store(true);
    stats.queue_wait_us = ClampMicros(r.queue_wait_us);
    stats.service_us = ClampMicros(r.service_us);
    stats.cancelled = r.cancelled;
    stats.truncated = r.truncated;
    stats.fast_path = r.fast_path;
    stats.results = r.count;
    ResultBatch batch{req.id, bin.value, tablet, {}};
    for (size_t i = 0; i < r.stored.size(); ++i) {
      batch.docs.push_back({r.docs[i], std::move(r.stored[i].id), std::move(r.stored[i].title)});
      if (batch.docs.size() == kDocsPerFrame || i + 1 == r.stored.size()) {
        EncodeResults(batch, &out.frames);
        batch.docs.clear();
      }
    }
    stats.bytes = out.frames.size();
    return out;
  }

  // Network thread.
  void BinFinished(const std::shared_ptr<Request>& req, BinOutcome out) {
    if (closed_) return;
    if (!out.error.empty() && req->error.empty()) req->error = out.error;
    BinStats& stats = out.stats;
    if (stats.cancelled || !out.error.empty()) req->tablets_not_whole.insert(stats.tablet);
    stats.tablet_complete = --req->pending_of_tablet[stats.tablet] == 0 && !req->tablets_not_whole.count(stats.tablet);
    if (out.error.empty()) EncodeBinStats(stats, &out.frames);  // a failed bin has no stats: Done reports it
    if (!out.frames.empty()) Send(std::move(out.frames));
    if (--req->pending_bins > 0) return;
    requests_.erase(req->id);
    if (closed_) return;
    if (!req->error.empty()) return SendDone(req->id, DoneCode::kIndexError, req->error);
    if (req->deadline_hit.load()) return SendDone(req->id, DoneCode::kDeadline, "deadline passed");
    const bool limit_reached = req->budget && req->budget->exhausted();
    if (req->cancel.load() && !limit_reached) return SendDone(req->id, DoneCode::kCancelled, "");
    SendDone(req->id, DoneCode::kOk, "");
  }

  // Network thread: queues bytes for the socket.
  void Send(std::string bytes) {
    if (closed_) return;
    unread_ += bytes.size();
    if (unread_ > server_->options.max_unread_output) {
      return Close("client is not reading (" + std::to_string(unread_) + " bytes unread)");
    }
    out_.push_back(std::move(bytes));
    WriteNext();
  }

  // Writes everything queued in one gathered write: a query's BinStats and
  // Done frames then leave in one segment, not one syscall each.
  void WriteNext() {
    if (writing_ || out_.empty() || closed_) return;
    writing_ = true;
    in_flight_ = out_.size();
    std::vector<asio::const_buffer> buffers;
    buffers.reserve(in_flight_);
    for (const auto& b : out_) buffers.push_back(asio::buffer(b));
    auto self = shared_from_this();
    asio::async_write(socket_, buffers, [self](const boost::system::error_code& ec, size_t n) {
      self->writing_ = false;
      self->unread_ -= n;
      for (size_t i = 0; i < self->in_flight_ && !self->out_.empty(); ++i) self->out_.pop_front();
      if (ec) return self->Close(ec == asio::error::operation_aborted ? "" : "write failed: " + ec.message());
      self->WriteNext();
    });
  }

  Impl* server_;
  tcp::socket socket_;
  std::string peer_;
  bool greeted_ = false;
  bool closed_ = false;
  bool writing_ = false;
  size_t unread_ = 0;
  size_t in_flight_ = 0;  // frames of out_ in the current write
  std::deque<std::string> out_;
  std::unordered_map<uint64_t, std::shared_ptr<Request>> requests_;
};

asio::awaitable<void> ShardServer::Impl::AcceptLoop() {
  for (;;) {
    boost::system::error_code ec;
    tcp::socket socket = co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
      Log(std::string("accept failed: ") + ec.message());
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);
    connections.fetch_add(1);
    open_connections.fetch_add(1);
    auto conn = std::make_shared<Connection>(this, std::move(socket));
    live[conn.get()] = conn;
    asio::co_spawn(io, Connection::Serve(conn), asio::detached);
  }
}

void ShardServer::Impl::DoStop() {
  stopping.store(true);
  // 1. Stop accepting; cancel what is in flight (on the network thread).
  asio::post(io, [this] {
    boost::system::error_code ec;
    acceptor.close(ec);
    for (auto& [p, weak] : live) {
      if (auto c = weak.lock()) c->CancelAll();
    }
  });
  // 2. Cancelled bins finish at once; wait (a bounded time) until every
  //    request has sent its Done frame and the output is flushed.
  for (int i = 0; i < 200; ++i) {
    std::promise<bool> idle;
    asio::post(io, [this, &idle] {
      bool all = true;
      for (auto& [p, weak] : live) {
        if (auto c = weak.lock(); c && !c->idle()) all = false;
      }
      idle.set_value(all);
    });
    if (idle.get_future().get()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // 3. Close every connection, then let the threads run out of work.
  asio::post(io, [this] {
    std::vector<std::shared_ptr<Connection>> all;
    for (auto& [p, weak] : live) {
      if (auto c = weak.lock()) all.push_back(c);
    }
    for (auto& c : all) c->Close("");
  });
  workers->join();
  work.reset();
  io_thread.join();
}

ShardServer::ShardServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ShardServer::~ShardServer() { Stop(); }

Result<std::unique_ptr<ShardServer>> ShardServer::Start(const IndexReader* index, uint32_t first_tablet,
                                                        uint32_t last_tablet, ServerOptions options) {
  if (first_tablet > last_tablet || last_tablet >= index->tablet_count()) {
    return Status::InvalidArgument("tablets " + std::to_string(first_tablet) + "-" +
                                   std::to_string(last_tablet) + " outside the index's 0-" +
                                   std::to_string(index->tablet_count() - 1));
  }
  auto impl = std::make_unique<Impl>();
  impl->index = index;
  impl->first_tablet = first_tablet;
  impl->last_tablet = last_tablet;
  impl->delays = std::make_unique<DelayInjector>(options.delays);
  impl->options = std::move(options);
  impl->executor.emplace(index);
  const unsigned n = impl->options.workers ? impl->options.workers
                                           : std::max(1u, std::thread::hardware_concurrency());
  impl->workers = std::make_unique<asio::thread_pool>(n);
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

ServerCounters ShardServer::counters() const {
  return {impl_->connections.load(), impl_->open_connections.load(), impl_->queries.load(),
          impl_->protocol_errors.load()};
}

void ShardServer::Stop() {
  if (!impl_) return;
  std::call_once(impl_->stop_once, [this] { impl_->DoStop(); });
}

}  // namespace dps
