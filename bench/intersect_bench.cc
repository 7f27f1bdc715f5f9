// AND of 2 and 3 posting lists at length ratios 1:1, 1:10, 1:100, 1:10000:
// dpsearch's compressed cursors (CountIntersection and the virtual
// AndIterator tree) against an uncompressed in-memory galloping
// intersection (the "ceiling" peer's SvS algorithm) in the same run.
// Fixed seeds; docids uniformly spread over a universe of 2^24 (long lists
// of density 1/16), and for the dense kernel's trade-off (BM_AndDense*) over
// 2^20 (density 1/1: every docid) with ratios 1:1 .. 1:32, where
// CountIntersection (which picks a kernel) runs against the leapfrog alone.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <tuple>
#include <map>
#include <vector>

#include "index/and_iterator.h"
#include "index/intersect.h"
#include "index/posting_list.h"
#include "index/term_iterator.h"

namespace dps {
namespace {

constexpr uint32_t kUniverse = 1u << 24;
constexpr size_t kLongList = 1'000'000;

std::vector<DocId> RandomList(size_t n, uint64_t seed, uint32_t universe = kUniverse) {
  std::mt19937_64 rng(seed);
  std::vector<DocId> v;
  v.reserve(n + n / 8);
  // Bernoulli sampling keeps it sorted and unique without a set.
  const double p = std::min(1.0, static_cast<double>(n) / universe);
  std::bernoulli_distribution keep(p);
  for (uint32_t d = 0; d < universe; ++d) {
    if (keep(rng)) v.push_back(d);
  }
  return v;
}

struct EncodedList {
  std::vector<DocId> docs;
  std::string bytes;
};

EncodedList Encode(std::vector<DocId> docs) {
  EncodedList e;
  std::vector<uint32_t> weights(docs.size(), 1);
  EncodePostingList(docs, weights, /*lengths=*/weights, /*score_avgdl=*/1.0, &e.bytes);
  e.docs = std::move(docs);
  return e;
}

// Lists for (ratio, count, universe); built once per benchmark configuration.
const std::vector<EncodedList>& Lists(int ratio, int count, uint32_t universe = kUniverse) {
  static std::map<std::tuple<int, int, uint32_t>, std::vector<EncodedList>> cache;
  auto& lists = cache[{ratio, count, universe}];
  if (lists.empty()) {
    lists.push_back(Encode(RandomList(kLongList / ratio, 1000 + ratio, universe)));
    for (int i = 1; i < count; ++i) {
      // Dense universes: the long lists keep 3/4 of the docids so they differ.
      const size_t len = universe < kUniverse ? universe / 4 * 3 : kLongList;
      lists.push_back(Encode(RandomList(len, 2000 + i, universe)));
    }
  }
  return lists;
}

// ---- uncompressed galloping baseline ----

inline size_t Gallop(const DocId* a, size_t lo, size_t n, DocId target) {
  size_t step = 1, hi = lo;
  while (hi < n && a[hi] < target) {
    lo = hi + 1;
    hi += step;
    step <<= 1;
  }
  hi = std::min(hi, n);
  return static_cast<size_t>(std::lower_bound(a + lo, a + hi, target) - a);
}

uint64_t GallopingCount(const std::vector<const std::vector<DocId>*>& lists) {
  const auto& lead = *lists[0];
  std::vector<size_t> pos(lists.size(), 0);
  uint64_t count = 0;
  for (DocId d : lead) {
    bool all = true;
    for (size_t i = 1; i < lists.size(); ++i) {
      const auto& l = *lists[i];
      pos[i] = Gallop(l.data(), pos[i], l.size(), d);
      if (pos[i] == l.size()) return count;
      if (l[pos[i]] != d) {
        all = false;
        break;
      }
    }
    count += all;
  }
  return count;
}

void BM_AndBaseline(benchmark::State& state) {
  const auto& lists = Lists(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  std::vector<const std::vector<DocId>*> raw;
  for (const auto& l : lists) raw.push_back(&l.docs);
  uint64_t matches = 0;
  for (auto _ : state) benchmark::DoNotOptimize(matches = GallopingCount(raw));
  state.counters["matches"] = static_cast<double>(matches);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * lists[0].docs.size()));
}

void BM_AndCompressed(benchmark::State& state) {
  const auto& lists = Lists(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  std::vector<std::unique_ptr<PostingCursor>> cursors(lists.size());
  std::vector<PostingCursor*> ptrs;
  for (auto& c : cursors) {
    c = std::make_unique<PostingCursor>();
    ptrs.push_back(c.get());
  }
  uint64_t matches = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < lists.size(); ++i) {
      const auto& l = lists[i];
      (void)cursors[i]->Init(reinterpret_cast<const uint8_t*>(l.bytes.data()), l.bytes.size(),
                             static_cast<uint32_t>(l.docs.size()), nullptr, 0);
    }
    benchmark::DoNotOptimize(matches = CountIntersection(ptrs.data(), ptrs.size()));
  }
  state.counters["matches"] = static_cast<double>(matches);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * lists[0].docs.size()));
}

