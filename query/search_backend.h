// Where a command's queries go, opened once: an index searched in-process
// (with optional delay injection) or a cluster of shard servers. Commands
// fill a SearchTarget from their flags, open it, and take searchers from
// it (bench takes one per client thread); everything after that is one
// code path whatever the backend.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/index_reader.h"
#include "query/searcher.h"

namespace dps {

struct SearchTarget {
  std::string index_dir;     // in-process shards over this index, or
  std::string cluster_file;  // shard servers listed in this cluster file, or
  std::string zookeeper;     // registered in ZooKeeper: HOST:PORT[,...]/PATH
  uint32_t zookeeper_session_ms = 10'000;  // --zookeeper: the session timeout asked for
  uint32_t zookeeper_wait_ms = 10'000;     // --zookeeper: how long to wait for the first view
  // --index only:
  unsigned threads = 0;                   // workers per searcher; 0: all cores
  std::vector<std::string> inject_delay;  // [REPLICA/]WHO:PROBABILITY:MS specs
  // > 0: that many replicas of the index in this process, asked as a
  // cluster is (query/local_shards.h), so the options below apply too.
  size_t replicas = 0;
  // --cluster, or --index with replicas:
  uint32_t deadline_ms = 0;  // 0: wait for every tablet
  std::string hedge_after;   // "pNN" (a percentile of recent latencies) or milliseconds
  double hedge_siblings = -1;  // --hedge-siblings X (query/sibling_hedge.h); < 0: not given (kDefaultHedgeSiblings)
  std::string replica_policy;  // "first", "random" or "adaptive" (the default when empty)
  bool tied = false;           // tied requests: each range asked of two replicas, the later starter cancelled
  std::string tied_delay;      // "pNN" or milliseconds: the second twin after this, unless the first started
  bool consistent = false;     // every range answers at one generation (ClusterOptions::consistent)
  // --cluster or --zookeeper only:
  std::string token;           // the servers' shared secret
  bool allow_partial = false;  // tablets no range covers: partial answers, not an error
  // Warnings (an unreachable server, a failover); may be empty.
  std::function<void(const std::string&)> log;
};

class SearchBackend {
 public:
  // InvalidArgument for a target naming neither or both backends, or
  // options of the other backend; the index or cluster file's errors.
  static Result<std::unique_ptr<SearchBackend>> Open(const SearchTarget& target);
  virtual ~SearchBackend() = default;

  // A new searcher (each serves one thread).
  virtual Result<std::unique_ptr<Searcher>> NewSearcher() = 0;
  // A name for reports: the index directory or the cluster file.
  virtual std::string name() const = 0;
};

}  // namespace dps
