#include "cluster/server_watch.h"

#include <chrono>
#include <condition_variable>

namespace dps {

struct ServerWatch::State {
  std::string dir;  // PATH/servers
  OnChange on_change;
  std::function<void(const std::string&)> log;
  mutable std::mutex mu;
  mutable std::condition_variable changed;
  ServerView view;
  std::set<std::string> warned;  // bad nodes reported, by name and data

  Status Read(ZkSession& zk) {
    auto listed = zk.Children(dir, /*watch=*/true);
    if (listed.status().IsNotFound()) {
      // No server ever registered here: watch for the node's creation.
      DPS_ASSIGN_OR_RETURN(bool exists, zk.Exists(dir, /*watch=*/true));
      if (exists) return Status::IOError(dir + ": created meanwhile");  // read again in a second
      listed = std::vector<std::string>();
    }
    DPS_ASSIGN_OR_RETURN(std::vector<std::string> names, std::move(listed));
    std::vector<ServerRecord> servers;
    for (const std::string& name : names) {
      auto data = zk.Get(dir + "/" + name, /*watch=*/true);
      if (data.status().IsNotFound()) continue;  // gone since the listing
      if (!data.ok()) return data.status();
      auto record = DecodeServerRecord(*data);
      if (!record.ok() || record->address != name) {
        if (warned.insert(name + "\n" + *data).second && log) {
          log("warning: ZooKeeper node " + dir + "/" + name + " ignored: " +
              (record.ok() ? "its address is " + record->address : record.status().message()));
        }
        continue;
      }
      servers.push_back(std::move(record).value());
    }
    ServerView next;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (view.version != 0 && servers == view.servers) return Status::OK();
      next.version = view.version + 1;  // only this thread writes the view
    }
    next.servers = std::move(servers);
    if (on_change) on_change(next);  // first, so that a waiter sees its effect too
    {
      std::lock_guard<std::mutex> lock(mu);
      view = std::move(next);
    }
    changed.notify_all();
    return Status::OK();
  }
};

ServerWatch::ServerWatch(ZkSession* session, std::string path, OnChange on_change,
                         std::function<void(const std::string&)> log)
    : state_(std::make_shared<State>()) {
  state_->dir = path + "/servers";
  state_->on_change = std::move(on_change);
  state_->log = std::move(log);
  session->AddTask([state = state_](ZkSession& zk) { return state->Read(zk); });
}

ServerView ServerWatch::view() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->view;
}

bool ServerWatch::WaitForView(uint32_t timeout_ms) const {
  std::unique_lock<std::mutex> lock(state_->mu);
  return state_->changed.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                                  [&] { return state_->view.version != 0; });
}

}  // namespace dps
