#include "query/cluster_client.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <future>
#include <map>
#include <optional>
#include <thread>

#include "query/cluster_fanout.h"
#include "query/cluster_link.h"
#include "query/hedge_thresholds.h"
#include "query/local_shards.h"
#include "query/range_feed.h"
#include "query/result_stream.h"

namespace dps {

namespace asio = boost::asio;

struct ClusterClient::Impl final : FanOutHost {
  ClusterOptions options;
  std::vector<ClusterRange> ranges;
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::thread io_thread;
  LinkEventQueue events;
  LinkContext link_context;
  std::unique_ptr<ClusterRoster> roster;
  AnalyzerSpec analyzer;  // the cluster's, from Settle on
  FieldSet fields;        // likewise
  std::map<std::string, std::shared_ptr<Link>> links;  // by address; network thread only
  uint64_t next_rid = 1;
  std::unique_ptr<ReplicaSelector> selector;  // across this client's queries
  HedgeThresholds hedge_thresholds;  // --hedge-after pNN: learned per range
  HedgeThresholds started_thresholds;  // --tied-delay pNN: send to Started, learned per range
  uint64_t feed_version = 0;  // the options.feed version the ranges come from

  // Query thread, between queries: the feed's ranges, if they changed.
  void Refresh() {
    if (!options.feed || options.feed->version() == feed_version) return;
    auto snapshot = options.feed->snapshot();
    feed_version = snapshot->version;
    if (snapshot->ranges.empty() || snapshot->ranges == ranges) return;
    roster->Replace(&ranges, snapshot->ranges);
    // Learned per range index, which now means other tablets.
    hedge_thresholds = HedgeThresholds();
    started_thresholds = HedgeThresholds();
  }

  // Network thread.
  // A replica in this process (options.local), else a shard server.
  dps::Link& LinkTo(const std::string& address) {
    auto& link = links[address];
    if (!link && options.local) link = options.local->NewLink(&link_context, address);
    if (!link) link = std::make_shared<ServerLink>(&link_context, address);
    return *link;
  }
  // By range and replica: the fixed --hedge-after MS, the learned pNN, or
  // -1 (none).
  std::vector<std::vector<double>> DelaysUs(double fixed_ms, double percentile,
                                            const HedgeThresholds& thresholds) const;
  std::vector<std::vector<double>> HedgeDelaysUs() const;
  std::vector<std::vector<double>> TiedDelaysUs() const;

