#include "query/cluster.h"

#include "common/coding.h"
#include "query/result_stream.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

namespace dps {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

Result<std::vector<ClusterRange>> ReadClusterFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IOError(path + ": cannot open cluster file");
  std::vector<ClusterRange> out;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string range;
    if (!(words >> range)) continue;
    auto bad = [&](const std::string& why) {
      return Status::InvalidArgument(path + ": line " + std::to_string(n) + ": " + why);
    };
    ClusterRange r;
    unsigned long first = 0, last = 0;
    char* end = nullptr;
    first = std::strtoul(range.c_str(), &end, 10);
    if (end == range.c_str()) return bad("expected a tablet range such as 0-3, got '" + range + "'");
    last = first;
    if (*end == '-') {
      const char* second = end + 1;
      last = std::strtoul(second, &end, 10);
      if (end == second) return bad("bad tablet range '" + range + "'");
    }
    if (*end != '\0' || first > last || last > UINT32_MAX) return bad("bad tablet range '" + range + "'");
    r.first_tablet = static_cast<uint32_t>(first);
    r.last_tablet = static_cast<uint32_t>(last);
    std::string replica;
    while (words >> replica) {
      const size_t colon = replica.rfind(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == replica.size()) {
        return bad("expected HOST:PORT, got '" + replica + "'");
      }
      r.replicas.push_back(replica);
    }
    if (r.replicas.empty()) return bad("tablets " + range + " have no server");
    out.push_back(std::move(r));
  }
  if (out.empty()) return Status::InvalidArgument(path + ": no tablet ranges");
  std::sort(out.begin(), out.end(),
            [](const ClusterRange& a, const ClusterRange& b) { return a.first_tablet < b.first_tablet; });
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].first_tablet <= out[i - 1].last_tablet) {
      return Status::InvalidArgument(path + ": tablet ranges overlap at tablet " +
                                     std::to_string(out[i].first_tablet));
    }
  }
  return out;
}

namespace {

struct Event {
  enum Kind { kResults, kStats, kDone, kFailed } kind = kFailed;
  uint64_t rid = 0;
  ResultBatch results;
  BinStats stats;
  Done done;
  std::string error;
};

// Network thread -> caller thread.
class EventQueue {
 public:
  void Push(Event e) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      events_.push_back(std::move(e));
    }
    cv_.notify_one();
  }
  // One wake-up for a batch (the frames of one socket read).
  void PushAll(std::vector<Event>* batch) {
    if (batch->empty()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& e : *batch) events_.push_back(std::move(e));
    }
    batch->clear();
    cv_.notify_one();
  }
  // False on timeout.
  bool PopUntil(Clock::time_point until, Event* e) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_until(lock, until, [&] { return !events_.empty(); })) return false;
    *e = std::move(events_.front());
    events_.pop_front();
    return true;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Event> events_;
};

struct Identity {
  std::string index_id;
  uint64_t generation = 0;
  uint32_t bins = 0, tablets = 0;
  bool operator==(const Identity&) const = default;
  std::string ToString() const {
    return "index " + index_id + " generation " + std::to_string(generation) + " (" +
           std::to_string(bins) + " bins, " + std::to_string(tablets) + " tablets)";
  }
};

}  // namespace

struct ClusterClient::Impl {
  ClusterOptions options;
  std::vector<ClusterRange> ranges;
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::thread io_thread;
  EventQueue events;
  std::mutex identity_mu;
  std::optional<Identity> identity;  // of the first server that answered
  uint64_t next_rid = 1;
  std::vector<double> recent_us;  // latest complete range latencies (hedging)
  size_t recent_next = 0;
  class Link;
  std::map<std::string, std::shared_ptr<Link>> links;  // by address

  double HedgeDelayUs() const;
  void RecordLatency(double us);
};

// A connection to one server; everything but the constructor runs on the
// network thread.
class ClusterClient::Impl::Link : public std::enable_shared_from_this<Link> {
 public:
  Link(Impl* impl, std::string address) : impl_(impl), address_(std::move(address)), socket_(impl->io) {}

