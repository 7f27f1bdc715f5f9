#include "shards/delay.h"

#include <cmath>
#include <cstdlib>


namespace dps {

namespace {
bool ParseDouble(const std::string& s, double* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(*v);
}
}  // namespace

Result<DelayRule> ParseDelayRule(const std::string& spec) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("--inject-delay " + spec + ": " + why +
                                   " (expected WHO:PROBABILITY:MS, WHO a tablet or *, MS a number "
                                   "or lognormal(MEDIAN,SIGMA))");
  };
  const size_t a = spec.find(':');
  const size_t b = a == std::string::npos ? a : spec.find(':', a + 1);
  if (b == std::string::npos) return bad("missing fields");
  DelayRule r;
  const std::string who = spec.substr(0, a), prob = spec.substr(a + 1, b - a - 1),
                    ms = spec.substr(b + 1);
  if (who != "*") {
    double t;
    if (!ParseDouble(who, &t) || t < 0 || t != std::floor(t) || t > 1e9) return bad("bad tablet");
    r.tablet = static_cast<int64_t>(t);
  }
  if (!ParseDouble(prob, &r.probability) || r.probability < 0 || r.probability > 1) {
    return bad("probability must be in [0, 1]");
  }
  const std::string ln = "lognormal(";
  if (ms.rfind(ln, 0) == 0 && ms.back() == ')') {
    const std::string args = ms.substr(ln.size(), ms.size() - ln.size() - 1);
    const size_t comma = args.find(',');
    if (comma == std::string::npos || !ParseDouble(args.substr(0, comma), &r.ms) ||
        !ParseDouble(args.substr(comma + 1), &r.sigma) || r.ms <= 0 || r.sigma <= 0) {
      return bad("bad lognormal parameters");
    }
  } else if (!ParseDouble(ms, &r.ms) || r.ms < 0 || r.ms > 3.6e6) {
    return bad("milliseconds must be in [0, 3600000]");
  }
  return r;
}

DelayInjector::DelayInjector(std::vector<DelayRule> rules, uint64_t seed)
    : rules_(std::move(rules)), seed_(seed) {}

namespace {
// Sebastiano Vigna's SplitMix64 (public domain algorithm): a full-period
// 64-bit generator whose outputs from nearby seeds are independent enough
// for delay draws.
struct SplitMix64 {
  using result_type = uint64_t;
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return UINT64_MAX; }
  uint64_t operator()() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state;
};
}  // namespace

int64_t DelayInjector::SampleMicros(uint32_t tablet) {
  double total_ms = 0;
  for (const auto& r : rules_) {
    if (r.tablet >= 0 && static_cast<uint32_t>(r.tablet) != tablet) continue;
    // A counter-seeded generator per draw: thread-safe without a lock, and
    // cheap (SplitMix64: seeding a Mersenne twister per draw cost more than
    // the rest of a simulated request).
    const uint64_t n = counter_.fetch_add(1, std::memory_order_relaxed);
    SplitMix64 rng(seed_ ^ (n * 0x9e3779b97f4a7c15ULL));
    if (std::uniform_real_distribution<double>(0, 1)(rng) >= r.probability) continue;
    total_ms += r.sigma > 0 ? std::lognormal_distribution<double>(std::log(r.ms), r.sigma)(rng) : r.ms;
  }
  return static_cast<int64_t>(total_ms * 1000);
}

void TabletDelays::Draw(DelayInjector* injector, const Manifest& manifest, const std::vector<BinId>& bins) {
  us_.clear();
  if (injector == nullptr || injector->empty()) return;
  us_.assign(manifest.tablets.size(), -1);
  for (BinId bin : bins) {
    const size_t t = manifest.TabletOf(bin.value);
    if (us_[t] >= 0) continue;
    us_[t] = injector->SampleMicros(static_cast<uint32_t>(t));
  }
}

}  // namespace dps
