// Which replica of a tablet range a cluster client asks: the first listed,
// one at random, or adaptively, in the spirit of C3 (Suresh, Canini,
// Schmid and Feldmann, "C3: Cutting Tail Latency in Cloud Data Stores via
// Adaptive Replica Selection", NSDI 2015), which Elasticsearch's adaptive
// replica selection also follows.
//
// Adaptive. For each server s the client keeps moving averages (EWMA,
// weight kAlpha on the newest sample) of R_s, the response time it saw
// (request sent to the range's answer), S_s, the server's own time on the
// request (its first bin's start to its last bin's end, from the BinStats'
// queue waits and service times) and Q_s, its queue in requests (the wait
// before the first bin started, over S_s). A server is ranked by C3's
//     psi_s = (R_s - S_s) + (1 + n_s + Q_s)^3 * S_s
// with n_s this client's requests in flight to it: the time an answer
// spends outside service, plus service scaled by the cubed queue estimate,
// which turns load away from a server as its queue grows, before its
// answers slow down. The lowest psi is asked; replicas within kTieSlack of
// it share the load by a seeded coin. A request cancelled because another
// replica answered first is a censored sample: it took at least its
// elapsed time, which raises R_s and S_s when above them (a degraded
// server that loses every race is seen slow). A server passed over has
// R_s, S_s and Q_s moved a step (kRecover) toward the chosen one's, as
// Elasticsearch does for nodes it does not pick: a server once slow is
// asked again after some hundred queries, so traffic comes back when it
// recovers. A server never heard from ranks as the best one known, so it
// is tried; when none of a range's replicas is known yet, the first listed
// is asked (the cluster file's order, as the first policy).
//
// One per cluster client (one query thread): not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"

namespace dps {

enum class ReplicaPolicy { kFirst, kRandom, kAdaptive };

// "first", "random" or "adaptive"; InvalidArgument naming the flag else.
Result<ReplicaPolicy> ParseReplicaPolicy(const std::string& text);
const char* ReplicaPolicyName(ReplicaPolicy policy);

// How a request to a server ended, for its estimates.
struct ReplicaSample {
  enum Kind {
    kAnswered,  // the range's answer: every field holds
    kCensored,  // cancelled (another replica won, or the deadline): it took at least elapsed_us
    kNone,      // failed or refused: no time to learn from
  };
  Kind kind = kNone;
  double elapsed_us = 0;    // sent to answered (or cancelled)
  uint32_t service_us = 0;  // the server's time on it: first bin's start to last bin's end (kAnswered)
  uint32_t queue_us = 0;    // the wait before its first bin started (kAnswered)
};

class ReplicaSelector {
 public:
  static constexpr double kAlpha = 0.3;      // EWMA weight of the newest sample (Elasticsearch's)
  static constexpr double kTieSlack = 0.25;  // within 25% of the best psi: a tie
  static constexpr double kRecover = 0.02;   // a passed-over server's step toward the chosen one

  explicit ReplicaSelector(ReplicaPolicy policy, uint64_t seed = 0x5eed);

  // Which of `replicas` (addresses) to ask: one of `candidates` (indexes
  // into replicas, not empty; the ones not yet tried for this query and
  // usable).
  size_t Choose(std::span<const std::string> replicas, std::span<const size_t> candidates);
  // A request went to `server` / ended.
  void Sent(const std::string& server);
  void Ended(const std::string& server, const ReplicaSample& sample);

  // C3's psi for `server` (microseconds); the best known for one never
  // heard from, 0 when none is known.
  double Rank(const std::string& server) const;
  // Whether `server` ranks within kTieSlack of the best of `replicas` heard
  // from (as the adaptive policy would choose it), whatever the policy;
  // true when nothing is known of it.
  bool AmongBest(std::span<const std::string> replicas, const std::string& server) const;
  ReplicaPolicy policy() const { return policy_; }

 private:
  struct Estimate {
    double response_us = -1;  // R; < 0: no answer yet
    double service_us = 0;    // S
    double queue = 0;         // Q
    uint32_t in_flight = 0;   // n
  };
  double RankOf(const Estimate& e) const;
  double BestKnown() const;

  ReplicaPolicy policy_;
  std::mt19937_64 rng_;
  std::map<std::string, Estimate> servers_;
};

}  // namespace dps
