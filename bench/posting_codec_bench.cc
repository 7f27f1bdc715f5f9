// Posting block codec throughput. Items are docids (or weights, or lookups),
// so "items_per_second" reads as values decoded per second on one core.
// Inputs are built from fixed seeds and sized to stay in L2, which is where
// a cursor finds a block it just faulted in.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "index/posting_codec.h"
#include "index/posting_codec_internal.h"

namespace dps {
namespace {

using internal::CodecPath;

constexpr size_t kBlocks = 256;
constexpr uint32_t kNone = UINT32_MAX;

// kBlocks full blocks of docids whose gaps are geometric (as for a term
// spread evenly over a bin) with a mean chosen so the widest gap of a block
// has about `bits` bits: the maximum of 128 geometric draws is near
// mean * ln(128), about 2^2.3 times the mean. Wide gaps would run past 2^32
// within kBlocks blocks, so a block that would do so starts a new list
// instead; prevs[b] is the `prev` block b is coded against.
struct DocList {
  explicit DocList(int bits, uint64_t seed = 42) {
    std::mt19937_64 rng(seed);
    const double mean = std::max(1.0, std::ldexp(1.0, bits) / 5.0);
    std::geometric_distribution<uint32_t> gap(1.0 / mean);
    uint32_t prev = kNone;
    double width = 0;
    for (size_t b = 0; b < kBlocks; ++b) {
      uint64_t block[kBlockSize];
      for (uint64_t d = prev == kNone ? UINT64_MAX : prev;;) {  // UINT64_MAX + 1 == 0
        for (uint64_t& x : block) x = d += uint64_t{gap(rng)} + 1;
        if (d <= UINT32_MAX) break;
        d = UINT64_MAX;
        prev = kNone;
      }
      prevs.push_back(prev);
      docs.insert(docs.end(), block, block + kBlockSize);
      const size_t before = encoded.size();
      EncodeDocBlock(&docs[b * kBlockSize], kBlockSize, prev, &encoded);
      width += static_cast<uint8_t>(encoded[before]);
      prev = docs.back();
    }
    mean_width = width / kBlocks;
  }
  const uint8_t* begin() const { return reinterpret_cast<const uint8_t*>(encoded.data()); }
  const uint8_t* end() const { return begin() + encoded.size(); }
  std::vector<uint32_t> docs;
  std::vector<uint32_t> prevs;
  std::string encoded;
  double mean_width;
};

using DocDecoder = const uint8_t* (*)(const uint8_t*, const uint8_t*, size_t, uint32_t, uint32_t*);

const uint8_t* DecodeSse2(const uint8_t* p, const uint8_t* end, size_t n, uint32_t prev,
                          uint32_t* docs) {
  return internal::DecodeDocBlockOn(CodecPath::kSse2, p, end, n, prev, docs);
}

const uint8_t* DecodeScalar(const uint8_t* p, const uint8_t* end, size_t n, uint32_t prev,
                            uint32_t* docs) {
  return internal::DecodeDocBlockOn(CodecPath::kScalar, p, end, n, prev, docs);
}

// Decodes the kBlocks blocks of a list in order, as a cursor walking it does.
template <DocDecoder kDecode>
void BM_DecodeDocBlock(benchmark::State& state) {
  const DocList list(static_cast<int>(state.range(0)));
  uint32_t out[kBlockSize];
  for (auto _ : state) {
    const uint8_t* p = list.begin();
    for (size_t b = 0; b < kBlocks && p != nullptr; ++b) {
      p = kDecode(p, list.end(), kBlockSize, list.prevs[b], out);
      benchmark::DoNotOptimize(p);
      benchmark::ClobberMemory();
    }
    if (p != list.end() || out[kBlockSize - 1] != list.docs.back()) {
      state.SkipWithError("decoded list differs");
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kBlocks * kBlockSize));
  state.counters["bits"] = list.mean_width;
  state.counters["bytes_per_doc"] =
      static_cast<double>(list.encoded.size()) / static_cast<double>(list.docs.size());
}
BENCHMARK(BM_DecodeDocBlock<DecodeDocBlock>)
    ->Arg(0)
    ->Arg(4)
    ->Arg(8)
    ->Arg(12)
    ->Arg(16)
    ->Arg(20)
    ->Arg(24);
BENCHMARK(BM_DecodeDocBlock<DecodeSse2>)->Arg(8);  // the public entry point adds nothing
BENCHMARK(BM_DecodeDocBlock<DecodeScalar>)->Arg(4)->Arg(8)->Arg(16);

// Tail blocks of n < 128 docids: the horizontal layout, decoded by scalar code.
void BM_DecodePartialDocBlock(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const DocList list(8);
  std::string encoded;
  for (size_t b = 0; b < kBlocks; ++b) {
    EncodeDocBlock(&list.docs[b * kBlockSize], n, list.prevs[b], &encoded);
  }
  const auto* begin = reinterpret_cast<const uint8_t*>(encoded.data());
  uint32_t out[kBlockSize];
  for (auto _ : state) {
    const uint8_t* p = begin;
    for (size_t b = 0; b < kBlocks && p != nullptr; ++b) {
      p = DecodeDocBlock(p, begin + encoded.size(), n, list.prevs[b], out);
      benchmark::DoNotOptimize(p);
      benchmark::ClobberMemory();
    }
    if (p != begin + encoded.size()) {
      state.SkipWithError("decode failed");
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kBlocks * n));
}
BENCHMARK(BM_DecodePartialDocBlock)->Arg(16)->Arg(100);

void BM_EncodeDocBlock(benchmark::State& state) {
  const DocList list(static_cast<int>(state.range(0)));
  std::string out;
  for (auto _ : state) {
    out.clear();
    for (size_t b = 0; b < kBlocks; ++b) {
      EncodeDocBlock(&list.docs[b * kBlockSize], kBlockSize, list.prevs[b], &out);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kBlocks * kBlockSize));
}
BENCHMARK(BM_EncodeDocBlock)->Arg(8)->Arg(16);

// Term frequencies: mostly 1 and 2 with a geometric tail, and one block in
// four holding a rare large count (a term repeated in a long document), which
// PFOR turns into an exception. Arg 1 gives all-ones blocks instead.
std::vector<uint32_t> Weights(bool all_ones) {
  std::mt19937_64 rng(7);
  std::geometric_distribution<uint32_t> tail(0.6);
  std::vector<uint32_t> weights(kBlocks * kBlockSize, 1);
  if (all_ones) return weights;
  for (uint32_t& w : weights) w = 1 + tail(rng);
  for (size_t b = 0; b < kBlocks; b += 4) weights[b * kBlockSize + rng() % kBlockSize] = 5000;
  return weights;
}

template <CodecPath kPath>
void BM_DecodeWeightBlock(benchmark::State& state) {
  const std::vector<uint32_t> weights = Weights(state.range(0) == 1);
  std::string encoded;
  for (size_t b = 0; b < kBlocks; ++b) {
    EncodeWeightBlock(&weights[b * kBlockSize], kBlockSize, &encoded);
  }
  const auto* begin = reinterpret_cast<const uint8_t*>(encoded.data());
  uint32_t out[kBlockSize];
  for (auto _ : state) {
    const uint8_t* p = begin;
    for (size_t b = 0; b < kBlocks && p != nullptr; ++b) {
      p = internal::DecodeWeightBlockOn(kPath, p, begin + encoded.size(), kBlockSize, out);
      benchmark::DoNotOptimize(p);
      benchmark::ClobberMemory();
    }
    if (p != begin + encoded.size()) {
      state.SkipWithError("decode failed");
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * weights.size()));
  state.counters["bytes_per_weight"] =
      static_cast<double>(encoded.size()) / static_cast<double>(weights.size());
}
BENCHMARK(BM_DecodeWeightBlock<CodecPath::kSse2>)->ArgName("all_ones")->Arg(0)->Arg(1);
BENCHMARK(BM_DecodeWeightBlock<CodecPath::kScalar>)->ArgName("all_ones")->Arg(0);

void BM_EncodeWeightBlock(benchmark::State& state) {
  const std::vector<uint32_t> weights = Weights(false);
  std::string out;
  for (auto _ : state) {
    out.clear();
    for (size_t b = 0; b < kBlocks; ++b) {
      EncodeWeightBlock(&weights[b * kBlockSize], kBlockSize, &out);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * weights.size()));
}
BENCHMARK(BM_EncodeWeightBlock);

// One search per item in a block of range(0) docids, targets drawn uniformly
// over the block's span (so the answer position is random and a branchy
// search would mispredict about half its comparisons). With range(1) == 1
// each target depends on the previous answer, as in a cursor that seeks
// again from where it landed: that measures latency rather than throughput.
template <size_t (*kSearch)(const uint32_t*, size_t, uint32_t)>
void BM_LowerBound(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const bool chained = state.range(1) == 1;
  const DocList list(8);
  const uint32_t* docs = list.docs.data();
  std::mt19937_64 rng(9);
  std::vector<uint32_t> targets(4096);  // a power of two, for the mask below
  for (uint32_t& t : targets) {
    t = docs[0] + static_cast<uint32_t>(rng() % (docs[n - 1] - docs[0] + 2));
  }
  const size_t mask = targets.size() - 1;
  size_t sum = 0;
  // Two loops: a select on `chained` inside one would chain both modes.
  if (chained) {
    for (auto _ : state) {
      size_t last = 0;
      for (size_t i = 0; i < targets.size(); ++i) {
        sum += last = kSearch(docs, n, targets[(i + last) & mask]);
      }
    }
  } else {
    for (auto _ : state) {
      for (uint32_t t : targets) sum += kSearch(docs, n, t);
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * targets.size()));
}
#define DPS_LOWER_BOUND_BENCH(fn) \
  BENCHMARK(BM_LowerBound<fn>)->ArgNames({"n", "chained"})->ArgsProduct({{128, 32}, {0, 1}})
DPS_LOWER_BOUND_BENCH(LowerBoundInBlock);
DPS_LOWER_BOUND_BENCH(LowerBoundNear);
DPS_LOWER_BOUND_BENCH(internal::LowerBoundBinary);
DPS_LOWER_BOUND_BENCH(internal::LowerBoundCount);
DPS_LOWER_BOUND_BENCH(internal::LowerBoundHybrid);

}  // namespace
}  // namespace dps
