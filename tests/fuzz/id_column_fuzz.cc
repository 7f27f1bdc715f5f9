// libFuzzer target for the id column reader (index/id_column.h): a tablet
// file's page checksums stop random damage before it, so this is what
// stands between a crafted or miswritten region and a wrong answer. Input:
// slots - 1 (u16, at most 1023 used) | num_docs (u16) | the region, for
// docids 7 to 7 + slots - 1. Open may refuse it (Corruption); when it
// accepts, every Get must be an id, NotFound or Corruption, ForEach must
// agree with Get on every docid it names, and no id may be empty.
// scripts/fuzz.sh builds and runs it from tests/fuzz/corpus/id_column_fuzz/
// (regions written by IdColumnWriter: decimal frames with and without a
// line, strings frames, gaps).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>

#include "index/id_column.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint16_t slots, num_docs;
  std::memcpy(&slots, data, 2);
  std::memcpy(&num_docs, data + 2, 2);
  const dps::DocId min = 7, max = min + slots % 1024;
  std::string region(reinterpret_cast<const char*>(data) + 4, size - 4);  // its own allocation: ASan sees overreads
  dps::IdColumnReader r;
  dps::Status s = r.Open(region, min, max, num_docs, "fuzz");
  if (!s.ok()) {
    if (!s.IsCorruption()) std::abort();
    return 0;
  }
  std::map<dps::DocId, std::string> got;
  std::string id;
  for (dps::DocId d = min - 1; d <= max + 1; ++d) {
    s = r.Get(d, &id);
    if (s.ok()) {
      if (id.empty() || d < min || d > max) std::abort();
      got.emplace(d, id);
    } else if (!s.IsNotFound() && !s.IsCorruption()) {
      std::abort();
    }
  }
  // A whole scan that succeeds lists exactly what Get found, alike.
  size_t listed = 0;
  bool agree = true;
  s = r.ForEach([&](dps::DocId d, std::string_view each) {
    const auto it = got.find(d);
    if (each.empty()) std::abort();
    agree = agree && it != got.end() && it->second == each;
    ++listed;
  });
  if (!s.ok() && !s.IsCorruption()) std::abort();
  if (s.ok() && (!agree || listed != got.size() || listed != num_docs)) std::abort();
  return 0;
}
