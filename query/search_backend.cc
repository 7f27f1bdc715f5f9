#include "query/search_backend.h"

#include <cstdlib>
#include <random>

#include "query/cluster_client.h"
#include "query/coordinator.h"
#include "query/local_shards.h"
#include "query/zookeeper_backend.h"
#include "shards/delay.h"

namespace dps {

namespace {

// "pNN" (a percentile, into *percentile) or milliseconds (into *ms).
Status ParseDelayFlag(const std::string& flag, const std::string& text, double* percentile, double* ms) {
  if (text.empty()) return Status::OK();
  char* end = nullptr;
  const bool pct = text[0] == 'p' || text[0] == 'P';
  const char* num = text.c_str() + (pct ? 1 : 0);
  const double v = std::strtod(num, &end);
  if (end == num || *end != '\0' || !(v > 0) || (pct && v >= 100) || v > 3.6e6) {
    return Status::InvalidArgument(flag + " " + text + ": expected pNN (a percentile) or milliseconds");
  }
  (pct ? *percentile : *ms) = v;
  return Status::OK();
}

class LocalBackend final : public SearchBackend {
 public:
  LocalBackend(std::unique_ptr<IndexReader> index, std::unique_ptr<DelayInjector> delays, unsigned threads)
      : index_(std::move(index)), delays_(std::move(delays)), threads_(threads) {}
  Result<std::unique_ptr<Searcher>> NewSearcher() override {
    CoordinatorOptions o;
    o.threads = threads_;
    o.delays = delays_.get();
    return std::unique_ptr<Searcher>(new Coordinator(index_.get(), o));
  }
  std::string name() const override { return index_->dir(); }

 private:
  std::unique_ptr<IndexReader> index_;
  std::unique_ptr<DelayInjector> delays_;  // shared by the searchers (thread-safe)
  unsigned threads_;
};

// In-process replicas: each searcher a cluster client of the same replicas.
class ReplicaBackend final : public SearchBackend {
 public:
  ReplicaBackend(std::string dir, ClusterOptions options) : dir_(std::move(dir)), options_(std::move(options)) {}
  Result<std::unique_ptr<Searcher>> NewSearcher() override {
    DPS_ASSIGN_OR_RETURN(auto client, ClusterClient::Connect(options_.local->ranges(), options_));
    return std::unique_ptr<Searcher>(std::move(client));
  }
  std::string name() const override { return dir_; }

 private:
  std::string dir_;
  ClusterOptions options_;  // holds the replicas, which hold the index
};

class ClusterBackend final : public SearchBackend {
 public:
  ClusterBackend(std::string file, std::vector<ClusterRange> ranges, ClusterOptions options)
      : file_(std::move(file)), ranges_(std::move(ranges)), options_(std::move(options)) {}
  Result<std::unique_ptr<Searcher>> NewSearcher() override {
    auto client = ClusterClient::Connect(ranges_, options_);
    if (!client.ok()) return client.status().WithContext(file_);
    return std::unique_ptr<Searcher>(std::move(client).value());
  }
  std::string name() const override { return file_; }

