#include "cluster/assigner.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <mutex>

namespace dps {

struct TabletAssigner::State {
  AssignerOptions o;
  std::string candidate;       // our node's name under PATH/manager
  int64_t candidate_session = 0;  // the session that created it
  bool replicas_written = false;
  std::vector<TabletSpan> mine;
  bool told = false;  // on_assigned called at least once
  std::atomic<bool> manager{false};

  Status Run(ZkSession& zk) {
    const std::string managers = o.path + "/manager";
    DPS_RETURN_IF_ERROR(zk.CreatePath(managers));
    if (o.replicas > 0 && !replicas_written) {
      DPS_RETURN_IF_ERROR(zk.Put(o.path + "/replicas", std::to_string(o.replicas)));
      replicas_written = true;
    }
    if (candidate.empty() || candidate_session != zk.session_id()) {
      std::string created;
      DPS_RETURN_IF_ERROR(zk.CreateEphemeral(managers + "/candidate-", o.address, /*sequential=*/true, &created));
      candidate = created.substr(created.rfind('/') + 1);
      candidate_session = zk.session_id();
    }
    DPS_ASSIGN_OR_RETURN(std::vector<std::string> names, zk.Children(managers, /*watch=*/true));
    if (std::find(names.begin(), names.end(), candidate) == names.end()) {
      candidate.clear();  // gone (deleted by hand?): stand again
      return Status::IOError("ZooKeeper " + managers + ": our candidate node is gone");
    }
    // Sequence numbers are zero-padded: the lowest name is the lowest number.
    manager = names.front() == candidate;
    if (manager) DPS_RETURN_IF_ERROR(Manage(zk, managers, names));
    return Follow(zk);
  }

  // The manager: the plan for the live candidates.
  Status Manage(ZkSession& zk, const std::string& managers, const std::vector<std::string>& names) {
    std::vector<std::string> live;
    for (const auto& name : names) {
      auto address = zk.Get(managers + "/" + name, /*watch=*/false);
      if (address.status().IsNotFound()) continue;
      if (!address.ok()) return address.status();
      if (std::find(live.begin(), live.end(), *address) == live.end()) live.push_back(*address);
    }
    std::sort(live.begin(), live.end());
    uint32_t replicas = 1;
    auto r = zk.Get(o.path + "/replicas", /*watch=*/true);
    if (r.ok()) {
      uint32_t v = 0;
      auto [p, ec] = std::from_chars(r->data(), r->data() + r->size(), v);
      if (ec == std::errc() && v > 0) replicas = v;
    } else if (!r.status().IsNotFound()) {
      return r.status();
    }
    Assignment previous;
    auto old = zk.Get(o.path + "/assignment", /*watch=*/false);
    if (old.ok()) {
      if (auto decoded = DecodeAssignment(*old); decoded.ok()) previous = std::move(decoded).value();
    } else if (!old.status().IsNotFound()) {
      return old.status();
    }
    const Assignment next = PlanAssignment(previous, live, o.tablets, replicas);
    if (old.ok() && next == previous) return Status::OK();
    if (o.log) o.log("manager: " + std::to_string(live.size()) + " servers, " + std::to_string(next.replicas) + " replicas a tablet: assignment written");
    return zk.Put(o.path + "/assignment", EncodeAssignment(next));
  }

  // Everyone: advertise what the plan gives us.
  Status Follow(ZkSession& zk) {
    auto data = zk.Get(o.path + "/assignment", /*watch=*/true);
    std::vector<TabletSpan> spans;
    if (data.ok()) {
      auto plan = DecodeAssignment(*data);
      if (!plan.ok()) return plan.status().WithContext(o.path + "/assignment");
      if (plan->servers.size() == o.tablets) spans = plan->TabletsOf(o.address);
    } else if (data.status().IsNotFound()) {
      DPS_ASSIGN_OR_RETURN(bool exists, zk.Exists(o.path + "/assignment", /*watch=*/true));  // watch its creation
      if (exists) return Status::IOError(o.path + "/assignment: created meanwhile");       // read again
    } else {
      return data.status();
    }
    if (told && spans == mine) return Status::OK();
    mine = spans;
    told = true;
    if (o.on_assigned) o.on_assigned(spans);
    return Status::OK();
  }
};

TabletAssigner::TabletAssigner(ZkSession* session, AssignerOptions options) : state_(std::make_shared<State>()) {
  state_->o = std::move(options);
  session->AddTask([state = state_](ZkSession& zk) { return state->Run(zk); });
}

bool TabletAssigner::manager() const { return state_->manager; }

}  // namespace dps
