#include "query/local_shards.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "common/coding.h"
#include "shards/bin_executor.h"
#include "shards/server_query.h"

namespace dps {

namespace asio = boost::asio;

struct LocalShards::Impl {
  std::shared_ptr<const IndexReader> index;  // destroyed last
  // One network thread per replica, as each server has its own: a
  // replica runs a cheap plan's bins right on it (ServerQuery), and on a
  // thread shared by all of them one replica's bins would hold up the
  // others' requests and cancels (a tied pair would run one twin after
  // the other, each to its end).
  struct Network {
    asio::io_context io;
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
    std::thread thread;
  };
  std::vector<std::unique_ptr<Network>> networks;  // by replica
  std::unique_ptr<asio::thread_pool> workers;
  std::optional<IndexHolder> holder;  // one generation: local replicas do not follow
  // By replica. A host's injector is swapped on its network thread (where
  // requests read it); replaced ones are kept until the end.
  std::vector<QueryHost> hosts;
  // Grown by SetDelays on the replica's own thread: replicas' calls may
  // run at once, so under injectors_mu.
  std::mutex injectors_mu;
  std::vector<std::unique_ptr<DelayInjector>> injectors;
  std::vector<ClusterRange> ranges;
  std::atomic<size_t> in_flight{0};
  // Each link's "drop what you run" (its replica's network thread), by
  // replica, for the end.
  std::mutex links_mu;
  std::vector<std::vector<std::function<void()>>> drop_links;
};

namespace {

constexpr char kPrefix[] = "local/";

// A cluster client's connection to one replica. Connect, Submit, Cancel
// and Close come on the client's network thread; the requests run, and
// their frames come back (FrameSink), on the replica's network thread,
// decoded into the client's events exactly as a socket's would be.
class LocalLink final : public Link, public FrameSink, public std::enable_shared_from_this<LocalLink> {
 public:
  LocalLink(LocalShards::Impl* shards, size_t replica, const LinkContext* context, std::string address)
      : shards_(shards), replica_(replica), context_(context), address_(std::move(address)) {}

  void Connect(std::function<void(const Status&)> on_ready) override {
    on_ready(context_->on_welcome(address_, WelcomeOf(shards_->hosts[replica_])));
  }

  void Submit(uint64_t rid, std::string frame) override {
    asio::post(io(), [self = shared_from_this(), rid, frame = std::move(frame)] { self->Start(rid, frame); });
  }

  void Cancel(uint64_t rid) override {
    asio::post(io(), [self = shared_from_this(), rid] {
      if (auto it = self->queries_.find(rid); it != self->queries_.end()) it->second->Cancel();
    });
  }

  // No event reaches the client from now on (it may be gone); what runs
  // is cancelled.
  void Close() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    asio::post(io(), [self = shared_from_this()] { self->Drop(); });
  }

  // The replica's network thread: cancels and lets go of every request
  // (they hold this link as their sink).
  void Drop() {
    auto queries = std::move(queries_);
    queries_.clear();
    shards_->in_flight.fetch_sub(queries.size());
    for (auto& [rid, q] : queries) q->Cancel();
  }

  // FrameSink (the replica's network thread): one or more whole frames.
  void Send(std::string frames) override {
    std::vector<LinkEvent> batch;
    Status bad;
    const auto* p = reinterpret_cast<const uint8_t*>(frames.data());
    for (size_t at = 0; bad.ok() && at < frames.size();) {
      uint32_t len = 0;
      FrameType type{};
      bad = frames.size() - at < kFrameHeaderSize ? Status::Corruption("a cut frame")
                                                  : DecodeFrameHeader(p + at, &len, &type);
      if (bad.ok() && frames.size() - at - kFrameHeaderSize < len) bad = Status::Corruption("a cut frame");
      if (!bad.ok()) break;
      LinkEvent e;
      bad = DecodeLinkEvent(type, std::string_view(frames).substr(at + kFrameHeaderSize, len), &e);
      if (bad.ok()) batch.push_back(std::move(e));
      at += kFrameHeaderSize + len;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    if (!bad.ok()) {  // our own frames: a bug, but never a silent one
      for (auto& [rid, q] : queries_) {
        context_->events->Push(LinkEvent{LinkEvent::kFailed, rid, {}, {}, {}, bad.WithContext(address_)});
      }
      return;
    }
    context_->events->PushAll(&batch);
  }
  void QueryDone(uint64_t rid) override {
    if (queries_.erase(rid) > 0) shards_->in_flight.fetch_sub(1);
  }

 private:
  asio::io_context& io() { return shards_->networks[replica_]->io; }

  // The replica's network thread: a Query frame, as a server's connection
  // would take it.
  void Start(uint64_t rid, const std::string& frame) {
    uint32_t len = 0;
    FrameType type{};
    QueryRequest q;
    Status s = frame.size() < kFrameHeaderSize
                   ? Status::Corruption("a cut frame")
                   : DecodeFrameHeader(reinterpret_cast<const uint8_t*>(frame.data()), &len, &type);
    if (s.ok() && (type != FrameType::kQuery || frame.size() != kFrameHeaderSize + len)) {
      s = Status::Corruption("not a Query frame");
    }
    if (s.ok()) s = DecodeQuery(std::string_view(frame).substr(kFrameHeaderSize), &q);
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!closed_) context_->events->Push(LinkEvent{LinkEvent::kFailed, rid, {}, {}, {}, s.WithContext(address_)});
      return;
    }
    auto query = ServerQuery::Start(&shards_->hosts[replica_], std::move(q), shared_from_this());
    if (query == nullptr) return;  // answered at once
    shards_->in_flight.fetch_add(1);
    queries_[rid] = std::move(query);
  }

