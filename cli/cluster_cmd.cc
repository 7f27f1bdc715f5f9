// `dpsearch cluster status --zookeeper HOST:PORT[,...]/PATH`: the servers
// registered in ZooKeeper, their tablets and generations, and the gaps in
// replication (cluster/cluster_status.h).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/validators.h"
#include "cluster/cluster_status.h"

namespace dps::cli {

void RegisterCluster(CLI::App& app) {
  struct Args {
    std::string action, zookeeper;
    uint32_t timeout_ms = 10'000;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "cluster", "A ZooKeeper cluster's state: `cluster status` prints its servers, their tablets and generations, "
                 "and each tablet's live replicas (exit 4 when a tablet has none)");
  cmd->add_option("action", a->action, "What to do: status")->required()->check(CLI::IsMember({"status"}));
  cmd->add_option("--zookeeper", a->zookeeper, "The cluster's ZooKeeper and path (as given to dpsearch serve)")
      ->type_name("HOST:PORT[,...]/PATH")->required();
  cmd->add_option("--timeout", a->timeout_ms, "Give up when ZooKeeper does not answer within MS ms (exit 3)")
      ->type_name("MS")->check(WholeNumber(1, 600'000))->default_str(std::to_string(a->timeout_ms));
  cmd->callback([a] {
    auto status = ReadClusterStatus(a->zookeeper, a->timeout_ms);
    if (!status.ok()) return (void)Fail(status.status());
    std::fputs(status->Format().c_str(), stdout);
    if (status->incomplete()) SetExitCode(kExitPartial);
  });
}

}  // namespace dps::cli
