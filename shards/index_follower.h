// Follows an index directory for a shard server (issue 22): notices that
// a writer replaced the MANIFEST, opens the new generation and installs it
// in the server's IndexHolder; requests in flight finish on the generation
// they started on.
//
// Polling, not inotify: one stat of DIR/MANIFEST per interval (250 ms by
// default, so a commit is served within about a quarter of a second) costs
// nothing next to a query, works the same on local, network and overlay
// file systems (inotify misses changes made on another host of an NFS
// mount), and needs no descriptor or watch limit. A commit replaces the
// MANIFEST by rename, so its inode changes: (inode, size, mtime, ctime)
// tells a new file from the old.
//
// A new generation that cannot be served (unreadable, corrupt, another
// index id, bins, tablet layout, analyzer, fields, positions or stored
// text, or older than the one served) is logged in one line and skipped;
// the server keeps its generation and tries again at the MANIFEST's next
// change. At most two generations are open (IndexHolder): when a third
// arrives the older one is retired and opening waits until its last
// request has ended.
//
// Owns one thread; Stop (or the destructor) joins it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "common/status.h"
#include "index/manifest.h"
#include "shards/index_holder.h"

namespace dps {

struct FollowOptions {
  std::string dir;             // the index directory the holder's generations come from
  uint32_t interval_ms = 250;  // between two looks at the MANIFEST (at most a second: issue 22)
  std::function<void(const std::string&)> log;  // one line per event; may be empty
};

// Why generation `next` cannot replace `serving` on a server ("" when it can).
std::string ShapeChange(const Manifest& serving, const Manifest& next);

class IndexFollower {
 public:
  // Starts following. REQUIRES: `holder` outlives the follower.
  IndexFollower(IndexHolder* holder, FollowOptions options);
  ~IndexFollower();
  IndexFollower(const IndexFollower&) = delete;
  IndexFollower& operator=(const IndexFollower&) = delete;

  void Stop();

 private:
  struct Signature {
    uint64_t inode = 0, size = 0, mtime_ns = 0, ctime_ns = 0;
    bool operator==(const Signature&) const = default;
  };
  static bool StatManifest(const std::string& dir, Signature* out);
  void Run();
  // One look: installs a new generation, logs a refusal, or does nothing.
  void Poll();
  // Waits `ms` or until Stop; false when stopping.
  bool Sleep(uint32_t ms);
  void Log(const std::string& line) const {
    if (options_.log) options_.log(line);
  }

  IndexHolder* holder_;
  FollowOptions options_;
  Signature seen_;  // the MANIFEST last dealt with (installed or refused)
  bool seen_any_ = false;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace dps
