// The generations of an index a shard server has open (issue 22). A
// request takes the generation it runs on once, as a shared_ptr, and keeps
// it to its Done frame: files a later commit or compaction deletes stay
// mapped until the last request holding them ends (the mapping outlives
// the unlink), so a follower may install a new generation at any moment.
//
// At most two generations are open: the current one and the one before it
// (kept so that a client asking for exactly that generation, `--consistent`,
// can still be answered while servers catch up). Before a third is opened
// the follower retires the older (Retire: new requests can no longer take
// it) and waits until its last request has ended (Drained).
//
// Observers (OnGenerationChanged) are told each new current generation,
// on the thread that installed it, after it is installed: the hook a
// cluster registry (ZooKeeper) uses to publish what the server serves.
//
// Thread-safe: the network thread takes generations while the follower's
// thread installs them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "index/index_reader.h"
#include "shards/bin_executor.h"

namespace dps {

// One opened generation: the index and the executor over it. Immutable.
struct ServedGeneration {
  explicit ServedGeneration(std::shared_ptr<const IndexReader> reader)
      : index(std::move(reader)), executor(index.get()) {}
  uint64_t generation() const { return index->manifest().generation; }

  std::shared_ptr<const IndexReader> index;
  BinExecutor executor;
};

using GenerationObserver = std::function<void(uint64_t generation)>;

class IndexHolder {
 public:
  explicit IndexHolder(std::shared_ptr<const IndexReader> first);

  // The newest generation: what a request without a wanted generation runs on.
  std::shared_ptr<const ServedGeneration> Current() const;
  // Generation `generation` if it is the current or the previous one; null
  // otherwise.
  std::shared_ptr<const ServedGeneration> At(uint64_t generation) const;
  uint64_t newest() const;

  // Whether a new generation may be opened now without passing two: true
  // when no previous one is kept and none retired is still in use.
  bool HasRoom() const;
  // Drops the holder's reference to the previous generation (its requests
  // in flight keep it alive until they end).
  void Retire();
  // Makes `next` current and the current one previous, then tells the
  // observers. REQUIRES: HasRoom().
  void Install(std::shared_ptr<const IndexReader> next);

  // Generations still open: held here or by a request in flight.
  size_t open_generations() const;

  // Called with every generation installed from now on.
  void OnGenerationChanged(GenerationObserver observer);

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const ServedGeneration> current_, previous_;
  std::weak_ptr<const ServedGeneration> retired_;
  std::vector<std::weak_ptr<const ServedGeneration>> all_;  // for open_generations
  std::vector<GenerationObserver> observers_;
};

}  // namespace dps
