// Analyzer throughput (MB/s of input text, per CPU second) on the sample
// corpora of ../shared/corpora/samples: English (Brown, 79 documents,
// 0.97 MB), whole documents and line by line (8,450 lines of ~115 bytes:
// per-call overhead, as for titles and queries), and multilingual (200
// documents in 7 languages, 0.57 MB) as a whole and per language. Each
// with the ASCII fast path and with every byte through ICU. Documents are
// analyzed one at a time as ingest does (title + " " + text), reusing one
// token vector. Set DPS_CORPORA_SAMPLES to point elsewhere.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ingest/analyzer.h"
#include "tests/ingest/sample_corpus.h"

namespace dps {
namespace {

enum class Split { kDocuments, kLines };

// The inputs of `file`: documents whose id starts with `id_prefix`, whole
// or cut into lines.
const std::vector<std::string>& Inputs(const std::string& file, const std::string& id_prefix,
                                       Split split) {
  static std::map<std::tuple<std::string, std::string, Split>, std::vector<std::string>> cache;
  auto& inputs = cache[{file, id_prefix, split}];
  if (!inputs.empty()) return inputs;
  const std::string dir = testing::SampleCorpusDir();
  if (dir.empty()) return inputs;
  for (auto& d : testing::ReadSampleCorpus(dir + "/" + file)) {
    if (!d.id.starts_with(id_prefix)) continue;
    std::string doc = std::move(d.title);
    doc += ' ';
    doc += d.text;
    if (split == Split::kDocuments) {
      inputs.push_back(std::move(doc));
      continue;
    }
    for (size_t start = 0; start < doc.size();) {
      size_t end = std::min(doc.find('\n', start), doc.size());
      inputs.push_back(doc.substr(start, end - start));
      start = end + 1;
    }
  }
  return inputs;
}

void BM_Analyze(benchmark::State& state, const std::string& file, const std::string& id_prefix,
                Split split, bool fast_path) {
  const auto& docs = Inputs(file, id_prefix, split);
  if (docs.empty()) {
    state.SkipWithError("sample corpus not found (set DPS_CORPORA_SAMPLES)");
    return;
  }
  auto analyzer = Analyzer::Create(AnalyzerOptions{.ascii_fast_path = fast_path});
  if (!analyzer.ok()) {
    state.SkipWithError(analyzer.status().ToString().c_str());
    return;
  }
  std::vector<std::string> tokens;
  AnalyzeStats stats;
  uint64_t bytes = 0, token_count = 0;
  for (auto _ : state) {
    for (const auto& doc : docs) {
      tokens.clear();
      (*analyzer)->Analyze(doc, &tokens, &stats);
      token_count += tokens.size();
      bytes += doc.size();
    }
    benchmark::DoNotOptimize(tokens.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(token_count), benchmark::Counter::kIsRate);
  const double total = static_cast<double>(stats.ascii_fast_path_bytes + stats.icu_path_bytes);
  state.counters["fast_path_share"] =
      total > 0 ? static_cast<double>(stats.ascii_fast_path_bytes) / total : 0;
}

const std::string kBrown = "brown.jsonl";
const std::string kMultilingual = "multilingual.jsonl";

BENCHMARK_CAPTURE(BM_Analyze, English_FastPath, kBrown, "", Split::kDocuments, true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Analyze, English_IcuOnly, kBrown, "", Split::kDocuments, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Analyze, EnglishLines_FastPath, kBrown, "", Split::kLines, true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Analyze, EnglishLines_IcuOnly, kBrown, "", Split::kLines, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Analyze, Multilingual_FastPath, kMultilingual, "", Split::kDocuments, true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Analyze, Multilingual_IcuOnly, kMultilingual, "", Split::kDocuments, false)
    ->Unit(benchmark::kMillisecond);

// Per language of the multilingual sample.
#define DPS_LANGUAGE_BENCHMARKS(lang)                                                     \
  BENCHMARK_CAPTURE(BM_Analyze, Multilingual_##lang##_FastPath, kMultilingual, #lang ":", \
                    Split::kDocuments, true)                                              \
      ->Unit(benchmark::kMillisecond);                                                    \
  BENCHMARK_CAPTURE(BM_Analyze, Multilingual_##lang##_IcuOnly, kMultilingual, #lang ":",  \
                    Split::kDocuments, false)                                             \
      ->Unit(benchmark::kMillisecond)
DPS_LANGUAGE_BENCHMARKS(de);
DPS_LANGUAGE_BENCHMARKS(fr);
DPS_LANGUAGE_BENCHMARKS(ru);
DPS_LANGUAGE_BENCHMARKS(ar);
DPS_LANGUAGE_BENCHMARKS(zh);
DPS_LANGUAGE_BENCHMARKS(ja);
DPS_LANGUAGE_BENCHMARKS(th);

}  // namespace
}  // namespace dps