  const std::string& address() const { return address_; }

  // Connects now if idle; `on_ready` learns the outcome (empty = ready).
  void Connect(std::function<void(const std::string&)> on_ready) {
    if (state_ == kReady) return on_ready("");
    watchers_.push_back(std::move(on_ready));
    if (state_ == kConnecting) return;
    state_ = kConnecting;
    asio::co_spawn(impl_->io, ConnectAndRead(shared_from_this()), asio::detached);
  }

  void Submit(uint64_t rid, std::string frame) {
    pending_.insert(rid);
    if (state_ == kReady) return Write(std::move(frame));
    auto self = shared_from_this();
    Connect([self, rid, frame = std::move(frame)](const std::string& error) mutable {
      if (error.empty()) {
        if (self->pending_.count(rid)) self->Write(std::move(frame));
      } else if (self->pending_.erase(rid)) {
        self->impl_->events.Push(Event{Event::kFailed, rid, {}, {}, {}, error});
      }
    });
  }

  void Cancel(uint64_t rid) {
    if (state_ != kReady || !pending_.count(rid)) return;
    std::string frame;
    EncodeCancel({rid}, &frame);
    Write(std::move(frame));
  }

  uint32_t first_tablet() const { return welcome_.first_tablet; }
  uint32_t last_tablet() const { return welcome_.last_tablet; }

 private:
  enum State { kIdle, kConnecting, kReady };

  static asio::awaitable<void> ConnectAndRead(std::shared_ptr<Link> self) { co_await self->Run(); }

  asio::awaitable<void> Run() {
    std::string error;
    try {
      const size_t colon = address_.rfind(':');
      tcp::resolver resolver(impl_->io);
      auto endpoints = co_await resolver.async_resolve(address_.substr(0, colon),
                                                       address_.substr(colon + 1), asio::use_awaitable);
      // The handshake must finish in time or the socket is closed under it.
      asio::steady_timer timer(impl_->io, std::chrono::milliseconds(impl_->options.connect_timeout_ms));
      bool timed_out = false;
      timer.async_wait([this, &timed_out](const boost::system::error_code& ec) {
        if (!ec) {
          timed_out = true;
          boost::system::error_code ignored;
          socket_.close(ignored);
        }
      });
      try {
        co_await asio::async_connect(socket_, endpoints, asio::use_awaitable);
        socket_.set_option(tcp::no_delay(true));
        std::string hello;
        EncodeHello({kWireVersion, impl_->options.token}, &hello);
        co_await asio::async_write(socket_, asio::buffer(hello), asio::use_awaitable);
        auto [type, payload] = co_await ReadFrame();
        if (type != FrameType::kWelcome) throw std::runtime_error("expected Welcome");
        Status s = DecodeWelcome(payload, &welcome_);
        if (!s.ok()) throw std::runtime_error(s.message());
      } catch (...) {
        timer.cancel();
        if (timed_out) throw std::runtime_error("no answer within " + std::to_string(impl_->options.connect_timeout_ms) + " ms");
        throw;
      }
      timer.cancel();
      const Identity id{welcome_.index_id, welcome_.generation, welcome_.bins, welcome_.tablets};
      {
        std::lock_guard<std::mutex> lock(impl_->identity_mu);
        if (!impl_->identity) impl_->identity = id;
        if (!(*impl_->identity == id)) {
          throw std::runtime_error("serves " + id.ToString() + ", others serve " + impl_->identity->ToString());
        }
      }
      state_ = kReady;
      Notify("");
      std::vector<Event> batch;
      for (;;) {
        if (!FrameBuffered()) impl_->events.PushAll(&batch);  // about to wait: deliver
        auto [type, payload] = co_await ReadFrame();
        Event e;
        Status s;
        switch (type) {
          case FrameType::kResults:
            e.kind = Event::kResults;
            s = DecodeResults(payload, &e.results);
            e.rid = e.results.request_id;
            break;
          case FrameType::kBinStats:
            e.kind = Event::kStats;
            s = DecodeBinStats(payload, &e.stats);
            e.rid = e.stats.request_id;
            break;
          case FrameType::kDone:
            e.kind = Event::kDone;
            s = DecodeDone(payload, &e.done);
            e.rid = e.done.request_id;
            break;
          default:
            s = Status::InvalidArgument(std::string("unexpected ") + FrameTypeName(type) + " frame");
        }
        if (!s.ok()) throw std::runtime_error(s.message());
        if (!pending_.count(e.rid)) continue;  // a request this link already gave up
        if (e.kind == Event::kDone) pending_.erase(e.rid);
        batch.push_back(std::move(e));
      }
    } catch (const boost::system::system_error& e) {
      error = e.code() == asio::error::eof ? "connection closed by server" : e.code().message();
    } catch (const std::exception& e) {
      error = e.what();
    }
    Fail(error);
  }