constexpr uint32_t kDenseUniverse = 1u << 20;

template <uint64_t (*Count)(PostingCursor* const*, size_t)>
void BM_AndDense(benchmark::State& state) {
  const auto& lists = Lists(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
                            kDenseUniverse);
  std::vector<std::unique_ptr<PostingCursor>> cursors(lists.size());
  std::vector<PostingCursor*> ptrs;
  for (auto& c : cursors) {
    c = std::make_unique<PostingCursor>();
    ptrs.push_back(c.get());
  }
  uint64_t matches = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < lists.size(); ++i) {
      const auto& l = lists[i];
      (void)cursors[i]->Init(reinterpret_cast<const uint8_t*>(l.bytes.data()), l.bytes.size(),
                             static_cast<uint32_t>(l.docs.size()), nullptr, 0);
    }
    benchmark::DoNotOptimize(matches = Count(ptrs.data(), ptrs.size()));
  }
  state.counters["matches"] = static_cast<double>(matches);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * lists[0].docs.size()));
}

void DenseRatios(benchmark::internal::Benchmark* b) {
  for (int count : {2, 3}) {
    for (int ratio : {1, 2, 4, 8, 16, 32}) b->Args({ratio, count});
  }
  b->ArgNames({"ratio", "lists"});
}

void BM_AndIteratorTree(benchmark::State& state) {
  const auto& lists = Lists(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  uint64_t matches = 0;
  for (auto _ : state) {
    std::vector<std::unique_ptr<DocIterator>> children;
    for (const auto& l : lists) {
      std::vector<std::unique_ptr<PostingCursor>> parts;
      parts.push_back(std::make_unique<PostingCursor>());
      (void)parts[0]->Init(reinterpret_cast<const uint8_t*>(l.bytes.data()), l.bytes.size(),
                           static_cast<uint32_t>(l.docs.size()), nullptr, 0);
      children.push_back(std::make_unique<TermIterator>(std::move(parts), std::span<const DocId>()));
    }
    AndIterator it(std::move(children), {});
    benchmark::DoNotOptimize(matches = CountMatches(&it));
  }
  state.counters["matches"] = static_cast<double>(matches);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * lists[0].docs.size()));
}

void Ratios(benchmark::internal::Benchmark* b) {
  for (int count : {2, 3}) {
    for (int ratio : {1, 10, 100, 10000}) b->Args({ratio, count});
  }
  b->ArgNames({"ratio", "lists"});
}

BENCHMARK(BM_AndBaseline)->Apply(Ratios);
BENCHMARK(BM_AndCompressed)->Apply(Ratios);
BENCHMARK(BM_AndIteratorTree)->Apply(Ratios);
BENCHMARK(BM_AndDense<CountIntersection>)->Apply(DenseRatios);
BENCHMARK(BM_AndDense<LeapfrogCount>)->Apply(DenseRatios);

}  // namespace
}  // namespace dps
