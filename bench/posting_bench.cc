// List-level costs: iterating a posting list (docids/s through PostingCursor,
// with and without weights), seek cost at various strides, and the price of
// first-touch page verification (a fresh reader hashing pages on first read)
// against an already-verified reader.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "index/paged_file.h"
#include "index/posting_list.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

struct TestList {
  std::vector<DocId> docs;
  std::string bytes;
};

// A list of `n` docids with mean gap `gap` (geometric), tf mostly 1.
const TestList& List(size_t n, uint32_t gap) {
  static std::map<std::pair<size_t, uint32_t>, TestList> cache;
  TestList& l = cache[{n, gap}];
  if (l.docs.empty()) {
    std::mt19937_64 rng(n * 31 + gap);
    std::geometric_distribution<uint32_t> g(1.0 / gap);
    std::vector<uint32_t> weights;
    DocId d = 0;
    for (size_t i = 0; i < n; ++i) {
      d += 1 + g(rng);
      l.docs.push_back(d);
      weights.push_back(rng() % 8 == 0 ? 2 + static_cast<uint32_t>(rng() % 5) : 1);
    }
    EncodePostingList(l.docs, weights, /*lengths=*/weights, /*score_avgdl=*/1.0, &l.bytes);
  }
  return l;
}

void BM_IterateDocids(benchmark::State& state) {
  const TestList& l = List(1'000'000, static_cast<uint32_t>(state.range(0)));
  PostingCursor c;
  uint64_t sum = 0;
  for (auto _ : state) {
    (void)c.Init(reinterpret_cast<const uint8_t*>(l.bytes.data()), l.bytes.size(),
                 static_cast<uint32_t>(l.docs.size()), nullptr, 0);
    for (DocId d = c.doc(); d != kEndDoc; d = c.Next()) sum += d;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * l.docs.size()));
  state.counters["bits_per_doc"] = 8.0 * static_cast<double>(l.bytes.size()) / static_cast<double>(l.docs.size());
}
BENCHMARK(BM_IterateDocids)->Arg(2)->Arg(16)->Arg(256)->ArgName("mean_gap");

void BM_IterateDocidsAndWeights(benchmark::State& state) {
  const TestList& l = List(1'000'000, static_cast<uint32_t>(state.range(0)));
  PostingCursor c;
  uint64_t sum = 0;
  for (auto _ : state) {
    (void)c.Init(reinterpret_cast<const uint8_t*>(l.bytes.data()), l.bytes.size(),
                 static_cast<uint32_t>(l.docs.size()), nullptr, 0);
    for (DocId d = c.doc(); d != kEndDoc; d = c.Next()) sum += d + c.weight();
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * l.docs.size()));
}
BENCHMARK(BM_IterateDocidsAndWeights)->Arg(16)->ArgName("mean_gap");

// Forward seeks by `stride` docids on a list of mean gap 16: small strides
// stay in the decoded block, large ones skip blocks via the skip table.
void BM_Seek(benchmark::State& state) {
  const TestList& l = List(1'000'000, 16);
  const DocId stride = static_cast<DocId>(state.range(0));
  PostingCursor c;
  uint64_t seeks = 0;
  for (auto _ : state) {
    (void)c.Init(reinterpret_cast<const uint8_t*>(l.bytes.data()), l.bytes.size(),
                 static_cast<uint32_t>(l.docs.size()), nullptr, 0);
    for (DocId t = stride; c.Seek(t) != kEndDoc; t += stride) ++seeks;
  }
  state.SetItemsProcessed(static_cast<int64_t>(seeks));
}
BENCHMARK(BM_Seek)->Arg(32)->Arg(1024)->Arg(65536)->Arg(1 << 22)->ArgName("stride");

// First touch: a new reader verifies every page of a 32 MiB body; warm: the
// same reader again (bitset checks only).
struct VerifyFixture {
  testing::TempDir dir;
  std::string path;
  uint64_t body = 32u << 20;
  VerifyFixture() {
    path = dir.path() + "/pages";
    auto w = PagedFileWriter::Create(path);
    std::string chunk(1 << 20, 'x');
    for (uint64_t i = 0; i < body / chunk.size(); ++i) {
      chunk[i % chunk.size()] = static_cast<char>(i);
      (void)(*w)->Append(chunk);
    }
    (void)(*w)->Finish(0, 0, 1);
  }
};

void BM_VerifyFirstTouch(benchmark::State& state) {
  static VerifyFixture f;
  for (auto _ : state) {
    auto r = PagedFileReader::Open(f.path);
    benchmark::DoNotOptimize((*r)->Verify(0, f.body).ok());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.body));
}
BENCHMARK(BM_VerifyFirstTouch)->Unit(benchmark::kMillisecond);

void BM_VerifyWarm(benchmark::State& state) {
  static VerifyFixture f;
  auto r = PagedFileReader::Open(f.path);
  (void)(*r)->Verify(0, f.body);
  for (auto _ : state) benchmark::DoNotOptimize((*r)->Verify(0, f.body).ok());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.body));
}
BENCHMARK(BM_VerifyWarm);

}  // namespace
}  // namespace dps