 private:
  std::string file_;
  std::vector<ClusterRange> ranges_;
  ClusterOptions options_;
};

// The fan-out options shared by a cluster and in-process replicas.
Result<ClusterOptions> FanOutOptions(const SearchTarget& t) {
  ClusterOptions options;
  options.token = t.token;
  options.deadline_ms = t.deadline_ms;
  options.allow_partial = t.allow_partial;
  options.tied = t.tied;
  options.consistent = t.consistent;
  if (!t.tied_delay.empty() && !t.tied) {
    return Status::InvalidArgument("--tied-delay applies to tied requests: give --tied");
  }
  DPS_RETURN_IF_ERROR(ParseDelayFlag("--tied-delay", t.tied_delay, &options.tied_delay_percentile, &options.tied_delay_ms));
  options.log = t.log;
  DPS_RETURN_IF_ERROR(ParseDelayFlag("--hedge-after", t.hedge_after, &options.hedge_percentile, &options.hedge_after_ms));
  if (t.hedge_siblings >= 0) options.hedge_siblings = t.hedge_siblings;
  if (!t.replica_policy.empty()) {
    DPS_ASSIGN_OR_RETURN(options.replica_policy, ParseReplicaPolicy(t.replica_policy));
  }
  return options;
}

// --inject-delay specs by replica: "R/WHO:P:MS" for replica R, a spec
// without "R/" for every one (by_replica has `replicas` entries; with no
// replicas, one, and a replica named is an error).
Status ReplicaDelayRules(const std::vector<std::string>& specs, size_t replicas,
                         std::vector<std::vector<DelayRule>>* by_replica) {
  by_replica->assign(std::max<size_t>(1, replicas), {});
  for (const std::string& spec : specs) {
    const size_t slash = spec.find('/');
    std::string rule_text = spec;
    size_t only = SIZE_MAX;
    if (slash != std::string::npos) {
      const std::string who = spec.substr(0, slash);
      char* end = nullptr;
      const unsigned long r = std::strtoul(who.c_str(), &end, 10);
      if (who.empty() || *end != '\0' || who[0] == '-' || r >= replicas) {
        return Status::InvalidArgument(
            "--inject-delay " + spec + ": " +
            (replicas == 0 ? std::string("REPLICA/ needs --replicas")
                           : "no replica " + who + " (replicas are 0-" + std::to_string(replicas - 1) + ")"));
      }
      only = r;
      rule_text = spec.substr(slash + 1);
    }
    DPS_ASSIGN_OR_RETURN(DelayRule rule, ParseDelayRule(rule_text));
    for (size_t r = 0; r < by_replica->size(); ++r) {
      if (only == SIZE_MAX || only == r) (*by_replica)[r].push_back(rule);
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<SearchBackend>> SearchBackend::Open(const SearchTarget& t) {
  if (!t.index_dir.empty() + !t.cluster_file.empty() + !t.zookeeper.empty() != 1) {
    return Status::InvalidArgument("give one of --index DIR, --cluster FILE or --zookeeper HOST:PORT/PATH");
  }
  if (t.hedge_siblings >= 0 && t.hedge_after.empty()) {
    return Status::InvalidArgument("--hedge-siblings applies to hedging: give --hedge-after");
  }
  if (!t.index_dir.empty()) {
    if (!t.token.empty() || t.allow_partial) {
      return Status::InvalidArgument("--token-file and --allow-partial need --cluster or --zookeeper");
    }
    const bool fan_out = t.deadline_ms > 0 || !t.hedge_after.empty() || !t.replica_policy.empty() || t.tied ||
                         !t.tied_delay.empty() || t.consistent;
    if (fan_out && t.replicas == 0) {
      return Status::InvalidArgument(
          "--deadline, --hedge-after, --replica-policy, --tied and --consistent need --cluster, or --index with "
          "--replicas");
    }
    std::vector<std::vector<DelayRule>> rules;
    DPS_RETURN_IF_ERROR(ReplicaDelayRules(t.inject_delay, t.replicas, &rules));
    DPS_ASSIGN_OR_RETURN(std::unique_ptr<IndexReader> index, IndexReader::Open(t.index_dir));
    if (t.replicas > 0) {
      DPS_ASSIGN_OR_RETURN(ClusterOptions options, FanOutOptions(t));
      const std::string dir = index->dir();
      DPS_ASSIGN_OR_RETURN(options.local, LocalShards::Start(std::move(index), t.replicas, t.threads, rules,
                                                             std::random_device{}()));
      return std::unique_ptr<SearchBackend>(new ReplicaBackend(dir, std::move(options)));
    }
    std::unique_ptr<DelayInjector> delays;
    if (!rules.front().empty()) delays = std::make_unique<DelayInjector>(std::move(rules.front()));
    return std::unique_ptr<SearchBackend>(new LocalBackend(std::move(index), std::move(delays), t.threads));
  }
  if (!t.inject_delay.empty()) {
    return Status::InvalidArgument("--inject-delay applies to --index; give it to dpsearch serve");
  }
  if (t.threads != 0) return Status::InvalidArgument("--threads applies to --index; give it to dpsearch serve");
  if (t.replicas != 0) {
    return Status::InvalidArgument(t.zookeeper.empty() ? "--replicas applies to --index; a cluster file lists its replicas"
                                                       : "--replicas applies to --index; the servers registered are the replicas");
  }
  DPS_ASSIGN_OR_RETURN(ClusterOptions options, FanOutOptions(t));
  if (!t.zookeeper.empty()) {
    return OpenZooKeeperBackend(t.zookeeper, t.zookeeper_session_ms, t.zookeeper_wait_ms, std::move(options));
  }
  DPS_ASSIGN_OR_RETURN(std::vector<ClusterRange> ranges, ReadClusterFile(t.cluster_file));
  return std::unique_ptr<SearchBackend>(new ClusterBackend(t.cluster_file, std::move(ranges), std::move(options)));
}

}  // namespace dps
