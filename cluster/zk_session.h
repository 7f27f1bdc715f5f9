// One ZooKeeper session kept alive for the life of a process, over the C
// client (libzookeeper_mt). ZooKeeper's own rules apply: while the
// connection is lost the client reconnects by itself and the session, its
// ephemeral nodes and its watches survive if it is back within the session
// timeout; once the ensemble declares the session expired, this object
// opens a new one (the handle cannot be revived) and every task runs again,
// which is how ephemeral nodes are re-created after an expiry. A session
// cut off from ZooKeeper for longer than its timeout is given up as
// expired too (Curator's rule): the ensemble may never say so (one that
// lost its data refuses the old session's reconnection for ever), and a
// new session's registration replaces the old one's node.
//
// Work is done by tasks (AddTask) on the session's own thread: each runs
// after every (re)connection, after any watch fires (every watch set
// through this object is on the handle's one watcher, so any change
// re-runs every task: the users are few and their reads small), after
// Kick(), and again a second later when one failed. A task reads and writes
// through the synchronous calls below.
//
// Thread-safe. The synchronous calls may be made from any thread (tasks
// included); while disconnected they fail (IOError) after the client's
// timeout, never block for ever.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"

typedef struct _zhandle zhandle_t;

namespace dps {

struct ZkSessionOptions {
  std::string hosts;  // "HOST:PORT,..." (ZkAddress::hosts)
  // The session timeout asked for: how long after a process dies its
  // ephemeral nodes stay. ZooKeeper bounds it by its min/max (2 and 20
  // ticks by default). Shorter finds dead servers sooner, longer survives
  // longer pauses (a GC, a slow network) without a spurious expiry.
  uint32_t session_timeout_ms = 10'000;
  std::function<void(const std::string&)> log;  // lifecycle lines; may be empty
};

class ZkSession {
 public:
  using Task = std::function<Status(ZkSession&)>;

  // Starts connecting in the background; never blocks.
  static std::unique_ptr<ZkSession> Start(ZkSessionOptions options);
  ~ZkSession();  // closes the session: its ephemeral nodes go at once

  // REQUIRES: called before the tasks are relied upon; tasks run in the
  // order added. A task must not call AddTask.
  void AddTask(Task task);
  void Kick();  // run the tasks soon
  // True once connected, false after `timeout_ms`.
  bool WaitConnected(uint32_t timeout_ms);
  bool connected() const { return connected_.load(); }
  // The current session's id (0 before the first connection).
  int64_t session_id() const;

  // Synchronous calls. Paths are absolute. Errors name the path and
  // ZooKeeper's reason; NotFound for a missing node.
  Status CreatePath(const std::string& path);  // persistent, with its parents; existing is fine
  // An ephemeral node (or, with `sequential`, one with ZooKeeper's
  // 10-digit suffix); *created gets its name. InvalidArgument "exists" when
  // a node of that name exists.
  Status CreateEphemeral(const std::string& path, const std::string& data, bool sequential = false,
                         std::string* created = nullptr);
  // Creates or overwrites a persistent node.
  Status Put(const std::string& path, const std::string& data);
  // The data, or NotFound; with `watch`, a change (or the creation) of the
  // node re-runs the tasks. *owner: the ephemeral owner's session (0 for a
  // persistent node).
  Result<std::string> Get(const std::string& path, bool watch, int64_t* owner = nullptr);
  // The children's names, sorted; NotFound when the node is missing. With
  // `watch`, a child added or removed re-runs the tasks.
  Result<std::vector<std::string>> Children(const std::string& path, bool watch);
  // Whether the node exists; with `watch`, its creation, change or
  // deletion re-runs the tasks (ZooKeeper watches a missing node too).
  Result<bool> Exists(const std::string& path, bool watch);
  Status Set(const std::string& path, const std::string& data);
  Status Delete(const std::string& path);  // a missing node is fine

 private:
  explicit ZkSession(ZkSessionOptions options);
  static void OnEvent(zhandle_t* zh, int type, int state, const char* path, void* context);
  void Loop();
  // Runs `call` on the open handle (IOError while none is); a nonzero
  // result becomes a Status naming `what` and `path`.
  Status Call(const std::string& what, const std::string& path, const std::function<int(zhandle_t*)>& call);
  void Log(const std::string& line) {
    if (options_.log) options_.log(line);
  }

  ZkSessionOptions options_;
  std::shared_mutex handle_mu_;  // calls hold it shared; replacing the handle, exclusive
  zhandle_t* handle_ = nullptr;
  std::mutex mu_;  // guards the fields below
  std::condition_variable wake_;
  bool dirty_ = true;      // the tasks should run
  bool expired_ = false;   // the session is gone: open a new one
  bool stop_ = false;
  // When the connection was lost (while !connected_ after a session was up).
  std::chrono::steady_clock::time_point disconnected_since_;
  std::vector<Task> tasks_;
  std::atomic<bool> connected_{false};
  std::atomic<int64_t> session_id_{0};
  bool init_failed_ = false;  // the loop's thread only
  std::thread thread_;
};

}  // namespace dps