  LocalShards::Impl* shards_;
  size_t replica_;
  const LinkContext* context_;
  std::string address_;
  std::mutex mu_;        // closed_ against the client's queue
  bool closed_ = false;
  std::map<uint64_t, std::shared_ptr<ServerQuery>> queries_;  // the replica's network thread
};

}  // namespace

LocalShards::LocalShards(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

LocalShards::~LocalShards() {
  // Links not closed by their clients let go of their requests first (a
  // request and its link hold each other); requests still queued or held
  // by a delay are then dropped with the network thread, and bins already
  // on a worker finish.
  for (size_t r = 0; r < impl_->networks.size(); ++r) {
    std::promise<void> dropped;
    asio::post(impl_->networks[r]->io, [&] {
      std::lock_guard<std::mutex> lock(impl_->links_mu);
      for (auto& drop : impl_->drop_links[r]) drop();
      dropped.set_value();
    });
    dropped.get_future().wait();
  }
  for (auto& n : impl_->networks) {
    n->work.reset();
    n->io.stop();
    n->thread.join();
  }
  impl_->workers->join();
}

Result<std::shared_ptr<LocalShards>> LocalShards::Start(std::shared_ptr<const IndexReader> index, size_t replicas, unsigned workers,
                                                        const std::vector<std::vector<DelayRule>>& delays,
                                                        uint64_t seed) {
  if (replicas == 0) return Status::InvalidArgument("--replicas: at least 1");
  if (delays.size() > replicas) {
    return Status::InvalidArgument("--inject-delay names replica " + std::to_string(delays.size() - 1) + " of " +
                                   std::to_string(replicas) + " (replicas are 0-" + std::to_string(replicas - 1) +
                                   ")");
  }
  auto impl = std::make_unique<Impl>();
  impl->index = index;
  impl->holder.emplace(index);
  impl->workers = std::make_unique<asio::thread_pool>(workers ? workers
                                                              : std::max(1u, std::thread::hardware_concurrency()));
  ClusterRange range;
  range.first_tablet = 0;
  range.last_tablet = static_cast<uint32_t>(index->tablet_count() - 1);
  impl->drop_links.resize(replicas);
  for (size_t r = 0; r < replicas; ++r) {
    impl->injectors.push_back(std::make_unique<DelayInjector>(r < delays.size() ? delays[r] : std::vector<DelayRule>{},
                                                              seed + r));
    auto& network = *impl->networks.emplace_back(std::make_unique<Impl::Network>());
    impl->hosts.push_back(QueryHost{&*impl->holder, range.first_tablet, range.last_tablet,
                                    impl->injectors.back().get(), &network.io, impl->workers.get()});
    range.replicas.push_back(kPrefix + std::to_string(r));
  }
  impl->ranges.push_back(std::move(range));
  for (auto& n : impl->networks) {
    n->work.emplace(n->io.get_executor());
    n->thread = std::thread([io = &n->io] { io->run(); });
  }
  return std::shared_ptr<LocalShards>(new LocalShards(std::move(impl)));
}

const std::vector<ClusterRange>& LocalShards::ranges() const { return impl_->ranges; }

std::shared_ptr<Link> LocalShards::NewLink(const LinkContext* context, const std::string& address) {
  const std::vector<std::string>& names = impl_->ranges.front().replicas;
  for (size_t r = 0; r < names.size(); ++r) {
    if (names[r] != address) continue;
    auto link = std::make_shared<LocalLink>(impl_.get(), r, context, address);
    std::lock_guard<std::mutex> lock(impl_->links_mu);
    impl_->drop_links[r].push_back([weak = std::weak_ptr<LocalLink>(link)] {
      if (auto l = weak.lock()) l->Drop();
    });
    return link;
  }
  return nullptr;
}

size_t LocalShards::requests_in_flight() const { return impl_->in_flight.load(); }

void LocalShards::SetDelays(size_t replica, std::vector<DelayRule> rules, uint64_t seed) {
  std::promise<void> done;
  asio::post(impl_->networks.at(replica)->io, [&] {
    auto injector = std::make_unique<DelayInjector>(std::move(rules), seed);
    impl_->hosts.at(replica).delays = injector.get();
    std::lock_guard<std::mutex> lock(impl_->injectors_mu);
    impl_->injectors.push_back(std::move(injector));
    done.set_value();
  });
  done.get_future().wait();
}

}  // namespace dps
