// libFuzzer target for the decompressors (ingest/decompress.h): gzip
// (zlib) and zstd streams read through NewDecompressor in reads of varying
// size. Arbitrary bytes must decompress or fail with InvalidArgument,
// never crash, read out of bounds or loop. Round trip: the input
// compressed by zlib (as gzip) or zstd, in one member or frame and in two
// concatenated ones, decompresses to exactly the input. Input: flags (u8;
// bit 0: zstd instead of gzip; bits 1-7: the read size - 1) | the bytes.
// Seeds in tests/fuzz/corpus/decompress_fuzz/ are gzip and zstd streams
// of the golden corpus (one and two members/frames, and an empty one) and
// plain bytes, made by tests/fuzz/make_seeds.cc.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ingest/byte_source.h"
#include "ingest/decompress.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

// Reads the whole decompressed stream; false on an error.
bool Inflate(dps::Compression c, std::string_view compressed, size_t read_size, std::string* out) {
  auto source = dps::NewDecompressor(c, dps::NewMemorySource(compressed, "fuzz"));
  std::string buf(read_size, '\0');
  for (;;) {
    auto n = source->Read(buf.data(), buf.size());
    if (!n.ok()) {
      if (!n.status().IsInvalidArgument()) abort();
      return false;
    }
    if (n.value() == 0) return true;
    if (n.value() > buf.size()) abort();
    out->append(buf.data(), n.value());
    if (out->size() > (size_t{16} << 20)) return false;  // a stream may expand a thousandfold: enough
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const dps::Compression c = (data[0] & 1) ? dps::Compression::kZstd : dps::Compression::kGzip;
  const size_t read_size = 1 + (data[0] >> 1);
  const std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string out;
  (void)Inflate(c, input, read_size, &out);
  auto compress = [c](std::string_view in) {
    return c == dps::Compression::kZstd ? dps::fuzz::Zstd(in, 1) : dps::fuzz::Gzip(in, 1);
  };
  out.clear();
  if (!Inflate(c, compress(input), read_size, &out) || out != input) abort();
  const std::string_view half(input.data(), input.size() / 2);
  out.clear();
  if (!Inflate(c, compress(half) + compress(std::string_view(input).substr(half.size())), read_size, &out) ||
      out != input) {
    abort();
  }
  return 0;
}