  // FanOutHost (the query's thread; socket work is posted to the network thread).
  uint64_t NextRequestId() override { return next_rid++; }
  void Submit(const std::string& address, uint64_t rid, std::string frame) override {
    selector->Sent(address);
    asio::post(io, [this, address, rid, frame = std::move(frame)]() mutable {
      LinkTo(address).Submit(rid, std::move(frame));
    });
  }
  void Cancel(const std::string& address, uint64_t rid) override {
    asio::post(io, [this, address, rid] {
      if (auto l = links.find(address); l != links.end()) l->second->Cancel(rid);
    });
  }
  size_t ChooseReplica(const ClusterRange& range, std::span<const size_t> candidates) override {
    return selector->Choose(range.replicas, candidates);
  }
  void Ended(const std::string& address, const ReplicaSample& sample) override { selector->Ended(address, sample); }
  bool AmongBest(const ClusterRange& range, const std::string& address) override {
    return selector->AmongBest(range.replicas, address);
  }
  void RecordLatency(size_t range, const std::string& address, double us) override {
    hedge_thresholds.Record(range, address, us);
  }
  void RecordStarted(size_t range, const std::string& address, double us) override {
    started_thresholds.Record(range, address, us);
  }
  void Log(const std::string& line) override {
    if (options.log) options.log(line);
  }
  Status Usable(const std::string& address, const ClusterRange& range) override {
    return roster->Usable(address, range);
  }
  Status RangeUsable(const ClusterRange& range) override { return roster->RangeUsable(range); }
  void SawGeneration(const std::string& address, uint64_t generation) override {
    roster->SawGeneration(address, generation);
  }
  uint64_t NewestGeneration() override { return roster->NewestGeneration(); }
};

// By range and replica: a fixed delay, or the percentile `thresholds`
// learned for requests to that replica (< 0 while unknown), or none (-1).
std::vector<std::vector<double>> ClusterClient::Impl::DelaysUs(double fixed_ms, double percentile,
                                                               const HedgeThresholds& thresholds) const {
  std::vector<std::vector<double>> us(ranges.size());
  for (size_t r = 0; r < ranges.size(); ++r) {
    for (const std::string& replica : ranges[r].replicas) {
      us[r].push_back(fixed_ms > 0       ? fixed_ms * 1000
                      : percentile > 0 ? thresholds.DelayUs(r, replica, percentile)
                                       : -1);
    }
  }
  return us;
}

// Hedges wait the percentile of the range's healthy answers; the second
// tied twin, that of how soon the range's other replicas start a request
// (both at once until that is known).
std::vector<std::vector<double>> ClusterClient::Impl::HedgeDelaysUs() const {
  return DelaysUs(options.hedge_after_ms, options.hedge_percentile, hedge_thresholds);
}

std::vector<std::vector<double>> ClusterClient::Impl::TiedDelaysUs() const {
  return DelaysUs(options.tied_delay_ms, options.tied_delay_percentile, started_thresholds);
}

ClusterClient::ClusterClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

const AnalyzerSpec& ClusterClient::analyzer_spec() const { return impl_->analyzer; }
const FieldSet& ClusterClient::fields() const { return impl_->fields; }

ClusterClient::~ClusterClient() {
  asio::post(impl_->io, [impl = impl_.get()] {
    for (auto& [address, link] : impl->links) link->Close();
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
  if (impl->options.feed) {
    if (auto snapshot = impl->options.feed->snapshot()) {
      impl->feed_version = snapshot->version;
      if (!snapshot->ranges.empty()) impl->ranges = snapshot->ranges;
    }
  }
  impl->selector = std::make_unique<ReplicaSelector>(impl->options.replica_policy);
  Impl* raw = impl.get();
  impl->roster = std::make_unique<ClusterRoster>(&impl->ranges, impl->options.log, impl->options.warned.get());
  impl->link_context = LinkContext{&impl->io, impl->options.token, impl->options.connect_timeout_ms, &impl->events,
                                   [raw](const std::string& address, const Welcome& w) {
                                     return raw->roster->OnWelcome(address, w);
                                   }};
  impl->work.emplace(impl->io.get_executor());
  impl->io_thread = std::thread([raw] { raw->io.run(); });
  std::unique_ptr<ClusterClient> client(new ClusterClient(std::move(impl)));

  // Probe every server once, so that the cluster file is checked against
  // what they serve before any query runs.
  std::vector<std::string> addresses;
  for (const auto& r : raw->ranges) {
    for (const auto& a : r.replicas) {
      if (std::find(addresses.begin(), addresses.end(), a) == addresses.end()) addresses.push_back(a);
    }
  }
  std::vector<std::future<Status>> outcomes;
  for (const auto& a : addresses) {
    auto done = std::make_shared<std::promise<Status>>();
    outcomes.push_back(done->get_future());
    asio::post(raw->io, [raw, a, done] { raw->LinkTo(a).Connect([done](const Status& s) { done->set_value(s); }); });
  }
  size_t reachable = 0;
  for (auto& outcome : outcomes) {
    const Status s = outcome.get();
    if (s.ok()) {
      ++reachable;
    } else {
      raw->Log("warning: " + s.message());
    }
  }
  if (reachable == 0) return Status::IOError("no server answered");
  DPS_RETURN_IF_ERROR(raw->roster->Settle(raw->options.allow_partial));
  raw->analyzer = raw->roster->identity().analyzer;
  raw->fields = raw->roster->identity().fields;
  return client;
}

Status ClusterClient::Run(QueryNode root, const SearchOptions& options, const ResultSink& sink,
                          SearchStats* stats) {
  SearchStats unused;
  if (stats == nullptr) stats = &unused;
  *stats = SearchStats();
  Impl& impl = *impl_;
  impl.Refresh();
  ResultStream stream(options, sink, stats, /*timed=*/true);
  QueryFanOut fan(impl.ranges, FanOutPolicy{impl.options.deadline_ms, impl.options.consistent, impl.options.tied, impl.TiedDelaysUs(), impl.HedgeDelaysUs(), impl.options.hedge_siblings}, &impl, root,
                  options, &stream, stats);
  fan.Start();
  while (fan.waiting()) {
    LinkEvent e;
    if (impl.events.PopUntil(fan.NextWake(), &e)) {
      fan.OnEvent(e);
    } else {
      fan.OnTimeout(QueryFanOut::Clock::now());
    }
  }
  fan.Finish();
  stream.Finish(stats->bins.size());
  if (const auto& uncovered = impl.roster->uncovered(); !uncovered.empty()) {
    stats->partial = true;
    stats->missing.insert(stats->missing.end(), uncovered.begin(), uncovered.end());
    std::sort(stats->missing.begin(), stats->missing.end(), [](const std::string& a, const std::string& b) {
      return std::stoul(a) < std::stoul(b);  // "first-last": by first tablet
    });
  }
  return fan.query_error();
}

}  // namespace dps
