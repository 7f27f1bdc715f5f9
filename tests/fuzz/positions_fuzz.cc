// libFuzzer target for word positions (docs/FORMAT.md "Positions",
// "Inline positions"): arbitrary bytes as a positions list must open with
// an error or be read posting by posting and checked whole without a crash,
// an out-of-bounds read or positions that do not ascend; arbitrary bytes
// as inline positions likewise. And a round trip: a list built from the
// input (weights and gaps) encodes and reads back exactly, in both forms.
// Input: df (u16, little-endian), then the bytes. Seeds in
// tests/fuzz/corpus/positions_fuzz/ are lists EncodePositionList wrote
// (one block, tables of several doc and value blocks).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "index/positions.h"

namespace {

// Weights for df postings that sum to `values` (each >= 1), spread evenly.
std::vector<uint32_t> WeightsFor(uint64_t df, uint64_t values) {
  std::vector<uint32_t> w(df, static_cast<uint32_t>(values / df));
  for (uint64_t i = 0; i < values % df; ++i) ++w[i];
  return w;
}

void CheckAscending(const uint32_t* p, uint32_t n) {
  for (uint32_t i = 1; i < n; ++i) {
    if (p[i] <= p[i - 1]) abort();
  }
}

void ReadList(const std::string& bytes, uint64_t df) {
  dps::PositionReader reader;
  if (!reader.Open(bytes, df, "fuzz").ok()) return;
  if (reader.values() > 1000000) return;  // a huge claim: Open accepted it, reading would be slow
  const std::vector<uint32_t> weights = WeightsFor(df, reader.values());
  std::vector<uint32_t> out;
  uint64_t in_block = 0;
  for (size_t j = 0; j < weights.size(); ++j) {
    if (j % dps::kBlockSize == 0) in_block = 0;
    out.resize(weights[j]);
    if (reader.Get(j / dps::kBlockSize, in_block, weights[j], out.data()).ok()) {
      CheckAscending(out.data(), weights[j]);
    }
    in_block += weights[j];
  }
  // Every other posting in one batch (GetMany, which reads sparse blocks
  // in place): an error or ascending positions, never a crash.
  std::vector<uint32_t> blocks, tfs;
  std::vector<uint64_t> ins;
  uint64_t total = 0;
  in_block = 0;
  for (size_t j = 0; j < weights.size(); ++j) {
    if (j % dps::kBlockSize == 0) in_block = 0;
    if (j % 2 == 0) {
      blocks.push_back(static_cast<uint32_t>(j / dps::kBlockSize));
      ins.push_back(in_block);
      tfs.push_back(weights[j]);
      total += weights[j];
    }
    in_block += weights[j];
  }
  out.resize(total);
  dps::PositionReader batch;
  if (batch.Open(bytes, df, "fuzz").ok() && batch.GetMany(blocks.data(), ins.data(), tfs.data(), blocks.size(), out.data()).ok()) {
    size_t at = 0;
    for (uint32_t tf : tfs) {
      CheckAscending(out.data() + at, tf);
      at += tf;
    }
  }
  const uint8_t* end = nullptr;
  (void)reader.CheckWhole(weights, &end);
}

void RoundTrip(const uint8_t* data, size_t size) {
  // Each input byte: a posting's weight (low 3 bits + 1) and its gaps.
  std::vector<uint32_t> weights, positions;
  for (size_t i = 0; i < size; ++i) {
    const uint32_t tf = 1 + (data[i] & 7);
    uint32_t p = data[i] >> 3;
    weights.push_back(tf);
    for (uint32_t k = 0; k < tf; ++k) {
      positions.push_back(p);
      p += 1 + (data[(i + k) % size] & 31) * (k + 1);
    }
  }
  if (weights.empty()) return;
  std::string list, inline_form;
  dps::EncodePositionList(weights, positions, &list);
  dps::PositionReader reader;
  if (!reader.Open(list, weights.size(), "fuzz").ok()) abort();
  std::vector<uint32_t> back(positions.size());
  uint64_t at = 0, in_block = 0;
  for (size_t j = 0; j < weights.size(); ++j) {
    if (j % dps::kBlockSize == 0) in_block = 0;
    if (!reader.Get(j / dps::kBlockSize, in_block, weights[j], back.data() + at).ok()) abort();
    at += weights[j];
    in_block += weights[j];
  }
  if (back != positions) abort();
  // The same list in batches of every third posting (GetMany) reads the
  // same positions.
  for (size_t phase = 0; phase < 3; ++phase) {
    std::vector<uint32_t> blocks, tfs, want;
    std::vector<uint64_t> ins;
    uint64_t from = 0;
    in_block = 0;
    for (size_t j = 0; j < weights.size(); ++j) {
      if (j % dps::kBlockSize == 0) in_block = 0;
      if (j % 3 == phase) {
        blocks.push_back(static_cast<uint32_t>(j / dps::kBlockSize));
        ins.push_back(in_block);
        tfs.push_back(weights[j]);
        want.insert(want.end(), positions.begin() + static_cast<ptrdiff_t>(from),
                    positions.begin() + static_cast<ptrdiff_t>(from + weights[j]));
      }
      from += weights[j];
      in_block += weights[j];
    }
    std::vector<uint32_t> got(want.size());
    dps::PositionReader batch;
    if (!batch.Open(list, weights.size(), "fuzz").ok() ||
        !batch.GetMany(blocks.data(), ins.data(), tfs.data(), blocks.size(), got.data()).ok() || got != want) {
      abort();
    }
  }
  const uint8_t* end = nullptr;
  if (!reader.CheckWhole(weights, &end).ok() || end != reinterpret_cast<const uint8_t*>(list.data()) + list.size()) {
    abort();
  }
  dps::AppendInlinePositions(weights, positions, &inline_form);
  std::vector<uint32_t> parsed;
  const auto* p = reinterpret_cast<const uint8_t*>(inline_form.data());
  if (dps::ParseInlinePositions(p, p + inline_form.size(), weights, &parsed) != p + inline_form.size() ||
      parsed != positions) {
    abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint64_t df = data[0] | uint64_t{data[1]} << 8;
  const std::string bytes(reinterpret_cast<const char*>(data + 2), size - 2);
  if (df > 0) ReadList(bytes, df);
  // The same bytes as inline positions of df % 64 + 1 postings.
  std::vector<uint32_t> parsed;
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const std::vector<uint32_t> weights = WeightsFor(df % 64 + 1, df % 64 + 1 + bytes.size() % 9);
  if (dps::ParseInlinePositions(p, p + bytes.size(), weights, &parsed) != nullptr) {
    size_t at = 0;
    for (uint32_t tf : weights) {
      CheckAscending(parsed.data() + at, tf);
      at += tf;
    }
  }
  RoundTrip(data + 2, std::min<size_t>(size - 2, 600));
  return 0;
}
