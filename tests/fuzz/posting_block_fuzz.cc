// libFuzzer target for the posting block codec (docs/FORMAT.md "Posting
// blocks", index/posting_codec.h): docid blocks decoded whole and by
// 32-docid part, weight and value blocks decoded whole and read in place
// (ValueBlockView), and SkipBlock. Arbitrary bytes must decode to nullptr
// or to values the writer could have written (docids ascending past prev,
// weights >= 1), without reading past the end; every decoder that accepts
// a block must agree with the others on its values and its end, and the
// SSE2 and scalar unpackers must agree. Round trip: n values built from
// the input encode and decode back exactly, whole and by parts.
// Input: n - 1 (u8, low 7 bits) | prev (u32; 0xFFFFFFFF: no previous
// docid) | the block's bytes. Seeds in tests/fuzz/corpus/posting_block_fuzz/
// are blocks EncodeDocBlock, EncodeWeightBlock and EncodeValueBlock wrote
// (full and partial, with and without exceptions), made by
// tests/fuzz/make_seeds.cc.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "index/posting_codec.h"
#include "index/posting_codec_internal.h"

namespace {

using dps::kBlockPartSize;
using dps::kBlockSize;

void CheckDocs(const uint32_t* docs, size_t n, uint32_t prev) {
  if (prev != UINT32_MAX && docs[0] <= prev) abort();
  for (size_t i = 1; i < n; ++i) {
    if (docs[i] <= docs[i - 1]) abort();
  }
}

void DecodeDocs(const uint8_t* p, const uint8_t* end, size_t n, uint32_t prev) {
  uint32_t docs[kBlockSize], scalar[kBlockSize];
  const uint8_t* after = dps::DecodeDocBlock(p, end, n, prev, docs);
  const uint8_t* after_scalar =
      dps::internal::DecodeDocBlockOn(dps::internal::CodecPath::kScalar, p, end, n, prev, scalar);
  if (after != after_scalar) abort();
  const uint8_t* skipped = dps::SkipBlock(p, end, n);
  if (after != nullptr) {
    if (after > end || skipped != after) abort();
    CheckDocs(docs, n, prev);
    if (std::memcmp(docs, scalar, n * sizeof(uint32_t)) != 0) abort();
  }
  if (n != kBlockSize) return;
  // Each part from the docid before it: the whole decode's when it
  // succeeded (then the part must agree), else `prev` (only no crash).
  for (size_t part = 0; part < dps::kBlockParts; ++part) {
    const uint32_t before = part == 0 || after == nullptr ? prev : docs[part * kBlockPartSize - 1];
    uint32_t got[kBlockPartSize];
    const uint8_t* part_end = dps::DecodeDocBlockPart(p, end, part, before, got);
    if (part_end != nullptr) {
      if (part_end > end) abort();
      CheckDocs(got, kBlockPartSize, before);
    }
    if (after != nullptr &&
        (part_end != after || std::memcmp(got, docs + part * kBlockPartSize, sizeof got) != 0)) {
      abort();
    }
  }
}

void DecodeWeightsAndValues(const uint8_t* p, const uint8_t* end, size_t n) {
  uint32_t weights[kBlockSize], scalar[kBlockSize], values[kBlockSize];
  const uint8_t* w_end = dps::DecodeWeightBlock(p, end, n, weights);
  if (w_end != dps::internal::DecodeWeightBlockOn(dps::internal::CodecPath::kScalar, p, end, n, scalar)) abort();
  const uint8_t* v_end = dps::DecodeValueBlock(p, end, n, values);
  if (w_end != nullptr) {
    if (w_end > end || v_end != w_end || dps::SkipBlock(p, end, n) != w_end) abort();
    for (size_t i = 0; i < n; ++i) {
      if (weights[i] == 0 || weights[i] != scalar[i] || values[i] != weights[i] - 1) abort();
    }
  }
  if (v_end != nullptr) {
    // A value block differs from a weight block only in allowing 2^32 - 1.
    bool widest = false;
    for (size_t i = 0; i < n; ++i) widest = widest || values[i] == UINT32_MAX;
    if (v_end > end || (!widest && w_end == nullptr)) abort();
  }
  dps::ValueBlockView view;
  if (view.Open(p, end, n)) {
    if (view.end() > end || view.end() != dps::SkipBlock(p, end, n)) abort();
    // Sound exceptions are exactly what the whole decode accepts.
    if (view.ExceptionsAreSound() != (v_end != nullptr)) abort();
    for (size_t i = 0; i < n; ++i) {
      const uint32_t v = view.At(i);  // exceptions out of order: any value, no overread
      if (v_end != nullptr && v != values[i]) abort();
    }
  } else if (v_end != nullptr) {
    abort();  // the view refuses only what the decoder refuses
  }
}

// n values from the input: mostly small, some wide, so blocks take every
// width and some exceptions.
std::vector<uint32_t> ValuesFrom(const uint8_t* data, size_t size, size_t n) {
  std::vector<uint32_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t b = size == 0 ? 0 : data[i % size];
    const uint8_t c = size == 0 ? 0 : data[(i * 7 + 3) % size];
    v[i] = (b & 0xe0) == 0xe0 ? (uint32_t{c} << (b & 24)) | b : b & 0x0f;
  }
  return v;
}

