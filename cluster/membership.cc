#include "cluster/membership.h"

#include "cluster/connect_string.h"

namespace dps {

Result<std::unique_ptr<ServerMembership>> ServerMembership::Join(const std::string& zookeeper, uint32_t session_ms,
                                                                 uint32_t wait_ms, ServerRecord record,
                                                                 std::function<void(const std::string&)> log) {
  DPS_ASSIGN_OR_RETURN(ZkAddress address, ParseZkAddress(zookeeper));
  std::unique_ptr<ServerMembership> m(new ServerMembership());
  m->path_ = address.path;
  m->session_ = ZkSession::Start(ZkSessionOptions{address.hosts, session_ms, std::move(log)});
  m->registration_ = std::make_unique<ServerRegistration>(m->session_.get(), address.path, std::move(record));
  if (!m->registration_->WaitRegistered(wait_ms)) {
    return Status::IOError("--zookeeper " + zookeeper + ": could not register within " + std::to_string(wait_ms) +
                           " ms (is ZooKeeper running there?)");
  }
  return m;
}

void ServerMembership::StartAssigner(uint32_t tablets, uint32_t replicas,
                                     std::function<void(const std::string&)> log) {
  ServerRegistration* registration = registration_.get();
  AssignerOptions o{path_, registration->record().address, tablets, replicas,
                    [registration](const std::vector<TabletSpan>& mine) { registration->UpdateHosted(mine); },
                    std::move(log)};
  assigner_ = std::make_unique<TabletAssigner>(session_.get(), std::move(o));
}

ServerMembership::~ServerMembership() {
  // The session first: its thread runs the assigner's task, which calls the
  // registration; once it is joined, nothing does.
  session_.reset();
  assigner_.reset();
  registration_.reset();
}

}  // namespace dps
