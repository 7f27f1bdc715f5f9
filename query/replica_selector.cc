#include "query/replica_selector.h"

#include <algorithm>
#include <limits>

namespace dps {

Result<ReplicaPolicy> ParseReplicaPolicy(const std::string& text) {
  if (text == "first") return ReplicaPolicy::kFirst;
  if (text == "random") return ReplicaPolicy::kRandom;
  if (text == "adaptive") return ReplicaPolicy::kAdaptive;
  return Status::InvalidArgument("--replica-policy " + text + ": expected first, random or adaptive");
}

const char* ReplicaPolicyName(ReplicaPolicy policy) {
  switch (policy) {
    case ReplicaPolicy::kFirst:
      return "first";
    case ReplicaPolicy::kRandom:
      return "random";
    case ReplicaPolicy::kAdaptive:
      return "adaptive";
  }
  return "?";
}

ReplicaSelector::ReplicaSelector(ReplicaPolicy policy, uint64_t seed) : policy_(policy), rng_(seed) {}

double ReplicaSelector::RankOf(const Estimate& e) const {
  const double q = 1 + e.in_flight + e.queue;
  return std::max(0.0, e.response_us - e.service_us) + q * q * q * e.service_us;
}

double ReplicaSelector::BestKnown() const {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [name, e] : servers_) {
    if (e.response_us >= 0) best = std::min(best, RankOf(e));
  }
  return best == std::numeric_limits<double>::infinity() ? 0 : best;
}

double ReplicaSelector::Rank(const std::string& server) const {
  const auto it = servers_.find(server);
  if (it == servers_.end() || it->second.response_us < 0) return BestKnown();
  return RankOf(it->second);
}

bool ReplicaSelector::AmongBest(std::span<const std::string> replicas, const std::string& server) const {
  auto known = [&](const std::string& s) -> const Estimate* {
    const auto it = servers_.find(s);
    return it != servers_.end() && it->second.response_us >= 0 ? &it->second : nullptr;
  };
  const Estimate* own = known(server);
  if (own == nullptr) return true;
  double best = std::numeric_limits<double>::infinity();
  for (const std::string& r : replicas) {
    if (const Estimate* e = known(r)) best = std::min(best, RankOf(*e));
  }
  return RankOf(*own) <= best * (1 + kTieSlack);
}

size_t ReplicaSelector::Choose(std::span<const std::string> replicas, std::span<const size_t> candidates) {
  if (policy_ == ReplicaPolicy::kFirst || candidates.size() == 1) return candidates[0];
  if (policy_ == ReplicaPolicy::kRandom) return candidates[rng_() % candidates.size()];
  // Nothing known of any: the cluster file's order.
  const bool any_known = std::any_of(candidates.begin(), candidates.end(), [&](size_t i) {
    const auto it = servers_.find(replicas[i]);
    return it != servers_.end() && it->second.response_us >= 0;
  });
  if (!any_known) return candidates[0];
  std::vector<double> rank(candidates.size());
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < candidates.size(); ++i) {
    rank[i] = Rank(replicas[candidates[i]]);
    best = std::min(best, rank[i]);
  }
  std::vector<size_t> ties;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (rank[i] <= best * (1 + kTieSlack)) ties.push_back(i);
  }
  const size_t chosen = ties[rng_() % ties.size()];
  // The others step toward the chosen one's estimates (they are not asked,
  // so nothing else would ever lower theirs).
  const auto c = servers_.find(replicas[candidates[chosen]]);
  if (c != servers_.end() && c->second.response_us >= 0) {
    const Estimate to = c->second;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (i == chosen) continue;
      auto it = servers_.find(replicas[candidates[i]]);
      if (it == servers_.end() || it->second.response_us < 0) continue;
      Estimate& e = it->second;
      e.response_us += kRecover * (to.response_us - e.response_us);
      e.service_us += kRecover * (to.service_us - e.service_us);
      e.queue += kRecover * (to.queue - e.queue);
    }
  }
  return candidates[chosen];
}

void ReplicaSelector::Sent(const std::string& server) { ++servers_[server].in_flight; }

void ReplicaSelector::Ended(const std::string& server, const ReplicaSample& sample) {
  Estimate& e = servers_[server];
  if (e.in_flight > 0) --e.in_flight;
  auto blend = [](double* avg, double x) { *avg += kAlpha * (x - *avg); };
  switch (sample.kind) {
    case ReplicaSample::kAnswered: {
      const double service = std::max<double>(1, sample.service_us);
      if (e.response_us < 0) {  // the first answer sets the estimates
        e.response_us = sample.elapsed_us;
        e.service_us = service;
        e.queue = sample.queue_us / service;
        return;
      }
      blend(&e.response_us, sample.elapsed_us);
      blend(&e.service_us, service);
      blend(&e.queue, sample.queue_us / service);
      return;
    }
    case ReplicaSample::kCensored:
      // At least elapsed_us: news only when above what is believed.
      if (e.response_us >= 0 && sample.elapsed_us > e.response_us) {
        blend(&e.response_us, sample.elapsed_us);
        blend(&e.service_us, sample.elapsed_us);
      } else if (e.response_us < 0) {
        e.response_us = e.service_us = sample.elapsed_us;
      }
      return;
    case ReplicaSample::kNone:
      return;
  }
}

}  // namespace dps