  // Whether a whole frame is already buffered.
  bool FrameBuffered() const {
    const size_t avail = in_.size() - in_pos_;
    return avail >= 4 && avail >= 4 + size_t{DecodeFixed32(reinterpret_cast<const uint8_t*>(in_.data() + in_pos_))};
  }

  // Reads through a buffer: one read_some usually brings many small frames.
  asio::awaitable<void> Fill(size_t need) {
    if (in_pos_ > 0 && in_.size() - in_pos_ < need) {
      in_.erase(0, in_pos_);
      in_pos_ = 0;
    }
    while (in_.size() - in_pos_ < need) {
      const size_t have = in_.size();
      in_.resize(std::max(have + 65536, in_pos_ + need));
      const size_t n = co_await socket_.async_read_some(asio::buffer(in_.data() + have, in_.size() - have),
                                                         asio::use_awaitable);
      in_.resize(have + n);
    }
  }

  asio::awaitable<std::pair<FrameType, std::string>> ReadFrame() {
    co_await Fill(kFrameHeaderSize);
    uint32_t len = 0;
    FrameType type{};
    Status s = DecodeFrameHeader(reinterpret_cast<const uint8_t*>(in_.data() + in_pos_), &len, &type);
    if (!s.ok()) throw std::runtime_error(s.message());
    co_await Fill(kFrameHeaderSize + len);
    std::string payload = in_.substr(in_pos_ + kFrameHeaderSize, len);
    in_pos_ += kFrameHeaderSize + len;
    co_return std::make_pair(type, std::move(payload));
  }

  void Notify(const std::string& error) {
    auto watchers = std::move(watchers_);
    watchers_.clear();
    for (auto& w : watchers) w(error);
  }

  void Fail(const std::string& error) {
    const std::string why = address_ + ": " + (error.empty() ? "connection lost" : error);
    boost::system::error_code ec;
    socket_.close(ec);
    socket_ = tcp::socket(impl_->io);
    state_ = kIdle;
    in_.clear();
    in_pos_ = 0;
    out_.clear();
    writing_ = false;
    for (uint64_t rid : pending_) impl_->events.Push(Event{Event::kFailed, rid, {}, {}, {}, why});
    pending_.clear();
    Notify(why);
  }

  void Write(std::string frame) {
    out_.push_back(std::move(frame));
    WriteNext();
  }

  void WriteNext() {
    if (writing_ || out_.empty() || state_ != kReady) return;
    writing_ = true;
    auto self = shared_from_this();
    asio::async_write(socket_, asio::buffer(out_.front()), [self](const boost::system::error_code& ec, size_t) {
      self->writing_ = false;
      if (ec) return;  // the read loop notices the broken socket and fails the link
      if (!self->out_.empty()) self->out_.pop_front();
      self->WriteNext();
    });
  }

  Impl* impl_;
  std::string address_;
  tcp::socket socket_;
  State state_ = kIdle;
  Welcome welcome_;
  std::deque<std::string> out_;
  bool writing_ = false;
  std::set<uint64_t> pending_;
  std::vector<std::function<void(const std::string&)>> watchers_;
  std::string in_;     // bytes read, not yet parsed from in_pos_ on
  size_t in_pos_ = 0;
};

