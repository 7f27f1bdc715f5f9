// What the servers of a cluster said in their handshakes, and what follows
// from it: which index the cluster serves (the identity most servers
// answered with), whether the cluster file covers each of its tablets, and
// which replica may answer which range. A server of another index or
// generation, or one that does not host a range it is listed for, is a bad
// replica of that range: warned about once and never asked; only a range
// none of whose replicas is usable is an error.
//
// Thread-safe: the client's network thread records handshakes while the
// query's thread asks about replicas.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "query/cluster_file.h"
#include "shards/protocol.h"

namespace dps {

// What a server says it serves; every usable server of a cluster agrees.
// Not the generation: servers follow their index (issue 22) and may serve
// different generations of it at any moment.
struct ServerIdentity {
  std::string index_id;
  uint32_t bins = 0, tablets = 0;
  AnalyzerSpec analyzer;  // fixed with the index id; carried for the client's parser
  FieldSet fields;        // likewise
  bool operator==(const ServerIdentity&) const = default;
  std::string ToString() const;
};

// The servers already warned about. Shared by the clients of one backend
// (bench's, one per thread), so that each bad server is reported once in
// all. Thread-safe.
class WarnedServers {
 public:
  // True the first time `address` is given.
  bool First(const std::string& address);

 private:
  std::mutex mu_;
  std::set<std::string> seen_;
};

class ClusterRoster {
 public:
  using Log = std::function<void(const std::string&)>;
  // REQUIRES: `ranges` (ascending, not overlapping) and `warned` outlive
  // the roster.
  ClusterRoster(const std::vector<ClusterRange>* ranges, Log log, WarnedServers* warned);

  // A server's handshake. Before Settle every server is accepted (the
  // cluster's index is not known yet); after it, one serving another index
  // is refused (InvalidArgument, warned once), so that the link fails and
  // its requests go to other replicas.
  Status OnWelcome(const std::string& address, const Welcome& welcome);
  // The generation `address` last said it serves (its Welcome, then each
  // Done frame).
  void SawGeneration(const std::string& address, uint64_t generation);
  // The newest generation any server said it serves (0 before any).
  uint64_t NewestGeneration() const;

  // Once the first handshakes are in: picks the cluster's identity and
  // checks the cluster file against it. InvalidArgument when no identity
  // has more servers than every other, a range lies beyond the index's
  // tablets, tablets are covered by no range (unless `allow_partial`), or
  // a range has no replica that may answer it (every one answered and is
  // bad). Then warns once about each bad replica.
  // REQUIRES: at least one server answered.
  Status Settle(bool allow_partial);

  // Whether `address` may be asked for `range`: OK when it is usable or
  // has not answered a handshake yet; else InvalidArgument saying why
  // (and the first time, a warning).
  Status Usable(const std::string& address, const ClusterRange& range);
  // InvalidArgument naming the range and the reason of each replica when
  // none of them may answer it (all answered and are bad).
  Status RangeUsable(const ClusterRange& range);

  // A live cluster's new ranges (query/range_feed.h): *ranges, the vector
  // given at construction, becomes `next` under the roster's lock (the
  // network thread reads it through OnWelcome), and the uncovered tablets
  // are found again: a live cluster's gaps make answers partial rather than
  // refusing them. What the servers said is kept.
  // REQUIRES: Settle succeeded; `ranges` is the constructor's; the caller
  // is the one thread that reads the ranges otherwise (the query's).
  void Replace(std::vector<ClusterRange>* ranges, std::vector<ClusterRange> next);

  // The tablets no range covers ("first-last" spans), known after Settle.
  const std::vector<std::string>& uncovered() const { return uncovered_; }
  // The cluster's identity. REQUIRES: Settle succeeded.
  ServerIdentity identity() const;

 private:
  struct Server {
    ServerIdentity identity;
    uint64_t generation = 0;  // the last it said it serves
    uint32_t first_tablet = 0, last_tablet = 0;  // hosted
  };
  // The functions below REQUIRE mu_ held.
  // Why `address` may not answer `range` ("is of another index (...)"), or
  // "" when it may or has not answered a handshake.
  std::string Reason(const std::string& address, const ClusterRange& range) const;
  // "tablets F-L have no usable replica: ..." or "" when some replica may answer.
  std::string RangeRefusal(const ClusterRange& range) const;
  Status PickIdentity();
  void FindUncovered();
  // The warning about a bad replica: "server ADDR (replica of tablets ...) REASON; ...".
  std::string WarningLocked(const std::string& address) const;

  const std::vector<ClusterRange>* ranges_;
  Log log_;
  WarnedServers* warned_;
  mutable std::mutex mu_;
  std::map<std::string, Server> servers_;  // by address: what its last handshake said
  std::optional<ServerIdentity> identity_;  // the cluster's, from Settle on
  std::vector<std::string> uncovered_;
};

}  // namespace dps
