// libFuzzer target for the MANIFEST (docs/FORMAT.md "MANIFEST",
// index/manifest.h): Manifest::Decode of arbitrary text must give a
// Corruption (Unsupported for an older version, "Compatibility") or a
// manifest whose tablets cover [0, bins) contiguously in
// ascending order, each bin's TabletOf its range. Round trip: a decoded
// manifest encodes to text that decodes again and encodes the same
// (decode(encode(m)) == m). Input: flags (u8; bit 0: the target appends
// the right `checksum` line, so the fuzzer reaches the lines before it)
// | the text. Seeds in tests/fuzz/corpus/manifest_fuzz/ are MANIFESTs
// Manifest::Encode wrote (the golden index's, and others with fields,
// analyzers and empty tablets), without their checksum line and flag 1,
// or whole with flag 0 (tests/fuzz/make_seeds.cc).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/checksum.h"
#include "index/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    char line[32];
    std::snprintf(line, sizeof line, "checksum %016llx\n",
                  static_cast<unsigned long long>(dps::Checksum64(text)));
    text += line;
  }
  auto m = dps::Manifest::Decode(text, "MANIFEST");
  if (!m.ok()) {
    if (!m.status().IsCorruption() && m.status().code() != dps::Status::Code::kUnsupported) abort();
    return 0;
  }
  const dps::Manifest& got = m.value();
  if (got.bins == 0 || got.tablets.empty() || got.tablets.front().first_bin != 0 ||
      got.tablets.back().last_bin != got.bins - 1) {
    abort();
  }
  for (size_t t = 0; t < got.tablets.size(); ++t) {
    const dps::TabletEntry& e = got.tablets[t];
    if (e.first_bin > e.last_bin || (t > 0 && e.first_bin != got.tablets[t - 1].last_bin + 1)) abort();
    if (got.TabletOf(e.first_bin) != t || got.TabletOf(e.last_bin) != t) abort();
  }
  const std::string encoded = got.Encode();
  auto again = dps::Manifest::Decode(encoded, "MANIFEST");
  if (!again.ok() || again.value().Encode() != encoded) abort();
  return 0;
}
