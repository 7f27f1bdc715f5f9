// Delay injection (`--inject-delay WHO:PROBABILITY:MILLISECONDS`, DESIGN.md):
// makes chosen tablets slow so the straggler problem and its mitigations can
// be studied. Extension: MILLISECONDS may be `lognormal(MEDIAN,SIGMA)` for a
// heavy-tailed delay instead of a fixed one.
#pragma once

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/manifest.h"
#include "index/types.h"

namespace dps {

struct DelayRule {
  int64_t tablet = -1;  // -1: every tablet ("*")
  double probability = 0;
  double ms = 0;             // fixed delay, or the median when lognormal
  double sigma = 0;          // > 0: lognormal(ln ms, sigma)
};

// Parses one spec; InvalidArgument naming the spec when malformed.
Result<DelayRule> ParseDelayRule(const std::string& spec);

class DelayInjector {
 public:
  DelayInjector() = default;
  explicit DelayInjector(std::vector<DelayRule> rules, uint64_t seed = std::random_device{}());
  bool empty() const { return rules_.empty(); }
  // The delay to add to `tablet`'s work for one request, in microseconds
  // (the sum of the matching rules that fire). Servers and the in-process
  // coordinator draw it once per request and tablet. Thread-safe.
  int64_t SampleMicros(uint32_t tablet);

 private:
  std::vector<DelayRule> rules_;
  uint64_t seed_ = 0;
  std::atomic<uint64_t> counter_{0};
};

// The delays of one request: drawn once per tablet it touches (a slow
// tablet is slow for all its bins, as with a pause or a stalled disk), by
// the in-process coordinator and the shard server alike.
class TabletDelays {
 public:
  // Draws for the tablets of `bins`; nothing when `injector` is null or
  // empty.
  void Draw(DelayInjector* injector, const Manifest& manifest, const std::vector<BinId>& bins);
  bool empty() const { return us_.empty(); }
  // Microseconds to wait before `tablet`'s bins (0 when none was drawn).
  int64_t of(uint32_t tablet) const { return tablet < us_.size() && us_[tablet] > 0 ? us_[tablet] : 0; }

 private:
  std::vector<int64_t> us_;  // by tablet; -1: not drawn
};

}  // namespace dps
