#include "shards/index_follower.h"

#include <sys/stat.h>

#include <chrono>

namespace dps {

std::string ShapeChange(const Manifest& serving, const Manifest& next) {
  if (next.index_id != serving.index_id) return "is of another index (" + next.index_id + ")";
  if (next.generation < serving.generation) {
    return "is older than the generation served (" + std::to_string(serving.generation) + ")";
  }
  if (next.bins != serving.bins) return "has " + std::to_string(next.bins) + " bins, not " + std::to_string(serving.bins);
  bool same_tablets = next.tablets.size() == serving.tablets.size();
  for (size_t i = 0; same_tablets && i < next.tablets.size(); ++i) {
    same_tablets = next.tablets[i].first_bin == serving.tablets[i].first_bin &&
                   next.tablets[i].last_bin == serving.tablets[i].last_bin;
  }
  if (!same_tablets) return "has another tablet layout";
  if (!(next.analyzer == serving.analyzer)) return "has another analyzer (" + next.analyzer.ToString() + ")";
  if (!(next.fields == serving.fields)) return "has other fields (" + next.fields.List() + ")";
  if (next.positions != serving.positions) return "changed whether positions are indexed";
  if (next.store_text != serving.store_text) return "changed whether texts are stored";
  return "";
}

IndexFollower::IndexFollower(IndexHolder* holder, FollowOptions options)
    : holder_(holder), options_(std::move(options)) {
  thread_ = std::thread([this] { Run(); });
}

IndexFollower::~IndexFollower() { Stop(); }

void IndexFollower::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool IndexFollower::Sleep(uint32_t ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return !wake_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_; });
}

bool IndexFollower::StatManifest(const std::string& dir, Signature* out) {
  struct stat st;
  if (::stat((dir + "/" + kManifestName).c_str(), &st) != 0) return false;
  auto ns = [](const struct timespec& t) { return uint64_t(t.tv_sec) * 1'000'000'000u + uint64_t(t.tv_nsec); };
  *out = Signature{uint64_t(st.st_ino), uint64_t(st.st_size), ns(st.st_mtim), ns(st.st_ctim)};
  return true;
}

void IndexFollower::Run() {
  while (Sleep(options_.interval_ms)) Poll();
}

void IndexFollower::Poll() {
  Signature sig;
  if (!StatManifest(options_.dir, &sig) || (seen_any_ && sig == seen_)) return;
  // A failure while the MANIFEST changes again under us is a race with the
  // writer, not a bad generation: the next look tries the newer one, quietly.
  auto changed_since = [&] {
    Signature now;
    return !StatManifest(options_.dir, &now) || !(now == sig);
  };
  auto refuse = [&](const std::string& why) {
    if (changed_since()) return;
    seen_ = sig;
    seen_any_ = true;
    Log("not following " + options_.dir + ": " + why + "; still serving generation " +
        std::to_string(holder_->newest()));
  };
  auto manifest = ReadManifest(options_.dir);
  if (!manifest.ok()) return refuse(manifest.status().message());
  const auto serving = holder_->Current();
  if (manifest->generation == serving->generation() && manifest->index_id == serving->index->manifest().index_id) {
    seen_ = sig;
    seen_any_ = true;
    return;
  }
  if (std::string why = ShapeChange(serving->index->manifest(), *manifest); !why.empty()) {
    return refuse("generation " + std::to_string(manifest->generation) + " " + why);
  }
  // Two generations at most: the older must drain before a third opens.
  holder_->Retire();
  while (!holder_->HasRoom()) {
    if (!Sleep(5)) return;
  }
  auto opened = IndexReader::Open(options_.dir);
  if (!opened.ok()) return refuse("generation " + std::to_string(manifest->generation) + ": " + opened.status().message());
  std::shared_ptr<const IndexReader> next = std::move(opened).value();
  if (std::string why = ShapeChange(serving->index->manifest(), next->manifest()); !why.empty()) {
    return refuse("generation " + std::to_string(next->manifest().generation) + " " + why);
  }
  if (next->manifest().generation == serving->generation()) return;  // the MANIFEST moved back meanwhile
  seen_ = sig;
  seen_any_ = true;
  holder_->Install(std::move(next));
  Log("serving generation " + std::to_string(holder_->newest()) + " of " + options_.dir + " (was " +
      std::to_string(serving->generation()) + ")");
}

}  // namespace dps
