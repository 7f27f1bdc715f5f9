#include "cli/search_flags.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <limits>

#include "cli/commands.h"
#include "cli/validators.h"
#include "query/sibling_hedge.h"

namespace dps::cli {

void AddSearchFlags(CLI::App* cmd, SearchFlags* f) {
  auto* index_opt = cmd->add_option("--index", f->target.index_dir, "Index directory (in-process shards)")
      ->type_name("DIR");
  auto* cluster_opt = cmd->add_option("--cluster", f->target.cluster_file, "Cluster file: tablet ranges and their servers")
      ->type_name("FILE");
  auto* zookeeper_opt = cmd->add_option("--zookeeper", f->target.zookeeper,
                                        "Discover the servers and replicas registered in ZooKeeper under PATH "
                                        "(dpsearch serve --zookeeper) and follow their changes")
      ->type_name("HOST:PORT[,...]/PATH");
  index_opt->excludes(cluster_opt);
  index_opt->excludes(zookeeper_opt);
  cluster_opt->excludes(zookeeper_opt);
  cmd->add_option("--zookeeper-session", f->target.zookeeper_session_ms,
                  "--zookeeper: the ZooKeeper session timeout asked for, in ms")
      ->type_name("MS")->check(WholeNumber(400, 600'000))->default_str(std::to_string(f->target.zookeeper_session_ms));
  cmd->add_option("--threads", f->target.threads, "--index: worker threads")->check(WholeNumber(1, 1024))->default_str("all cores");
  cmd->add_option("--replicas", f->target.replicas,
                  "--index: R replicas of the index in this process, asked as a cluster's are (replica policy, "
                  "hedging, tied requests, deadlines)")
      ->type_name("R")->check(WholeNumber(1, 64))->default_str("none");
  cmd->add_option("--inject-delay", f->target.inject_delay, "--index: [REPLICA/]WHO:PROBABILITY:MS (repeatable): delay tablet WHO's bins (or *) by MS ms with PROBABILITY, on every replica or replica REPLICA; MS may be lognormal(MEDIAN,SIGMA)")
      ->type_name("[R/]WHO:PROB:MS")->default_str("none");
  cmd->add_option("--token-file", f->token_file, "--cluster or --zookeeper: the servers' shared secret")
      ->type_name("FILE");
  cmd->add_option("--deadline", f->target.deadline_ms, "--cluster, --zookeeper or --replicas: answer with what arrived after MS milliseconds (partial: exit 4)")
      ->type_name("MS")->check(WholeNumber(1))->default_str("none");
  cmd->add_option("--hedge-after", f->target.hedge_after, "--cluster, --zookeeper or --replicas: ask another replica after MS, or after pNN of the range's answers from its other replicas")
      ->type_name("pNN|MS")->default_str("never");
  cmd->add_option("--hedge-siblings", f->target.hedge_siblings,
                  "--hedge-after: a range is hedged only once it has also waited X times the median time of "
                  "the query's ranges that answered (0: the --hedge-after delay alone)")
      ->type_name("X")->check(CLI::Range(0.0, 1000.0))->default_str("2");
  static_assert(kDefaultHedgeSiblings == 2, "the --hedge-siblings help says 2");
  cmd->add_option("--replica-policy", f->target.replica_policy,
                  "--cluster, --zookeeper or --replicas: which replica of a range to ask: adaptive (C3: the fastest by response time, service time "
                  "and queue), first (as listed) or random")
      ->type_name("POLICY")->check(CLI::IsMember({"adaptive", "first", "random"}))->default_str("adaptive");
  cmd->add_flag("--tied", f->target.tied,
                "--cluster, --zookeeper or --replicas: tied requests: ask two replicas of each range at once; the server that starts first "
                "has the other cancelled");
  cmd->add_option("--tied-delay", f->target.tied_delay,
                  "--tied: send the second twin MS after the first, or after pNN of how soon the range's other "
                  "replicas start a request, and not at all if the first has started by then")
      ->type_name("pNN|MS")->default_str("0 (both at once)");
  cmd->add_flag("--consistent", f->target.consistent,
                "--cluster or --replicas: every range answers at one index generation, the newest a server serves, "
                "waiting for servers still at older ones up to --deadline (10 s without one; then partial: exit 4)");
  cmd->add_flag("--allow-partial", f->target.allow_partial, "--cluster: a cluster file may leave tablets out (answers are partial, exit 4)");
  cmd->add_option("--max-expansions", f->max_expansions,
                  "Prefix queries (netw*) may expand to N terms in all; a query needing more is refused (exit 2)")
      ->type_name("N")->check(WholeNumber(1, kMaxMaxExpansions))->default_str(std::to_string(kDefaultMaxExpansions));
}

Result<std::unique_ptr<SearchBackend>> OpenBackend(SearchFlags f) {
  if (!f.token_file.empty()) {
    if (f.target.cluster_file.empty() && f.target.zookeeper.empty()) {
      return Status::InvalidArgument("--token-file needs --cluster or --zookeeper");
    }
    DPS_ASSIGN_OR_RETURN(f.target.token, ReadTokenFile(f.token_file));
  }
  f.target.log = [](const std::string& line) { std::fprintf(stderr, "dpsearch: %s\n", line.c_str()); };
  return SearchBackend::Open(f.target);
}

void AddBm25Flags(CLI::App* cmd, Bm25Flags* f) {
  f->k1_opt = cmd->add_option("--bm25-k1", f->params.k1, "--top: BM25's k1, how fast a term's repeats stop counting")
                  ->type_name("X")->check(FiniteNumber(0, std::numeric_limits<double>::max()))->default_str("1.2");
  f->b_opt = cmd->add_option("--bm25-b", f->params.b, "--top: BM25's b, how much a long document is discounted")
                 ->type_name("X")->check(FiniteNumber(0, 1))->default_str("0.75");
}

Status CheckBm25Flags(const Bm25Flags& f, bool ranked) {
  if (ranked) return Status::OK();
  const char* given = f.k1_opt->count() > 0 ? "--bm25-k1" : f.b_opt->count() > 0 ? "--bm25-b" : nullptr;
  if (given == nullptr) return Status::OK();
  return Status::InvalidArgument(std::string(given) + " applies to ranked queries: give --top K");
}

void AddFormatFlag(CLI::App* cmd, std::string* format) {
  cmd->add_option("--format", *format, "text (default on a terminal), jsonl or tsv")
      ->check(CLI::IsMember({"text", "jsonl", "tsv"}));
}

bool ColorAllowed() {
  const char* no_color = std::getenv("NO_COLOR");
  return no_color == nullptr || no_color[0] == '\0';
}

std::string ResolveFormat(const std::string& flag) {
  if (!flag.empty()) return flag;
  return isatty(STDOUT_FILENO) ? "text" : "tsv";
}

}  // namespace dps::cli