double ClusterClient::Impl::HedgeDelayUs() const {
  if (options.hedge_after_ms > 0) return options.hedge_after_ms * 1000;
  if (options.hedge_percentile <= 0 || recent_us.size() < 20) return -1;
  std::vector<double> v = recent_us;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(options.hedge_percentile / 100 * v.size()));
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[k];
}

void ClusterClient::Impl::RecordLatency(double us) {
  constexpr size_t kWindow = 1000;
  if (recent_us.size() < kWindow) {
    recent_us.push_back(us);
  } else {
    recent_us[recent_next] = us;
    recent_next = (recent_next + 1) % kWindow;
  }
}

ClusterClient::ClusterClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ClusterClient::~ClusterClient() {
  asio::post(impl_->io, [impl = impl_.get()] {
    impl->links.clear();
    impl->io.stop();
  });
  impl_->work.reset();
  impl_->io_thread.join();
}

Result<std::unique_ptr<ClusterClient>> ClusterClient::Connect(std::vector<ClusterRange> ranges,
                                                              ClusterOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->ranges = std::move(ranges);
  impl->work.emplace(impl->io.get_executor());
  Impl* raw = impl.get();
  impl->io_thread = std::thread([raw] { raw->io.run(); });
  std::unique_ptr<ClusterClient> client(new ClusterClient(std::move(impl)));

  // Probe every server once: identities must agree and ranges be hosted.
  std::vector<std::string> addresses;
  for (const auto& r : raw->ranges) {
    for (const auto& a : r.replicas) {
      if (std::find(addresses.begin(), addresses.end(), a) == addresses.end()) addresses.push_back(a);
    }
  }
  std::vector<std::future<std::string>> outcomes;
  for (const auto& a : addresses) {
    auto done = std::make_shared<std::promise<std::string>>();
    outcomes.push_back(done->get_future());
    asio::post(raw->io, [raw, a, done] {
      auto& link = raw->links[a];
      if (!link) link = std::make_shared<Impl::Link>(raw, a);
      link->Connect([done](const std::string& error) { done->set_value(error); });
    });
  }
  size_t reachable = 0;
  for (size_t i = 0; i < addresses.size(); ++i) {
    const std::string error = outcomes[i].get();
    if (error.empty()) {
      ++reachable;
      continue;
    }
    if (error.find("others serve") != std::string::npos) {
      return Status::InvalidArgument("cluster: " + error);
    }
    if (raw->options.log) raw->options.log("warning: " + error);
  }
  if (reachable == 0) return Status::IOError("cluster: no server answered");
  // Ranges must lie inside the index and inside what their servers host.
  std::promise<Status> checked;
  asio::post(raw->io, [raw, &checked] {
    Status s;
    for (const auto& r : raw->ranges) {
      if (raw->identity && r.last_tablet >= raw->identity->tablets) {
        s = Status::InvalidArgument("cluster: tablets " + std::to_string(r.first_tablet) + "-" +
                                    std::to_string(r.last_tablet) + " beyond the index's " +
                                    std::to_string(raw->identity->tablets));
        break;
      }
    }
    checked.set_value(s);
  });
  DPS_RETURN_IF_ERROR(checked.get_future().get());
  return client;
}