void RoundTrip(const uint8_t* data, size_t size, size_t n, uint32_t prev) {
  std::vector<uint32_t> values = ValuesFrom(data, size, n);
  // Docids: prev + 1 + gap each, stopping short of the docid space's end.
  std::vector<uint32_t> docs(n);
  uint64_t d = prev == UINT32_MAX ? 0 : uint64_t{prev} + 1;
  for (size_t i = 0; i < n; ++i) {
    d += values[i] % 4096;
    docs[i] = static_cast<uint32_t>(d);
    ++d;
  }
  if (d > UINT32_MAX) return;  // past the largest docid (2^32 - 2)
  std::string block;
  dps::EncodeDocBlock(docs.data(), n, prev, &block);
  const auto* p = reinterpret_cast<const uint8_t*>(block.data());
  const uint8_t* end = p + block.size();
  uint32_t back[kBlockSize];
  if (dps::DecodeDocBlock(p, end, n, prev, back) != end || std::memcmp(back, docs.data(), n * 4) != 0) abort();
  DecodeDocs(p, end, n, prev);  // the parts agree

  std::vector<uint32_t> weights(values);
  for (uint32_t& w : weights) ++w;  // values stay below 2^32 - 1
  block.clear();
  dps::EncodeWeightBlock(weights.data(), n, &block);
  p = reinterpret_cast<const uint8_t*>(block.data());
  end = p + block.size();
  if (dps::DecodeWeightBlock(p, end, n, back) != end || std::memcmp(back, weights.data(), n * 4) != 0) abort();

  values[0] = size > 0 && data[0] == 0xff ? UINT32_MAX : values[0];  // the widest value too
  block.clear();
  dps::EncodeValueBlock(values.data(), n, &block);
  p = reinterpret_cast<const uint8_t*>(block.data());
  end = p + block.size();
  if (dps::DecodeValueBlock(p, end, n, back) != end || std::memcmp(back, values.data(), n * 4) != 0) abort();
  DecodeWeightsAndValues(p, end, n);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  const size_t n = (data[0] & 127) + 1;
  uint32_t prev;
  std::memcpy(&prev, data + 1, 4);
  const std::vector<uint8_t> bytes(data + 5, data + size);  // its own allocation: ASan sees overreads
  const uint8_t* p = bytes.data();
  DecodeDocs(p, p + bytes.size(), n, prev);
  DecodeWeightsAndValues(p, p + bytes.size(), n);
  RoundTrip(data + 5, size - 5, n, prev);
  return 0;
}
