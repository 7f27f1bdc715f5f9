#include "cluster/zk_session.h"

#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace dps {

namespace {

Status FromZk(int rc, const std::string& what, const std::string& path) {
  const std::string message = "ZooKeeper " + what + " " + path + ": " + zerror(rc);
  if (rc == ZNONODE) return Status::NotFound(message);
  if (rc == ZNODEEXISTS) return Status::InvalidArgument(message);
  return Status::IOError(message);
}

}  // namespace

ZkSession::ZkSession(ZkSessionOptions options) : options_(std::move(options)) {}

std::unique_ptr<ZkSession> ZkSession::Start(ZkSessionOptions options) {
  // The client logs every refused connection to stderr by default; our
  // users log what matters themselves. DPS_ZK_LOG=1 brings it back.
  const char* verbose = std::getenv("DPS_ZK_LOG");
  zoo_set_debug_level(verbose && *verbose == '1' ? ZOO_LOG_LEVEL_INFO : static_cast<ZooLogLevel>(0));
  std::unique_ptr<ZkSession> session(new ZkSession(std::move(options)));
  session->thread_ = std::thread([s = session.get()] { s->Loop(); });
  return session;
}

ZkSession::~ZkSession() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  std::unique_lock<std::shared_mutex> lock(handle_mu_);
  if (handle_ != nullptr) zookeeper_close(handle_);
}

void ZkSession::OnEvent(zhandle_t*, int type, int state, const char*, void* context) {
  auto* self = static_cast<ZkSession*>(context);
  {
    std::lock_guard<std::mutex> lock(self->mu_);
    if (type == ZOO_SESSION_EVENT) {
      if (self->connected_ && state != ZOO_CONNECTED_STATE) {
        self->disconnected_since_ = std::chrono::steady_clock::now();
      }
      self->connected_ = state == ZOO_CONNECTED_STATE;
      if (state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE) self->expired_ = true;
    }
    self->dirty_ = true;  // a reconnection, or a watch fired: look again
  }
  self->wake_.notify_all();
}

void ZkSession::AddTask(Task task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
    dirty_ = true;
  }
  wake_.notify_all();
}

void ZkSession::Kick() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    dirty_ = true;
  }
  wake_.notify_all();
}

bool ZkSession::WaitConnected(uint32_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return wake_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return connected_.load() || stop_; }) &&
         connected_.load();
}

int64_t ZkSession::session_id() const { return session_id_.load(); }

void ZkSession::Loop() {
  bool retry = false;  // a task failed: run them again in a second
  while (true) {
    bool open_new = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait_for(lock, std::chrono::seconds(1),
                     [&] { return stop_ || expired_ || handle_ == nullptr || (connected_ && dirty_); });
      if (stop_) return;
      open_new = expired_ || handle_ == nullptr;
      if (!open_new && !connected_ && session_id_ != 0 &&
          std::chrono::steady_clock::now() - disconnected_since_ >
              std::chrono::milliseconds(options_.session_timeout_ms)) {
        Log("ZooKeeper " + options_.hosts + " unreachable for longer than the session timeout");
        open_new = true;
      }
      expired_ = false;
      if (!open_new) {
        if (!connected_) continue;  // the client is reconnecting by itself
        if (!dirty_ && !retry) continue;
        dirty_ = false;
      }
    }
    if (open_new) {
      std::unique_lock<std::shared_mutex> lock(handle_mu_);
      if (handle_ != nullptr) {
        Log("ZooKeeper session expired; opening a new one");
        connected_ = false;
        session_id_ = 0;  // until the new one is up
        zookeeper_close(handle_);
      }
      handle_ = zookeeper_init(options_.hosts.c_str(), &ZkSession::OnEvent,
                               static_cast<int>(options_.session_timeout_ms), nullptr, this, 0);
      if (handle_ == nullptr) {
        if (!init_failed_) Log("ZooKeeper " + options_.hosts + ": cannot start a client (" + std::strerror(errno) + ")");
        init_failed_ = true;  // said once; tried again every second
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::seconds(1));
      }
      continue;  // the tasks run once the new session is connected
    }
    {
      std::shared_lock<std::shared_mutex> lock(handle_mu_);
      if (const clientid_t* id = zoo_client_id(handle_)) session_id_ = id->client_id;
    }
    std::vector<Task> tasks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks = tasks_;
    }
    retry = false;
    for (auto& task : tasks) {
      if (Status s = task(*this); !s.ok()) {
        retry = true;
        if (connected_) Log(s.message());
      }
    }
  }
}