Status ClusterClient::Run(QueryNode root, const SearchOptions& options, const ResultSink& sink,
                          SearchStats* stats) {
  SearchStats unused;
  if (stats == nullptr) stats = &unused;
  *stats = SearchStats();
  Impl& impl = *impl_;
  const bool count_only = options.count_only;
  const size_t limit = options.limit;
  ResultStream stream(options, sink, stats, /*timed=*/true);
  const auto start = stream.start();
  const auto deadline = impl.options.deadline_ms > 0
                            ? start + std::chrono::milliseconds(impl.options.deadline_ms)
                            : Clock::time_point::max();
  const double hedge_us = impl.HedgeDelayUs();

  struct Attempt {
    size_t range;
    size_t replica;
    Clock::time_point sent;
    bool active = true;
  };
  struct RangeState {
    bool done = false;
    bool missing = false;
    size_t next_replica = 0;  // the next replica not tried yet
    int active = 0;
    bool hedged = false;
  };
  std::vector<RangeState> ranges(impl.ranges.size());
  std::unordered_map<uint64_t, Attempt> attempts;
  std::map<std::pair<uint64_t, uint32_t>, BinResult> buffers;  // (rid, bin)
  std::set<uint32_t> delivered_bins;
  bool stop = false;
  Status query_error;

  // The tablets of range r a server has reported whole (BinStats'
  // tablet_complete) are trimmed from its ends: a hedge or a failover asks
  // only for the rest, so the replica does less work than the first request
  // (an injected or real delay often holds up one tablet while the others
  // have answered). False when nothing is owed.
  std::set<uint32_t> complete_tablets;
  auto owed = [&](size_t r, uint32_t* first, uint32_t* last) {
    *first = impl.ranges[r].first_tablet;
    *last = impl.ranges[r].last_tablet;
    while (*first <= *last && complete_tablets.count(*first)) ++*first;
    while (*last > *first && complete_tablets.count(*last)) --*last;
    return *first <= *last;
  };
  auto send = [&](size_t r) -> bool {
    RangeState& st = ranges[r];
    const ClusterRange& cr = impl.ranges[r];
    if (st.next_replica >= cr.replicas.size()) return false;
    uint32_t first_tablet, last_tablet;
    if (!owed(r, &first_tablet, &last_tablet)) return false;
    const size_t replica = st.next_replica++;
    const uint64_t rid = impl.next_rid++;
    QueryRequest q;
    q.request_id = rid;
    q.count_only = count_only;
    q.limit = limit;
    if (impl.options.deadline_ms > 0) q.deadline_ms = impl.options.deadline_ms;
    q.first_tablet = first_tablet;
    q.last_tablet = last_tablet;
    q.root = root;
    std::string frame;
    EncodeQuery(q, &frame);
    attempts[rid] = Attempt{r, replica, Clock::now()};
    ++st.active;
    ++stats->requests;
    const std::string address = cr.replicas[replica];
    asio::post(impl.io, [&impl, address, rid, frame = std::move(frame)]() mutable {
      auto& link = impl.links[address];
      if (!link) link = std::make_shared<Impl::Link>(&impl, address);
      link->Submit(rid, std::move(frame));
    });
    return true;
  };
  auto cancel = [&](uint64_t rid) {
    auto it = attempts.find(rid);
    if (it == attempts.end() || !it->second.active) return;
    it->second.active = false;
    --ranges[it->second.range].active;
    const std::string address = impl.ranges[it->second.range].replicas[it->second.replica];
    asio::post(impl.io, [&impl, address, rid] {
      if (auto l = impl.links.find(address); l != impl.links.end()) l->second->Cancel(rid);
    });
  };
  auto cancel_all = [&] {
    for (auto& [rid, a] : attempts) {
      if (a.active) cancel(rid);
    }
  };
  auto range_name = [&](size_t r) {
    return std::to_string(impl.ranges[r].first_tablet) + "-" + std::to_string(impl.ranges[r].last_tablet);
  };
  auto give_up = [&](size_t r) {
    ranges[r].missing = true;
    stats->partial = true;
    stats->missing.push_back(range_name(r));
  };

  for (size_t r = 0; r < ranges.size(); ++r) send(r);
  auto open = [&] {
    for (const auto& st : ranges) {
      if (!st.done && !st.missing) return true;
    }
    return false;
  };
  while (!stop && open()) {
    // Wake for the deadline or the earliest hedge.
    Clock::time_point wake = deadline;
    if (hedge_us > 0) {
      for (const auto& [rid, a] : attempts) {
        const RangeState& st = ranges[a.range];
        if (a.active && !st.done && !st.missing && !st.hedged && st.active == 1 &&
            st.next_replica < impl.ranges[a.range].replicas.size()) {
          wake = std::min(wake, a.sent + std::chrono::microseconds(static_cast<int64_t>(hedge_us)));
        }
      }
    }
    Event e;
    if (!impl.events.PopUntil(wake, &e)) {
      const auto now = Clock::now();
      if (now >= deadline) {
        for (size_t r = 0; r < ranges.size(); ++r) {
          if (!ranges[r].done && !ranges[r].missing) give_up(r);
        }
        cancel_all();
        break;
      }
      for (size_t r = 0; r < ranges.size(); ++r) {
        RangeState& st = ranges[r];
        if (st.done || st.missing || st.hedged || st.active != 1) continue;
        for (const auto& [rid, a] : attempts) {
          if (a.range == r && a.active &&
              now >= a.sent + std::chrono::microseconds(static_cast<int64_t>(hedge_us))) {
            if (send(r)) ++stats->hedged;
            st.hedged = true;  // hedged, or nothing left worth hedging
            break;
          }
        }
      }
      continue;
    }
    auto it = attempts.find(e.rid);
    if (it == attempts.end() || !it->second.active) continue;  // cancelled or stale
    Attempt& attempt = it->second;
    RangeState& st = ranges[attempt.range];
    switch (e.kind) {
      case Event::kResults: {
        BinResult& b = buffers[{e.rid, e.results.bin}];
        for (auto& d : e.results.docs) {
          b.docs.push_back(d.docid);
          b.stored.push_back(StoredDoc{d.docid, std::move(d.id), std::move(d.title), {}});
        }
        break;
      }
      case Event::kStats: {
        auto node = buffers.extract({e.rid, e.stats.bin});
        // A bin cut short by a cancel, deadline or shutdown is no answer: a
        // replica may still give the whole bin.
        if (e.stats.cancelled) break;
        if (e.stats.tablet_complete) complete_tablets.insert(e.stats.tablet);
        if (delivered_bins.count(e.stats.bin)) break;  // the other replica was faster
        delivered_bins.insert(e.stats.bin);
        BinResult b = node.empty() ? BinResult() : std::move(node.mapped());
        b.bin = BinId{e.stats.bin};
        b.tablet = e.stats.tablet;
        b.count = count_only ? e.stats.results : b.docs.size();
        b.queue_wait_us = e.stats.queue_wait_us;
        b.service_us = e.stats.service_us;
        b.fast_path = e.stats.fast_path;
        stream.Record(b);
        if (!stream.Deliver(&b)) stop = true;
        break;
      }
      case Event::kDone: {
        attempt.active = false;
        --st.active;
        if (e.done.code == DoneCode::kInvalidQuery) {
          query_error = Status::InvalidArgument(e.done.message);
          stop = true;
          break;
        }
        if (e.done.code == DoneCode::kOk || e.done.code == DoneCode::kDeadline) {
          if (st.done || st.missing) break;
          st.done = true;
          if (e.done.code == DoneCode::kDeadline) give_up(attempt.range);
          impl.RecordLatency(std::chrono::duration<double, std::micro>(Clock::now() - attempt.sent).count());
          for (auto& [rid, a] : attempts) {
            if (a.range == attempt.range && a.active) cancel(rid);
          }
          break;
        }
        [[fallthrough]];  // index error or unexpected cancel: try another replica
      }
      case Event::kFailed: {
        if (attempt.active) {
          attempt.active = false;
          --st.active;
        }
        if (st.done || st.missing || st.active > 0) break;
        if (uint32_t f, l; !owed(attempt.range, &f, &l)) {
          st.done = true;  // every bin arrived before the connection failed
          break;
        }
        if (send(attempt.range)) {
          ++stats->failovers;
        } else {
          if (impl.options.log) {
            impl.options.log("tablets " + range_name(attempt.range) + ": " +
                             (e.kind == Event::kFailed ? e.error : e.done.message));
          }
          give_up(attempt.range);
        }
        break;
      }
    }
  }
  cancel_all();
  stream.Finish(stats->bins.size());
  return query_error;
}

}  // namespace dps
