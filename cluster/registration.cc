#include "cluster/registration.h"

#include <chrono>
#include <condition_variable>

namespace dps {

struct ServerRegistration::State {
  std::string path;  // PATH/servers/ADDRESS
  mutable std::mutex mu;
  mutable std::condition_variable changed;
  ServerRecord record;
  std::string written;  // what the node holds, as far as we know ("" unknown)

  // The task: make the node exist, be ours, and hold the record.
  Status Keep(ZkSession& zk) {
    std::string want;
    {
      std::lock_guard<std::mutex> lock(mu);
      want = EncodeServerRecord(record);
    }
    DPS_RETURN_IF_ERROR(zk.CreatePath(path.substr(0, path.rfind('/'))));
    int64_t owner = 0;
    auto got = zk.Get(path, /*watch=*/true, &owner);
    if (got.ok() && owner != zk.session_id()) {
      // An earlier session's node at our address (a restarted server,
      // before ZooKeeper expired the old session): ours replaces it.
      DPS_RETURN_IF_ERROR(zk.Delete(path));
      got = Status::NotFound(path);
    }
    if (got.ok()) {
      if (*got != want) DPS_RETURN_IF_ERROR(zk.Set(path, want));
    } else if (got.status().IsNotFound()) {
      DPS_RETURN_IF_ERROR(zk.CreateEphemeral(path, want));
      (void)zk.Get(path, /*watch=*/true);  // notice if it is deleted
    } else {
      return got.status();
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      written = want;
    }
    changed.notify_all();
    return Status::OK();
  }
};

std::string ServerRegistration::NodePath(const std::string& path, const std::string& address) {
  return path + "/servers/" + address;
}

ServerRegistration::ServerRegistration(ZkSession* session, std::string path, ServerRecord record)
    : session_(session), state_(std::make_shared<State>()) {
  state_->path = NodePath(path, record.address);
  state_->record = std::move(record);
  session_->AddTask([state = state_](ZkSession& zk) { return state->Keep(zk); });
}

void ServerRegistration::UpdateGeneration(uint64_t g) {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->record.generation = g;
  }
  session_->Kick();
}

void ServerRegistration::UpdateHosted(std::vector<TabletSpan> hosted) {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->record.hosted = std::move(hosted);
  }
  session_->Kick();
}

ServerRecord ServerRegistration::record() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->record;
}

bool ServerRegistration::WaitRegistered(uint32_t timeout_ms) const {
  std::unique_lock<std::mutex> lock(state_->mu);
  return state_->changed.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                                  [&] { return state_->written == EncodeServerRecord(state_->record); });
}

}  // namespace dps
