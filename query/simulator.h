// `dpsearch simulate`: a discrete-event simulation of one coordinator and N
// shard servers, to predict straggler latency at fan-outs this machine
// cannot run (docs/SIMULATOR.md: the model, its validation, its limits).
//
// What it replays: queries measured by `bench --samples` (each query's
// per-tablet service times and its overhead outside the tablets), so a
// costly query is costly on every tablet. At widths beyond the measured
// tablets, simulated tablet t takes measured tablet t mod T's time.
// What it adds: per-server injected delays drawn as the servers draw them
// (shards/delay.h: per request and tablet, before the tablet runs), server
// queues (FIFO, W workers each), and the coordinator's policies: replica
// choice by the same ReplicaSelector the cluster client uses, hedging
// after the same HedgeThresholds (or a fixed delay), tied requests (the
// twin cancelled when the other starts), deadlines. Messages take half the
// query's measured overhead each way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "query/bench_samples.h"
#include "query/cluster_file.h"
#include "query/latency_histogram.h"
#include "query/replica_selector.h"
#include "query/sibling_hedge.h"
#include "shards/delay.h"

namespace dps {

// One configuration of the coordinator, written like `first+hedge-p95`,
// `adaptive+tied`, `first+deadline-50`: a replica policy (first, random,
// adaptive), then any of hedge-pNN / hedge-MSms, tied / tied-MSms /
// tied-pNN (the second twin after MS, or after the pNN of the range's
// other replicas' Started times, unless the first started), deadline-MS,
// siblings-X (a hedge waits X times the slowest answered range, as
// `--hedge-siblings X`; 0: the hedge delay alone; 2 unless given).
struct SimPolicy {
  std::string name;
  ReplicaPolicy replicas = ReplicaPolicy::kFirst;
  double hedge_percentile = 0;  // > 0: hedge after this percentile (HedgeThresholds)
  double hedge_ms = 0;          // > 0: hedge after this fixed delay
  double hedge_siblings = kDefaultHedgeSiblings;  // query/sibling_hedge.h; <= 0: off
  bool tied = false;
  double tied_delay_ms = 0;
  double tied_delay_percentile = 0;
  uint32_t deadline_ms = 0;
};
Result<SimPolicy> ParseSimPolicy(const std::string& text);

struct SimRange {
  uint32_t first_tablet = 0, last_tablet = 0;
  std::vector<size_t> replicas;  // server numbers, in order of preference
};

struct SimLayout {
  size_t servers = 0;
  std::vector<std::string> names;  // by server number
  std::vector<SimRange> ranges;
  uint32_t tablets() const { return ranges.empty() ? 0 : ranges.back().last_tablet + 1; }
};
// A cluster file's layout; servers numbered in order of first appearance.
SimLayout LayoutOf(const std::vector<ClusterRange>& ranges);
// N servers, range i (of `tablets_per_range` tablets) on servers i, i+1,
// ..., i+replicas-1 (mod N): every server holds `replicas` ranges.
SimLayout RingLayout(size_t servers, size_t tablets_per_range, size_t replicas);

struct ServerDelay {
  int64_t server = -1;  // -1: every server
  DelayRule rule;       // its tablet is -1: every tablet the server runs
};
// "SERVER:PROB:MS" or "*:PROB:MS" (MS may be lognormal(MEDIAN,SIGMA)).
Result<ServerDelay> ParseServerDelay(const std::string& text);

// Machine warmth (docs/SIMULATOR.md "Warmth"): on some machines work right
// after an idle spell runs slower, and the samples, taken back to back,
// carry none of it. The whole machine has one coldness c >= 0 that
// stretches its hand-offs by 1 + c (each message, and a tablet's time
// beyond its service; the service itself is not stretched): an idle spell
// of D µs raises it to at least scale * ln(1 + D / idle_us), and busy time
// b lowers it as 1 / c' = 1 / c + b / warm_us (a hyperbolic recovery, as
// measured).
// The machine is busy while a tablet runs or a message is under way.
// scale = 0: off (an always-warm machine, as the samples are).
struct SimWarmth {
  double scale = 0;
  double idle_us = 0;
  double warm_us = 0;
};
// "SCALE,IDLE_MS,WARM_MS", each > 0.
Result<SimWarmth> ParseSimWarmth(const std::string& text);

struct SimConfig {
  std::vector<QuerySample> samples;
  SimLayout layout;
  std::vector<ServerDelay> delays;
  SimPolicy policy;
  size_t workers = 1;      // per server
  // > 0: every server shares this many cores, as on the machine that
  // measured the samples (docs/SIMULATOR.md "Shared cores").
  size_t cores = 0;
  SimWarmth warmth;
  size_t concurrency = 1;  // closed loop clients
  double rate_qps = 0;     // > 0: open loop, Poisson arrivals instead
  size_t queries = 0;      // 0: one pass over the samples
  uint64_t seed = 1;
};

struct SimResult {
  LatencyHistogram latency;         // whole queries, µs
  std::vector<double> latencies_us;  // in completion order
  uint64_t queries = 0, partial = 0;
  uint64_t requests = 0, hedged = 0, tied = 0, tied_cancelled = 0, tied_both_started = 0;
  uint64_t requests_needed = 0;  // one per range per query
  std::vector<uint64_t> requests_by_server;
  uint64_t tasks_needed = 0;  // tablets the queries had to search (their plans' tablets)
  uint64_t tasks_run = 0;     // tablet runs begun (hedges and twins that started do more)
  double simulated_seconds = 0;
  double ExtraRequests() const;  // over one request per range per query
  double ExtraWork() const;      // tasks_run / tasks_needed - 1
};

Result<SimResult> Simulate(const SimConfig& config);

}  // namespace dps

namespace dps {

// One simulated configuration's outcome, for the outputs below.
struct SimRow {
  size_t servers = 0;
  std::string policy;
  SimResult result;
};
std::string SimulationText(const std::vector<SimRow>& rows);
// {"rows":[{"servers":N,"policy":"...","p50_us":...,...}]} on one line.
std::string SimulationJson(const std::vector<SimRow>& rows, const std::string& description);
// Self-contained: p50, p99 and p99.9 against the number of servers per
// policy (log-log), extra work per policy, the table.
std::string SimulationHtml(const std::vector<SimRow>& rows, const std::string& title, const std::string& description);

}  // namespace dps
