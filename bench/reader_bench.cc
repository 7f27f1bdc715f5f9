// Input reader throughput in MB/s of input: JSONL on a generated corpus
// (plain, gzip, zstd), the lines format on the same bytes, and JSONL on the
// GCIDE dictionary corpus when $DPS_CORPORA (default /work/corpora) holds
// gcide.jsonl. Documents are pulled in NextBatch batches of 4 MiB, as the
// ingest pipeline's input stage does. Fixed seed; the generated files live
// in $TMPDIR (default /dev/shm or /tmp) for the run and are then removed.
#include <benchmark/benchmark.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ingest/document_reader.h"

namespace dps {
namespace {

constexpr size_t kCorpusBytes = 64u << 20;
constexpr size_t kBatchBytes = 4u << 20;

// A JSONL corpus shaped like the test corpora: ~1 KB of text per document
// with newlines and quotes escaped, some non-ASCII words, numeric and string
// ids, titles, and an ignored metadata field.
std::string GenerateCorpus(size_t bytes) {
  std::mt19937_64 rng(20240601);
  static const char* kWords[] = {"the",
                                 "of",
                                 "and",
                                 "search",
                                 "engine",
                                 "index",
                                 "posting",
                                 "document",
                                 "partition",
                                 "accumulo",
                                 "tablet",
                                 "query",
                                 "caf\\u00e9",
                                 "na\xC3\xAFve",
                                 "\xE6\x97\xA5\xE6\x9C\xAC",
                                 "\\\"quoted\\\"",
                                 "straggler",
                                 "latency",
                                 "intersection"};
  std::uniform_int_distribution<size_t> word(0, std::size(kWords) - 1);
  std::uniform_int_distribution<int> len(50, 300);
  std::string out;
  out.reserve(bytes + 4096);
  for (uint64_t id = 0; out.size() < bytes; ++id) {
    out +=
        id % 2 ? "{\"id\": " + std::to_string(id) : "{\"id\": \"doc-" + std::to_string(id) + "\"";
    out += ", \"title\": \"";
    out += kWords[word(rng)];
    out += "\", \"meta\": {\"lang\": \"en\", \"tags\": [1, 2, 3]}, \"text\": \"";
    for (int w = len(rng); w > 0; --w) {
      out += kWords[word(rng)];
      out += w % 12 == 0 ? "\\n" : " ";
    }
    out += "\"}\n";
  }
  return out;
}

std::string TempRoot() {
  if (const char* t = std::getenv("TMPDIR")) return t;
  return std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
}

std::string Gzip(const std::string& data) {
  uLongf size = compressBound(static_cast<uLong>(data.size())) + 64;
  std::string out(size, '\0');
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string Zstd(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3));
  return out;
}

// The generated inputs, written once per process.
class Corpus {
 public:
  static const Corpus& Get() {
    static const Corpus corpus;
    return corpus;
  }
  ~Corpus() { std::filesystem::remove_all(dir_); }

  std::string path(const char* suffix) const { return dir_ + "/corpus.jsonl" + suffix; }
  uint64_t plain_bytes() const { return plain_bytes_; }

 private:
  Corpus() {
    std::string tmpl = TempRoot() + "/dpsearch-bench-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) std::abort();
    dir_ = tmpl;
    const std::string plain = GenerateCorpus(kCorpusBytes);
    plain_bytes_ = plain.size();
    std::ofstream(path(""), std::ios::binary) << plain;
    std::ofstream(path(".gz"), std::ios::binary) << Gzip(plain);
    std::ofstream(path(".zst"), std::ios::binary) << Zstd(plain);
  }
  std::string dir_;
  uint64_t plain_bytes_ = 0;
};

// Reads `input` completely once per iteration; reports input MB/s of the
// uncompressed bytes (`bytes`) and documents per second.
void ReadAll(benchmark::State& state, const std::string& input, InputFormat format,
             uint64_t bytes) {
  ReaderOptions options;
  options.format = format;
  std::vector<RawDocument> batch;
  uint64_t docs = 0;
  for (auto _ : state) {
    auto reader = OpenReader(input, options);
    if (!reader.ok()) {
      state.SkipWithError(reader.status().ToString().c_str());
      return;
    }
    docs = 0;
    for (;;) {
      auto n = (*reader)->NextBatch(&batch, kBatchBytes);
      if (!n.ok()) {
        state.SkipWithError(n.status().ToString().c_str());
        return;
      }
      if (*n == 0) break;
      docs += *n;
      benchmark::DoNotOptimize(batch.data());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * docs));
  state.counters["docs"] = static_cast<double>(docs);
}

void BM_JsonlGenerated(benchmark::State& state) {
  const Corpus& c = Corpus::Get();
  ReadAll(state, c.path(""), InputFormat::kJsonl, c.plain_bytes());
}

void BM_JsonlGeneratedGzip(benchmark::State& state) {
  const Corpus& c = Corpus::Get();
  ReadAll(state, c.path(".gz"), InputFormat::kJsonl, c.plain_bytes());
}

void BM_JsonlGeneratedZstd(benchmark::State& state) {
  const Corpus& c = Corpus::Get();
  ReadAll(state, c.path(".zst"), InputFormat::kJsonl, c.plain_bytes());
}

void BM_LinesGenerated(benchmark::State& state) {
  const Corpus& c = Corpus::Get();
  ReadAll(state, c.path(""), InputFormat::kLines, c.plain_bytes());
}

void BM_JsonlGcide(benchmark::State& state) {
  const char* dir = std::getenv("DPS_CORPORA");
  const std::string path = std::string(dir ? dir : "/work/corpora") + "/gcide.jsonl";
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    state.SkipWithError((path + " not present; set DPS_CORPORA").c_str());
    return;
  }
  ReadAll(state, path, InputFormat::kJsonl, size);
}

BENCHMARK(BM_JsonlGenerated)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JsonlGeneratedGzip)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JsonlGeneratedZstd)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LinesGenerated)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JsonlGcide)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dps
