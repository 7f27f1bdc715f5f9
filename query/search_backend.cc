#include "query/search_backend.h"

#include <cstdlib>

#include "query/cluster_client.h"
#include "query/coordinator.h"
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

}  // namespace

Result<std::unique_ptr<SearchBackend>> SearchBackend::Open(const SearchTarget& t) {
  if (t.index_dir.empty() == t.cluster_file.empty()) {
    return Status::InvalidArgument("give --index DIR or --cluster FILE");
  }
  if (!t.index_dir.empty()) {
    if (!t.token.empty() || t.deadline_ms > 0 || !t.hedge_after.empty() || t.allow_partial ||
        !t.replica_policy.empty() || t.tied || !t.tied_delay.empty()) {
      return Status::InvalidArgument(
          "--token-file, --deadline, --hedge-after, --replica-policy, --tied and --allow-partial need --cluster");
    }
    std::unique_ptr<DelayInjector> delays;
    if (!t.inject_delay.empty()) {
      std::vector<DelayRule> rules;
      for (const auto& spec : t.inject_delay) {
        DPS_ASSIGN_OR_RETURN(DelayRule rule, ParseDelayRule(spec));
        rules.push_back(rule);
      }
      delays = std::make_unique<DelayInjector>(std::move(rules));
    }
    DPS_ASSIGN_OR_RETURN(std::unique_ptr<IndexReader> index, IndexReader::Open(t.index_dir));
    return std::unique_ptr<SearchBackend>(new LocalBackend(std::move(index), std::move(delays), t.threads));
  }
  if (!t.inject_delay.empty()) {
    return Status::InvalidArgument("--inject-delay applies to --index; give it to dpsearch serve");
  }
  if (t.threads != 0) return Status::InvalidArgument("--threads applies to --index; give it to dpsearch serve");
  ClusterOptions options;
  options.token = t.token;
  options.deadline_ms = t.deadline_ms;
  options.allow_partial = t.allow_partial;
  options.tied = t.tied;
  if (!t.tied_delay.empty() && !t.tied) {
    return Status::InvalidArgument("--tied-delay applies to tied requests: give --tied");
  }
  DPS_RETURN_IF_ERROR(ParseDelayFlag("--tied-delay", t.tied_delay, &options.tied_delay_percentile, &options.tied_delay_ms));
  options.log = t.log;
  DPS_RETURN_IF_ERROR(ParseDelayFlag("--hedge-after", t.hedge_after, &options.hedge_percentile, &options.hedge_after_ms));
  if (!t.replica_policy.empty()) {
    DPS_ASSIGN_OR_RETURN(options.replica_policy, ParseReplicaPolicy(t.replica_policy));
  }
  DPS_ASSIGN_OR_RETURN(std::vector<ClusterRange> ranges, ReadClusterFile(t.cluster_file));
  return std::unique_ptr<SearchBackend>(new ClusterBackend(t.cluster_file, std::move(ranges), std::move(options)));
}

}  // namespace dps
