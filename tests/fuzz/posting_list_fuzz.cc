// libFuzzer target for posting lists as a tablet file holds them (skip
// table, block impacts, doc and weight blocks): arbitrary bytes must open
// with an error or iterate, seek, locate blocks and read impacts without a
// crash, an out-of-bounds read or a docid going backwards. Input: df (u16,
// little-endian; 0 is refused by Init) then the list's bytes. The bytes
// are copied with 16 bytes after them, as a list in a file always has (the
// directory and page table follow the last bin). Seeds in
// tests/fuzz/corpus/posting_list_fuzz/ are lists written by
// EncodePostingList (1, 2 and 40 blocks; tests/fuzz/make_seeds.cc).
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "index/posting_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint32_t df = data[0] | uint32_t{data[1]} << 8;
  std::vector<uint8_t> bytes(data + 2, data + size);
  const size_t len = bytes.size();
  bytes.resize(len + 16, 0);
  dps::PostingCursor cursor;
  if (!cursor.Init(bytes.data(), len, df, nullptr, 0).ok()) return 0;
  // Impacts and block lookups first (they read the skip table alone).
  for (size_t b = 0; b < cursor.num_blocks(); ++b) {
    dps::Impact corner;
    if (!cursor.ReadCorner(b, &corner)) break;
    if (corner.tf == 0 || corner.dl == 0) abort();
    (void)cursor.block_score(b);
    (void)cursor.BlockFor(cursor.block_last(b), b);
  }
  // Far seeks, warmed first (PrefetchSeeks, then hints and guesses), with
  // each weight read alone.
  dps::PostingCursor far;
  if (far.Init(bytes.data(), len, df, nullptr, 0).ok() && far.last_doc() != dps::kEndDoc) {
    dps::DocId targets[dps::PostingCursor::kMaxPrefetchTargets];
    const uint64_t step = uint64_t{far.last_doc()} / dps::PostingCursor::kMaxPrefetchTargets + 1;
    for (size_t k = 0; k < dps::PostingCursor::kMaxPrefetchTargets; ++k) {
      targets[k] = static_cast<dps::DocId>(std::min<uint64_t>(k * step, dps::kMaxDocId));
    }
    far.PrefetchSeeks(targets, dps::PostingCursor::kMaxPrefetchTargets);
    dps::DocId at = 0;
    for (dps::DocId t : targets) {
      const dps::DocId d = far.Seek(t);
      if (d < at) abort();  // a cursor never goes backwards
      at = d;
      if (d == dps::kEndDoc) break;
      (void)far.weight_alone();
    }
  }
  dps::PostingCursor walk;
  if (!walk.Init(bytes.data(), len, df, nullptr, 0).ok()) return 0;
  dps::DocId last = 0;
  bool first = true;
  size_t steps = 0;
  for (dps::DocId d = walk.doc(); d != dps::kEndDoc && steps < 100000; ++steps) {
    if (!first && d <= last) abort();  // a cursor never goes backwards
    first = false;
    last = d;
    (void)walk.weight();
    const uint64_t target = uint64_t{d} + 1 + d % 7;  // past the largest docid: the end
    d = steps % 3 == 0 ? walk.Seek(target >= dps::kEndDoc ? dps::kEndDoc : static_cast<dps::DocId>(target))
                       : walk.Next();
  }
  return 0;
}