Status ZkSession::Call(const std::string& what, const std::string& path, const std::function<int(zhandle_t*)>& call) {
  std::shared_lock<std::shared_mutex> lock(handle_mu_);
  if (handle_ == nullptr) return Status::IOError("ZooKeeper " + what + " " + path + ": not connected");
  const int rc = call(handle_);
  return rc == ZOK ? Status::OK() : FromZk(rc, what, path);
}

Status ZkSession::CreatePath(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    Status s = Call("create", prefix, [&](zhandle_t* zh) {
      return zoo_create(zh, prefix.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, nullptr, 0);
    });
    if (!s.ok() && !s.IsInvalidArgument()) return s;  // InvalidArgument: it exists
    if (slash == std::string::npos) return Status::OK();
  }
}

Status ZkSession::CreateEphemeral(const std::string& path, const std::string& data, bool sequential,
                                  std::string* created) {
  std::string name(path.size() + 16, '\0');
  Status s = Call("create", path, [&](zhandle_t* zh) {
    return zoo_create(zh, path.c_str(), data.data(), static_cast<int>(data.size()), &ZOO_OPEN_ACL_UNSAFE,
                      sequential ? ZOO_EPHEMERAL_SEQUENTIAL : ZOO_EPHEMERAL, name.data(),
                      static_cast<int>(name.size()));
  });
  if (s.ok() && created != nullptr) *created = name.c_str();
  return s;
}

Status ZkSession::Put(const std::string& path, const std::string& data) {
  Status s = Set(path, data);
  if (!s.IsNotFound()) return s;
  s = Call("create", path, [&](zhandle_t* zh) {
    return zoo_create(zh, path.c_str(), data.data(), static_cast<int>(data.size()), &ZOO_OPEN_ACL_UNSAFE,
                      ZOO_PERSISTENT, nullptr, 0);
  });
  return s.IsInvalidArgument() ? Set(path, data) : s;  // created meanwhile
}

Result<std::string> ZkSession::Get(const std::string& path, bool watch, int64_t* owner) {
  std::string data(64 * 1024, '\0');
  for (int attempt = 0; attempt < 3; ++attempt) {
    int length = static_cast<int>(data.size());
    struct Stat stat {};
    DPS_RETURN_IF_ERROR(Call("get", path, [&](zhandle_t* zh) {
      return zoo_get(zh, path.c_str(), watch ? 1 : 0, data.data(), &length, &stat);
    }));
    if (stat.dataLength <= static_cast<int>(data.size())) {
      if (owner != nullptr) *owner = stat.ephemeralOwner;
      data.resize(std::max(length, 0));
      return data;
    }
    data.resize(stat.dataLength);  // it grew: read again
  }
  return Status::IOError("ZooKeeper get " + path + ": the node keeps growing");
}

Result<std::vector<std::string>> ZkSession::Children(const std::string& path, bool watch) {
  struct String_vector names {};
  DPS_RETURN_IF_ERROR(Call("children of", path, [&](zhandle_t* zh) {
    return zoo_get_children(zh, path.c_str(), watch ? 1 : 0, &names);
  }));
  std::vector<std::string> out(names.data, names.data + names.count);
  deallocate_String_vector(&names);
  std::sort(out.begin(), out.end());
  return out;
}

Result<bool> ZkSession::Exists(const std::string& path, bool watch) {
  struct Stat stat {};
  Status s = Call("exists", path, [&](zhandle_t* zh) { return zoo_exists(zh, path.c_str(), watch ? 1 : 0, &stat); });
  if (s.IsNotFound()) return false;
  if (!s.ok()) return s;
  return true;
}

Status ZkSession::Set(const std::string& path, const std::string& data) {
  return Call("set", path, [&](zhandle_t* zh) {
    return zoo_set(zh, path.c_str(), data.data(), static_cast<int>(data.size()), -1);
  });
}

Status ZkSession::Delete(const std::string& path) {
  Status s = Call("delete", path, [&](zhandle_t* zh) { return zoo_delete(zh, path.c_str(), -1); });
  return s.IsNotFound() ? Status::OK() : s;
}

}  // namespace dps
