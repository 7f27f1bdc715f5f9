#include "query/zookeeper_backend.h"

#include <map>

#include "cluster/connect_string.h"
#include "cluster/server_watch.h"
#include "cluster/zk_session.h"
#include "query/discovered_ranges.h"
#include "query/range_feed.h"

namespace dps {

namespace {

// The servers of the index most of them serve (id and layout; the
// generation is the roster's to judge): servers of another index, left
// registered under the same PATH, would otherwise make ranges of tablets
// that index does not have.
std::vector<ServerRecord> MostServedIndex(const std::vector<ServerRecord>& servers) {
  std::map<std::tuple<std::string, uint32_t, uint32_t>, size_t> count;
  for (const auto& s : servers) ++count[{s.index_id, s.bins, s.tablets}];
  std::tuple<std::string, uint32_t, uint32_t> best;
  size_t most = 0;
  for (const auto& [key, n] : count) {
    if (n > most) best = key, most = n;
  }
  std::vector<ServerRecord> out;
  for (const auto& s : servers) {
    if (std::tie(s.index_id, s.bins, s.tablets) == best) out.push_back(s);
  }
  return out;
}

class ZooKeeperBackend final : public SearchBackend {
 public:
  ZooKeeperBackend(std::string name, ClusterOptions options) : name_(std::move(name)), options_(std::move(options)) {}
  ~ZooKeeperBackend() override {
    watch_.reset();
    session_.reset();  // joins its thread before the feed goes
  }
  Result<std::unique_ptr<Searcher>> NewSearcher() override {
    auto client = ClusterClient::Connect({}, options_);
    if (!client.ok()) return client.status().WithContext(name_);
    return std::unique_ptr<Searcher>(std::move(client).value());
  }
  std::string name() const override { return name_; }

  std::string name_;
  ClusterOptions options_;  // options_.feed is the watch's
  std::unique_ptr<ZkSession> session_;
  std::unique_ptr<ServerWatch> watch_;
};

}  // namespace

Result<std::unique_ptr<SearchBackend>> OpenZooKeeperBackend(const std::string& zookeeper, uint32_t session_timeout_ms,
                                                            uint32_t timeout_ms, ClusterOptions options) {
  DPS_ASSIGN_OR_RETURN(ZkAddress address, ParseZkAddress(zookeeper));
  auto feed = std::make_shared<RangeFeed>();
  options.feed = feed;
  auto backend = std::make_unique<ZooKeeperBackend>("zookeeper " + zookeeper, options);
  backend->session_ = ZkSession::Start(ZkSessionOptions{address.hosts, session_timeout_ms, options.log});
  backend->watch_ = std::make_unique<ServerWatch>(
      backend->session_.get(), address.path,
      [feed](const ServerView& view) {
        auto last = feed->snapshot();
        std::vector<ClusterRange> next = RangesOfServers(MostServedIndex(view.servers));
        feed->Publish(last ? KeepUncovered(next, last->ranges) : std::move(next));
      },
      options.log);
  if (!backend->watch_->WaitForView(timeout_ms)) {
    return Status::IOError("--zookeeper " + zookeeper + ": ZooKeeper did not answer within " +
                           std::to_string(timeout_ms) + " ms");
  }
  if (feed->snapshot() == nullptr || feed->snapshot()->ranges.empty()) {
    return Status::IOError("--zookeeper " + zookeeper + ": no server is registered under " + address.path +
                           "/servers");
  }
  return std::unique_ptr<SearchBackend>(std::move(backend));
}

}  // namespace dps
