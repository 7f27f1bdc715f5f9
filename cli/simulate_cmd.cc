// `dpsearch simulate`: tail latency predicted past this machine (query/simulator.h).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/validators.h"
#include "common/file.h"
#include "query/cluster_file.h"
#include "query/simulator.h"

namespace dps::cli {

void RegisterSimulate(CLI::App& app) {
  struct Args {
    std::string samples, cluster, report, warmth;
    std::vector<size_t> servers;
    size_t tablets_per_range = 2, replicas = 2, workers = 1, cores = 0, concurrency = 1, queries = 0;
    double rate = 0;
    uint64_t seed = 1;
    std::vector<std::string> delays, policies;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Predict tail latency at any fan-out: a discrete-event simulation replaying bench --samples");
  cmd->add_option("--samples", a->samples, "Queries measured by dpsearch bench --samples FILE")
      ->type_name("FILE")->required();
  auto* cluster = cmd->add_option("--cluster", a->cluster, "The layout of a cluster file (addresses are names)")
                      ->type_name("FILE");
  auto* servers = cmd->add_option("--servers", a->servers,
                                  "Ring layouts of N servers, each range on R consecutive ones; a list sweeps fan-out")
                      ->type_name("N[,N...]")->delimiter(',')->check(WholeNumber(1, 10000))->excludes(cluster);
  cmd->add_option("--tablets-per-range", a->tablets_per_range, "--servers: tablets in each range")
      ->check(WholeNumber(1, 1000))->needs(servers);
  cmd->add_option("--replicas", a->replicas, "--servers: replicas of each range")
      ->check(WholeNumber(1, 16))->needs(servers);
  cmd->add_option("--server-delay", a->delays,
                  "SERVER:PROB:MS (repeatable): server SERVER (numbered from 0, or *) holds each tablet of a request "
                  "back MS ms with PROB, as serve --inject-delay '*:PROB:MS'; MS may be lognormal(MEDIAN,SIGMA)")
      ->type_name("SERVER:PROB:MS")->default_str("none");
  cmd->add_option("--policy", a->policies,
                  "Repeatable: a replica policy (first, random or adaptive), then any of +hedge-pNN, +hedge-MSms, "
                  "+tied, +tied-MSms, +tied-pNN and +deadline-MS, as in adaptive+hedge-p95")
      ->type_name("POLICY")->default_str("first, first+hedge-p95, first+tied, adaptive, adaptive+hedge-p95");
  cmd->add_option("--workers", a->workers, "Worker threads per server")->check(WholeNumber(1, 1024));
  cmd->add_option("--cores", a->cores,
                  "--cluster: all servers share N cores, as on the machine that measured the samples (a request "
                  "running beside more than one per range is slowed in proportion)")
      ->check(WholeNumber(1, 100000))->default_str("unshared")->needs(cluster);
  cmd->add_option("--warmth", a->warmth,
                  "Work after idle runs slower: after D ms of idle the machine's hand-offs (messages, a tablet's "
                  "time beyond its service) take up to 1 + SCALE * ln(1 + D / IDLE_MS) times as long, and busy "
                  "time warms it back, on the scale of WARM_MS (docs/SIMULATOR.md, \"Warmth\")")
      ->type_name("SCALE,IDLE_MS,WARM_MS")->default_str("off: always warm");
  auto* concurrency = cmd->add_option("--concurrency", a->concurrency, "Closed loop: clients")->check(WholeNumber(1, 100000));
  cmd->add_option("--rate", a->rate, "Open loop: Poisson arrivals at QPS")
      ->type_name("QPS")->check(FiniteNumber(0.001, 1e9))->excludes(concurrency);
  cmd->add_option("--queries", a->queries, "Queries per configuration")
      ->check(WholeNumber(1, 100000000))->default_str("one pass over the samples");
  cmd->add_option("--seed", a->seed, "Seed of delays, arrivals and replica choice");
  cmd->add_option("--report", a->report, "Write a self-contained HTML report")->type_name("FILE.html");
  cmd->add_flag("--json", a->json, "Print one JSON object");
  cmd->callback([a] {
    if (a->cluster.empty() == a->servers.empty()) return (void)Fail(Status::InvalidArgument("give --cluster FILE or --servers N"));
    auto samples = ReadSamplesFile(a->samples);
    if (!samples.ok()) return (void)Fail(samples.status());
    SimConfig base;
    base.samples = std::move(samples).value();
    base.workers = a->workers;
    base.cores = a->cores;
    if (!a->warmth.empty()) {
      auto w = ParseSimWarmth(a->warmth);
      if (!w.ok()) return (void)Fail(w.status());
      base.warmth = *w;
    }
    base.concurrency = a->concurrency;
    base.rate_qps = a->rate;
    base.queries = a->queries;
    base.seed = a->seed;
    for (const auto& spec : a->delays) {
      auto d = ParseServerDelay(spec);
      if (!d.ok()) return (void)Fail(d.status());
      base.delays.push_back(*d);
    }
    std::vector<SimPolicy> policies;
    if (a->policies.empty()) a->policies = {"first", "first+hedge-p95", "first+tied", "adaptive", "adaptive+hedge-p95"};
    for (const auto& spec : a->policies) {
      auto p = ParseSimPolicy(spec);
      if (!p.ok()) return (void)Fail(p.status());
      policies.push_back(*p);
    }
    std::vector<SimLayout> layouts;
    if (!a->cluster.empty()) {
      auto ranges = ReadClusterFile(a->cluster);
      if (!ranges.ok()) return (void)Fail(ranges.status());
      layouts.push_back(LayoutOf(*ranges));
    } else {
      for (size_t n : a->servers) layouts.push_back(RingLayout(n, a->tablets_per_range, a->replicas));
    }
    std::vector<SimRow> rows;
    for (const auto& layout : layouts) {
      for (const auto& policy : policies) {
        SimConfig c = base;
        c.layout = layout;
        c.policy = policy;
        auto r = Simulate(c);
        if (!r.ok()) return (void)Fail(r.status());
        r->latencies_us.clear();
        rows.push_back(SimRow{layout.servers, policy.name, std::move(r).value()});
      }
    }
    std::string description = std::to_string(base.samples.size()) + " measured queries from " + a->samples + "; ";
    description += a->cluster.empty() ? "ring layouts, " + std::to_string(a->tablets_per_range) + " tablets a range on " +
                                            std::to_string(a->replicas) + " servers"
                                      : "the layout of " + a->cluster;
    description += "; " + std::to_string(a->workers) + " worker(s) a server; ";
    if (a->cores > 0) description += std::to_string(a->cores) + " shared core(s); ";
    if (!a->warmth.empty()) description += "warmth " + a->warmth + "; ";
    description += a->rate > 0 ? "open loop at " + std::to_string(static_cast<long long>(a->rate)) + " qps"
                               : "closed loop, " + std::to_string(a->concurrency) + " client(s)";
    for (const auto& d : a->delays) description += "; delay " + d;
    std::printf("%s", a->json ? (SimulationJson(rows, description) + "\n").c_str()
                              : (description + "\n" + SimulationText(rows)).c_str());
    if (!a->report.empty()) {
      Status w = WriteFileAtomically(a->report, SimulationHtml(rows, "dpsearch simulate", description));
      if (!w.ok()) return (void)Fail(w);
      std::fprintf(stderr, "dpsearch: report written to %s\n", a->report.c_str());
    }
  });
}

}  // namespace dps::cli
