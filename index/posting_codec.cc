#include "index/posting_codec.h"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/coding.h"
#include "index/posting_block_layout.h"
#include "index/posting_codec_internal.h"

namespace dps {

using internal::CodecPath;

using namespace block_layout;

namespace {

#if defined(__SSE2__)
constexpr CodecPath kDefaultPath = CodecPath::kSse2;
#else
constexpr CodecPath kDefaultPath = CodecPath::kScalar;
#endif

// -------------------------------------------------------- scalar unpacking

// Eight values of kBits bits fill exactly kBits bytes, so inside such a
// group each value's byte offset and shift are constants: a load, a shift
// and a mask per value. Unpacks whole groups while their last 8-byte load
// stays inside the payload; returns how many values it unpacked.
template <int kBits>
size_t UnpackHorizontalGroups(const uint8_t* in, size_t n, size_t size, uint32_t* out) {
  constexpr uint64_t kMask = LowMask(kBits);
  constexpr size_t kLastLoadEnd = (7 * kBits) / 8 + 8;
  size_t i = 0;
  for (size_t at = 0; i + 8 <= n && at + kLastLoadEnd <= size; i += 8, at += kBits) {
    [&]<size_t... k>(std::index_sequence<k...>) {
      ((out[i + k] = static_cast<uint32_t>((DecodeFixed64(in + at + (k * kBits) / 8) >>
                                            ((k * kBits) % 8)) & kMask)),
       ...);
    }(std::make_index_sequence<8>{});
  }
  return i;
}
template <int... kBits>
constexpr auto MakeGroupUnpackers(std::integer_sequence<int, kBits...>) {
  return std::array<size_t (*)(const uint8_t*, size_t, size_t, uint32_t*), sizeof...(kBits)>{
      &UnpackHorizontalGroups<kBits>...};
}
constexpr auto kGroupUnpackers = MakeGroupUnpackers(std::make_integer_sequence<int, kMaxBits + 1>{});

// REQUIRES: `in` holds PayloadSize(n, bits) bytes; nothing after is read.
void UnpackHorizontal(const uint8_t* in, size_t n, int bits, uint32_t* out) {
  const size_t size = PayloadSize(n, bits);
  const uint64_t mask = LowMask(bits);
  size_t i = kGroupUnpackers[bits](in, n, size, out);
  // A value starts at bit (i*bits)%8 of its first byte and ends within 5
  // bytes, so one 8-byte load covers it while 8 bytes remain.
  for (; i < n && (i * bits) / 8 + 8 <= size; ++i) {
    const size_t bit = i * bits;
    out[i] = static_cast<uint32_t>((DecodeFixed64(in + bit / 8) >> (bit % 8)) & mask);
  }
  if (i == n) return;
  if (bits == 0) {
    std::fill(out + i, out + n, 0u);
    return;
  }
  // The last values (all of a short payload, the common case of a small
  // list) lie in the fewer than 8 bytes left from value i's first byte:
  // gather those into one word (one load ending at the payload's end when
  // it is that long) and shift each value out of it.
  const size_t from = (i * bits) / 8;
  const size_t rem = size - from;  // 1..7: value i starts inside the payload
  uint64_t word = 0;
  if (size >= 8) {
    word = DecodeFixed64(in + size - 8) >> (8 * (8 - rem));
  } else {
    for (size_t k = 0; k < rem; ++k) word |= uint64_t{in[from + k]} << (8 * k);
  }
  for (; i < n; ++i) out[i] = static_cast<uint32_t>((word >> (i * bits - 8 * from)) & mask);
}

// Reference unpacker for the vertical layout, and the only one without SSE2.
void UnpackVerticalScalar(const uint8_t* in, int bits, uint32_t* out) {
  const uint64_t mask = LowMask(bits);
  for (size_t lane = 0; lane < kLanes; ++lane) {
    uint64_t acc = 0;
    int fill = 0;
    size_t k = 0;
    for (size_t i = lane; i < kBlockSize; i += kLanes) {
      if (fill < bits) {
        acc |= uint64_t{DecodeFixed32(in + 4 * (kLanes * k++ + lane))} << fill;
        fill += 32;
      }
      out[i] = static_cast<uint32_t>(acc & mask);
      acc >>= bits;
      fill -= bits;
    }
  }
}

// Gaps to docids in place: d[i] = d[i-1] + g[i] + 1, d[-1] = prev. With
// prev == UINT32_MAX the wraparound makes d[0] = g[0], as the format wants.
void GapsToDocs(uint32_t* v, size_t n, uint32_t prev) {
  for (size_t i = 0; i < n; ++i) v[i] = prev += v[i] + 1;
}

// ---------------------------------------------------------- SSE2 unpacking
#if defined(__SSE2__)

// One output vector (values 4j..4j+3) of a full block of kBits-bit values.
// Fully unrolled by recursion so every shift is an immediate and every input
// word is loaded exactly once; `w` carries the current word between steps.
// `sink(v)` consumes the vectors in order.
// Steps run for rows kJ .. kEnd-1 (a whole block: 0..32; a half: 16 rows).
template <int kBits, int kJ, int kEnd = 32, typename Sink>
[[gnu::always_inline]] inline void UnpackStep(const __m128i* in, __m128i w, __m128i mask,
                                              Sink& sink) {
  constexpr int kWord = kJ * kBits / 32;
  constexpr int kShift = kJ * kBits % 32;
  if constexpr (kJ > 0 && kShift == 0) w = _mm_loadu_si128(in + kWord);
  __m128i v = kShift == 0 ? w : _mm_srli_epi32(w, kShift);
  if constexpr (kShift + kBits > 32) {  // the value straddles two words
    w = _mm_loadu_si128(in + kWord + 1);
    v = _mm_or_si128(v, _mm_slli_epi32(w, 32 - kShift));
  }
  if constexpr (kShift + kBits != 32) v = _mm_and_si128(v, mask);  // else srli cleared it
  sink(v);
  if constexpr (kJ + 1 < kEnd) UnpackStep<kBits, kJ + 1, kEnd>(in, w, mask, sink);
}

template <int kBits, typename Sink>
[[gnu::always_inline]] inline void UnpackVerticalSse2(const uint8_t* in, Sink& sink) {
  const __m128i* words = reinterpret_cast<const __m128i*>(in);
  if constexpr (kBits == 0) {
    for (int j = 0; j < 32; ++j) sink(_mm_setzero_si128());
  } else if constexpr (kBits == 32) {
    for (int j = 0; j < 32; ++j) sink(_mm_loadu_si128(words + j));
  } else {
    const __m128i mask = _mm_set1_epi32(static_cast<int>(LowMask(kBits)));
    UnpackStep<kBits, 0>(words, _mm_loadu_si128(words), mask, sink);
  }
}

// Gaps to docids fused into the unpack (Lemire & Boytsov's "integrated
// differential coding"): add 1, prefix-sum within the register by two shifted
// adds, then add the previous vector's last docid broadcast to all lanes.
struct GapsToDocsSink {
  GapsToDocsSink(uint32_t* docs, uint32_t prev)
      : out(reinterpret_cast<__m128i*>(docs)), carry(_mm_set1_epi32(static_cast<int>(prev))) {}
  [[gnu::always_inline]] void operator()(__m128i v) {
    v = _mm_add_epi32(v, one);
    v = _mm_add_epi32(v, _mm_slli_si128(v, 4));
    v = _mm_add_epi32(v, _mm_slli_si128(v, 8));
    v = _mm_add_epi32(v, carry);
    _mm_storeu_si128(out++, v);
    carry = _mm_shuffle_epi32(v, 0xff);
  }
  __m128i* out;
  __m128i carry;
  const __m128i one = _mm_set1_epi32(1);
};

// GapsToDocs four values at a time (partial blocks, unpacked horizontally).
void GapsToDocsSse2(uint32_t* v, size_t n, uint32_t prev) {
  const size_t whole = n / 4 * 4;
  GapsToDocsSink sink(v, prev);  // stores each vector where it was loaded from
  for (size_t i = 0; i < whole; i += 4) sink(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v + i)));
  GapsToDocs(v + whole, n - whole, whole > 0 ? v[whole - 1] : prev);
}

template <int kBits>
void DecodeFullDocsSse2(const uint8_t* in, uint32_t prev, uint32_t* docs) {
  GapsToDocsSink sink(docs, prev);
  UnpackVerticalSse2<kBits>(in, sink);
}

// Rows 8*kPart .. 8*kPart+7 only (docids 32*kPart .. 32*kPart+31), for
// seeks: `prev` is the docid before the part, which the skip table holds.
template <int kBits, int kPart>
void DecodePartDocsSse2(const uint8_t* in, uint32_t prev, uint32_t* docs) {
  GapsToDocsSink sink(docs, prev);
  const __m128i* words = reinterpret_cast<const __m128i*>(in);
  constexpr int kFirst = 8 * kPart;
  if constexpr (kBits == 0) {
    for (int j = 0; j < 8; ++j) sink(_mm_setzero_si128());
  } else if constexpr (kBits == 32) {
    for (int j = 0; j < 8; ++j) sink(_mm_loadu_si128(words + kFirst + j));
  } else {
    const __m128i mask = _mm_set1_epi32(static_cast<int>(LowMask(kBits)));
    UnpackStep<kBits, kFirst, kFirst + 8>(words, _mm_loadu_si128(words + kFirst * kBits / 32),
                                           mask, sink);
  }
}

template <int kBits>
void DecodeFullPlainSse2(const uint8_t* in, uint32_t* values) {
  struct {
    __m128i* out;
    [[gnu::always_inline]] void operator()(__m128i v) { _mm_storeu_si128(out++, v); }
  } sink{reinterpret_cast<__m128i*>(values)};
  UnpackVerticalSse2<kBits>(in, sink);
}

template <int kBits>
void DecodeFullWeightsSse2(const uint8_t* in, uint32_t* weights) {
  struct {
    __m128i* out;
    const __m128i one = _mm_set1_epi32(1);
    [[gnu::always_inline]] void operator()(__m128i v) {
      _mm_storeu_si128(out++, _mm_add_epi32(v, one));
    }
  } sink{reinterpret_cast<__m128i*>(weights)};
  UnpackVerticalSse2<kBits>(in, sink);
}

// One instantiation per width, indexed by the header byte.
template <int... kBits>
constexpr auto MakeDocDecoders(std::integer_sequence<int, kBits...>) {
  return std::array<void (*)(const uint8_t*, uint32_t, uint32_t*), sizeof...(kBits)>{
      &DecodeFullDocsSse2<kBits>...};
}
template <int... kBits>
constexpr auto MakeWeightDecoders(std::integer_sequence<int, kBits...>) {
  return std::array<void (*)(const uint8_t*, uint32_t*), sizeof...(kBits)>{
      &DecodeFullWeightsSse2<kBits>...};
}
constexpr auto kFullDocDecoders = MakeDocDecoders(std::make_integer_sequence<int, kMaxBits + 1>{});
template <int kPart, int... kBits>
constexpr auto MakePartDecoders(std::integer_sequence<int, kBits...>) {
  return std::array<void (*)(const uint8_t*, uint32_t, uint32_t*), sizeof...(kBits)>{
      &DecodePartDocsSse2<kBits, kPart>...};
}
using PartDecoders = std::array<void (*)(const uint8_t*, uint32_t, uint32_t*), kMaxBits + 1>;
constexpr std::array<PartDecoders, 4> kPartDocDecoders = {
    MakePartDecoders<0>(std::make_integer_sequence<int, kMaxBits + 1>{}),
    MakePartDecoders<1>(std::make_integer_sequence<int, kMaxBits + 1>{}),
    MakePartDecoders<2>(std::make_integer_sequence<int, kMaxBits + 1>{}),
    MakePartDecoders<3>(std::make_integer_sequence<int, kMaxBits + 1>{})};
constexpr auto kFullWeightDecoders =
    MakeWeightDecoders(std::make_integer_sequence<int, kMaxBits + 1>{});
template <int... kBits>
constexpr auto MakePlainDecoders(std::integer_sequence<int, kBits...>) {
  return std::array<void (*)(const uint8_t*, uint32_t*), sizeof...(kBits)>{
      &DecodeFullPlainSse2<kBits>...};
}
constexpr auto kFullPlainDecoders =
    MakePlainDecoders(std::make_integer_sequence<int, kMaxBits + 1>{});

#endif  // __SSE2__

// ---------------------------------------------------------------- decoding

// Partial blocks end in a byte whose bits above the stream are zero; anything
// else is corruption (and keeps one block one byte string). Also right for
// the exception highs, a horizontal stream of up to 128 values: at n = 128
// every stream ends on a byte boundary.
bool PaddingIsZero(const uint8_t* in, size_t n, int bits) {
  const size_t used = (n * bits) % 8;
  return used == 0 || (in[PayloadSize(n, bits) - 1] >> used) == 0;
}

// Unpacks n values of `bits` bits; on the SSE2 path docids are also
// post-processed there (gaps to docids; for full blocks weights too: +1),
// and the return value says so.
template <CodecPath kPath>
bool Unpack(const uint8_t* in, size_t n, int bits, [[maybe_unused]] uint32_t prev,
            [[maybe_unused]] bool docs, uint32_t* out) {
  if (n != kBlockSize) {
    UnpackHorizontal(in, n, bits, out);
#if defined(__SSE2__)
    if constexpr (kPath == CodecPath::kSse2) {
      if (docs) {
        GapsToDocsSse2(out, n, prev);
        return true;
      }
    }
#endif
    return false;
  }
#if defined(__SSE2__)
  if constexpr (kPath == CodecPath::kSse2) {
    if (docs) {
      kFullDocDecoders[bits](in, prev, out);
    } else {
      kFullWeightDecoders[bits](in, out);
    }
    return true;
  }
#endif
  UnpackVerticalScalar(in, bits, out);
  return false;
}

// Unpacks n values of `bits` bits as they are (gaps of a block with
// exceptions, which are patched before the prefix sum).
template <CodecPath kPath>
void UnpackPlain(const uint8_t* in, size_t n, int bits, uint32_t* out) {
  if (n != kBlockSize) {
    UnpackHorizontal(in, n, bits, out);
    return;
  }
#if defined(__SSE2__)
  if constexpr (kPath == CodecPath::kSse2) {
    kFullPlainDecoders[bits](in, out);
    return;
  }
#endif
  UnpackVerticalScalar(in, bits, out);
}

template <CodecPath kPath>
void PrefixSumGaps(uint32_t* v, size_t n, uint32_t prev) {
#if defined(__SSE2__)
  if constexpr (kPath == CodecPath::kSse2) {
    GapsToDocsSse2(v, n, prev);
    return;
  }
#endif
  GapsToDocs(v, n, prev);
}

// Docids are increasing unless the true last docid, first + sum(g[i] + 1) - 1,
// passes UINT32_MAX, which only corruption produces. Each g[i] + 1 is at most
// 2^bits, so most blocks cannot overflow at their width, which one comparison
// shows. If n * 2^bits <= 2^32 the sum wraps at most once, landing below
// `first`. Only blocks of gaps wider than 2^25 need the pairwise check (a
// wrapped partial sum shows up as a docid <= its predecessor).
bool DocsIncrease(const uint32_t* docs, size_t n, uint32_t prev, int bits) {
  const uint64_t first = prev == UINT32_MAX ? 0 : uint64_t{prev} + 1;
  const uint64_t span = uint64_t{n} << bits;
  if (first + span - 1 <= UINT32_MAX) return true;
  if (span <= uint64_t{1} << 32) return docs[n - 1] >= first;
  if (prev != UINT32_MAX && docs[0] <= prev) return false;
  for (size_t i = 1; i < n; ++i) {
    if (docs[i] <= docs[i - 1]) return false;
  }
  return true;
}

struct BlockHeader {
  int bits = 0;
  size_t exceptions = 0;
  int high_bits = 0;
  size_t payload = 0;  // PayloadSize(n, bits)
  // After the payload: exception positions (one byte each), then their high
  // bits packed at high_bits each (horizontal layout).
  const uint8_t* positions = nullptr;
  const uint8_t* highs = nullptr;
  size_t highs_size = 0;
  const uint8_t* end = nullptr;    // the byte after the block
  const uint8_t* limit = nullptr;  // the end of the bytes given (>= end)
};

// Parses a block's header, checked against n and the bytes given: the block
// must fit, its padding bits must be zero. Returns the payload, or nullptr.
// A count of 0 is corruption (that block has a one-byte header); so is a
// high width of 0 or one that lets a value pass 32 bits.
[[gnu::always_inline]] inline const uint8_t* ParseHeader(const uint8_t* p, const uint8_t* end,
                                                         size_t n, BlockHeader* h) {
  if (n == 0 || n > kBlockSize || p >= end) return nullptr;
  const uint8_t head = *p++;
  h->bits = head & ~kHasExceptions;
  if (h->bits > kMaxBits) return nullptr;
  h->payload = PayloadSize(n, h->bits);
  h->limit = end;
  if ((head & kHasExceptions) == 0) {
    h->exceptions = 0;
    if (static_cast<size_t>(end - p) < h->payload || !PaddingIsZero(p, n, h->bits)) return nullptr;
    h->end = p + h->payload;
    return p;
  }
  if (end - p < 2) return nullptr;
  h->exceptions = p[0];
  h->high_bits = p[1];
  p += 2;
  if (h->exceptions == 0 || h->exceptions > n || h->high_bits == 0 ||
      h->high_bits > kMaxBits - h->bits) {
    return nullptr;
  }
  h->highs_size = (h->exceptions * static_cast<size_t>(h->high_bits) + 7) / 8;
  const size_t size = h->payload + h->exceptions + h->highs_size;
  if (static_cast<size_t>(end - p) < size || !PaddingIsZero(p, n, h->bits)) return nullptr;
  h->positions = p + h->payload;
  h->highs = h->positions + h->exceptions;
  h->end = h->highs + h->highs_size;
  if (!PaddingIsZero(h->highs, h->exceptions, h->high_bits)) return nullptr;
  return p;
}

// Up to 8 bytes of the highs from byte `at`, zero past their end: one load
// when the bytes given reach that far, else byte by byte.
[[gnu::always_inline]] inline uint64_t HighsWord(const BlockHeader& h, size_t at) {
  const size_t left = h.highs_size - at;
  if (h.limit - (h.highs + at) >= 8) {
    const uint64_t word = DecodeFixed64(h.highs + at);
    return left >= 8 ? word : word & ((uint64_t{1} << (8 * left)) - 1);
  }
  uint64_t word = 0;
  for (size_t k = 0; k < left && k < 8; ++k) word |= uint64_t{h.highs[at + k]} << (8 * k);
  return word;
}

// High bits of exception i.
[[gnu::always_inline]] inline uint32_t HighAt(const BlockHeader& h, size_t i) {
  const size_t bit = i * static_cast<size_t>(h.high_bits);
  return static_cast<uint32_t>((HighsWord(h, bit / 8) >> (bit % 8)) & LowMask(h.high_bits));
}

// Applies the exceptions to values[0..n), which hold their low `bits` bits
// (weights: plus one): values[pos] += high << bits, in one pass over the
// unpacked highs. Positions must strictly increase and stay below n; a high
// of 0 is corruption (the value was no exception), and every sum must fit
// 32 bits. False on corruption (values then half patched: the caller drops
// the block).
//
// The checks are folded into the scatter with no branch: an OR of wrapped
// differences for the order, a minimum for the highs. A sum can pass 32
// bits only for weights (their plus one) whose bits and high bits make 32:
// only then is each sum checked. (A value block of a phrase's median query
// takes about 10 exceptions; separate tests made them 30 instructions
// each.) A bad position writes inside the 128-value buffer, never past it.
template <bool kPlusOne>
bool Patch(const BlockHeader& h, size_t n, uint32_t* values) {
  // Locals: a store to values (uint32_t) may alias h's int fields.
  const uint8_t* const positions = h.positions;
  const size_t exceptions = h.exceptions;
  const int bits = h.bits;
  // Ordered positions end below n when the last does.
  if (positions[exceptions - 1] >= n) return false;
  if (kPlusOne && bits + h.high_bits >= 32) {
    uint32_t highs[kBlockSize];
    UnpackHorizontal(h.highs, exceptions, h.high_bits, highs);
    uint32_t last = 0;
    for (size_t e = 0; e < exceptions; ++e) {
      const uint32_t pos = positions[e] % kBlockSize;
      const uint64_t value = values[pos] + (uint64_t{highs[e]} << bits);
      if (pos < last || highs[e] == 0 || value > UINT32_MAX) return false;
      values[pos] = static_cast<uint32_t>(value);
      last = pos + 1;
    }
    return true;
  }
  // The highs of most blocks fit one 8-byte word: one load, then a shift
  // per exception (a phrase's median query spent 15% of its instructions
  // here when the highs went through an array). Positions are at most 255
  // and `last` at most 256: pos - last wraps to a word with its top bit set
  // exactly when pos < last.
  const uint32_t scale = uint32_t{1} << bits;  // a multiply: one variable shift is enough
  uint32_t unordered = 0, least = UINT32_MAX, last = 0;
  auto apply = [&](size_t e, uint32_t high) {
    const uint32_t pos = positions[e];
    unordered |= pos - last;
    last = pos + 1;
    least = std::min(least, high);
    values[pos % kBlockSize] += high * scale;
  };
  if (h.highs_size <= 8) {
    const uint64_t word = HighsWord(h, 0);
    const int high_bits = h.high_bits;
    const uint32_t mask = LowMask(high_bits);
    int shift = 0;
    for (size_t e = 0; e < exceptions; ++e, shift += high_bits) {
      apply(e, static_cast<uint32_t>(word >> shift) & mask);
    }
  } else {
    uint32_t highs[kBlockSize];
    UnpackHorizontal(h.highs, exceptions, h.high_bits, highs);
    for (size_t e = 0; e < exceptions; ++e) apply(e, highs[e]);
  }
  return (unordered >> 31) == 0 && least != 0;
}

template <CodecPath kPath>
const uint8_t* DecodeDocs(const uint8_t* p, const uint8_t* end, size_t n, uint32_t prev,
                          uint32_t* docs) {
  BlockHeader h;
  p = ParseHeader(p, end, n, &h);
  if (p == nullptr) return nullptr;
  if (h.exceptions == 0) {  // plain FOR: the unpack can fuse the prefix sum
    if (!Unpack<kPath>(p, n, h.bits, prev, /*docs=*/true, docs)) GapsToDocs(docs, n, prev);
    if (!DocsIncrease(docs, n, prev, h.bits)) return nullptr;
    return h.end;
  }
  UnpackPlain<kPath>(p, n, h.bits, docs);
  if (!Patch<false>(h, n, docs)) return nullptr;
  PrefixSumGaps<kPath>(docs, n, prev);
  if (!DocsIncrease(docs, n, prev, h.bits + h.high_bits)) return nullptr;
  return h.end;
}

template <CodecPath kPath>
const uint8_t* DecodeWeights(const uint8_t* p, const uint8_t* end, size_t n, uint32_t* weights) {
  BlockHeader h;
  p = ParseHeader(p, end, n, &h);
  if (p == nullptr) return nullptr;
  if (!Unpack<kPath>(p, n, h.bits, 0, /*docs=*/false, weights)) {
    for (size_t i = 0; i < n; ++i) ++weights[i];
  }
  if (h.exceptions != 0 && !Patch<true>(h, n, weights)) return nullptr;
  // Only a 32-bit payload can hold UINT32_MAX, which wrapped to weight 0.
  if (h.bits == kMaxBits && std::find(weights, weights + n, 0u) != weights + n) return nullptr;
  return h.end;
}

template <CodecPath kPath>
const uint8_t* DecodeValues(const uint8_t* p, const uint8_t* end, size_t n, uint32_t* values) {
  BlockHeader h;
  p = ParseHeader(p, end, n, &h);
  if (p == nullptr) return nullptr;
  UnpackPlain<kPath>(p, n, h.bits, values);
  if (h.exceptions != 0 && !Patch<false>(h, n, values)) return nullptr;
  return h.end;
}

}  // namespace

const uint8_t* DecodeValueBlock(const uint8_t* p, const uint8_t* end, size_t n, uint32_t* values) {
  return DecodeValues<kDefaultPath>(p, end, n, values);
}

bool ValueBlockView::Open(const uint8_t* p, const uint8_t* end, size_t n) {
  BlockHeader h;
  payload_ = ParseHeader(p, end, n, &h);
  if (payload_ == nullptr) return false;
  n_ = n;
  bits_ = h.bits;
  exceptions_ = h.exceptions;
  high_bits_ = h.high_bits;
  exception_at_ = h.positions;
  highs_ = h.highs;
  highs_size_ = h.highs_size;
  end_ = h.end;
  limit_ = h.limit;
  return true;
}

uint32_t ValueBlockView::At(size_t i) const {
  uint64_t value = 0;
  if (bits_ != 0) {
    const uint64_t mask = LowMask(bits_);
    if (n_ == kBlockSize) {
      // Vertical: value i is row i / 4 of lane i % 4, whose 32-bit words are
      // every fourth word of the payload (UnpackVerticalScalar).
      const size_t lane = i % kLanes;
      const size_t bit = (i / kLanes) * static_cast<size_t>(bits_);
      const size_t word = bit / 32, shift = bit % 32;
      uint64_t w = DecodeFixed32(payload_ + 4 * (kLanes * word + lane));
      if (shift + static_cast<size_t>(bits_) > 32) {
        w |= uint64_t{DecodeFixed32(payload_ + 4 * (kLanes * (word + 1) + lane))} << 32;
      }
      value = (w >> shift) & mask;
    } else {
      // Horizontal, LSB first: at most 5 bytes from the value's first.
      const size_t bit = i * static_cast<size_t>(bits_);
      const size_t from = bit / 8;
      const size_t bytes = std::min<size_t>(8, PayloadSize(n_, bits_) - from);
      uint64_t w = 0;
      if (limit_ - (payload_ + from) >= 8) {
        w = DecodeFixed64(payload_ + from);
      } else {
        for (size_t k = 0; k < bytes; ++k) w |= uint64_t{payload_[from + k]} << (8 * k);
      }
      value = (w >> (bit % 8)) & mask;
    }
  }
  for (size_t e = 0; e < exceptions_; ++e) {
    if (exception_at_[e] != i) continue;
    BlockHeader h;
    h.high_bits = high_bits_;
    h.highs = highs_;
    h.highs_size = highs_size_;
    h.limit = limit_;
    value += uint64_t{HighAt(h, e)} << bits_;
    break;
  }
  return static_cast<uint32_t>(value);
}

bool ValueBlockView::ExceptionsAreSound() const {
  BlockHeader h;
  h.high_bits = high_bits_;
  h.highs = highs_;
  h.highs_size = highs_size_;
  h.limit = limit_;
  size_t next = 0;  // the least position the next exception may have
  for (size_t e = 0; e < exceptions_; ++e) {
    if (exception_at_[e] < next || exception_at_[e] >= n_ || HighAt(h, e) == 0) return false;
    next = size_t{exception_at_[e]} + 1;
  }
  return true;
}

const uint8_t* DecodeDocBlock(const uint8_t* p, const uint8_t* end, size_t n, uint32_t prev,
                              uint32_t* docs) {
  return DecodeDocs<kDefaultPath>(p, end, n, prev, docs);
}

const uint8_t* DecodeDocBlockPart(const uint8_t* p, const uint8_t* end, size_t part,
                                  uint32_t prev, uint32_t* docs) {
  if (part >= kBlockParts) return nullptr;
  BlockHeader h;
  p = ParseHeader(p, end, kBlockSize, &h);
  if (p == nullptr) return nullptr;
  // The part's docids from the low bits of its gaps.
#if defined(__SSE2__)
  kPartDocDecoders[part][h.bits](p, prev, docs);
#else
  // Reference path: unpack the block, then rebuild the part from its gaps.
  uint32_t all[kBlockSize];
  UnpackVerticalScalar(p, h.bits, all);
  std::copy(all + part * kBlockPartSize, all + (part + 1) * kBlockPartSize, docs);
  GapsToDocs(docs, kBlockPartSize, prev);
#endif
  int bits = h.bits;
  if (h.exceptions != 0) {
    // The part's exceptions are a run of the sorted positions, found by
    // binary search: a seek pays for the exceptions it uses, not for the
    // whole list. (The positions used and the last one are checked here;
    // DecodeDocBlock checks them all.) An exception's high
    // bits raise its own docid and every later one of the part: a running
    // carry.
    const uint8_t* const positions = h.positions;
    const uint32_t first = static_cast<uint32_t>(part * kBlockPartSize);
    const auto lower_bound = [&](uint32_t key) {
      size_t lo = 0, len = h.exceptions;
      while (len > 0) {
        const size_t half = len / 2;
        if (positions[lo + half] < key) {
          lo += half + 1;
          len -= half + 1;
        } else {
          len = half;
        }
      }
      return lo;
    };
    const size_t begin = lower_bound(first);
    const size_t end_e = lower_bound(first + static_cast<uint32_t>(kBlockPartSize));
    bool bad = positions[h.exceptions - 1] >= kBlockSize;
    uint32_t carry = 0, next_pos = first;
    size_t corrected = 0;  // docs[0..corrected) have their carry
    for (size_t e = begin; e < end_e; ++e) {
      const uint32_t pos = positions[e];
      const uint32_t high = HighAt(h, e);
      // Unsigned: a position outside the part (only in a corrupt, unsorted
      // list) is caught and clamped, never written past docs[31].
      const uint32_t at = pos - first;
      bad |= pos < next_pos || at >= kBlockPartSize || high == 0;
      next_pos = pos + 1;
      const size_t upto = std::min<size_t>(at, kBlockPartSize);
      if (e == begin) corrected = upto;  // nothing to add before the first
      for (; corrected < upto; ++corrected) docs[corrected] += carry;
      carry += high << h.bits;
    }
    if (bad) return nullptr;
    if (begin < end_e) {
      for (; corrected < kBlockPartSize; ++corrected) docs[corrected] += carry;
      bits = h.bits + h.high_bits;
    }
  }
  if (!DocsIncrease(docs, kBlockPartSize, prev, bits)) return nullptr;
  return h.end;
}

const uint8_t* DecodeWeightBlock(const uint8_t* p, const uint8_t* end, size_t n,
                                 uint32_t* weights) {
  return DecodeWeights<kDefaultPath>(p, end, n, weights);
}

const uint8_t* SkipBlock(const uint8_t* p, const uint8_t* end, size_t n) {
  BlockHeader h;
  return ParseHeader(p, end, n, &h) == nullptr ? nullptr : h.end;
}

namespace internal {

const uint8_t* DecodeDocBlockOn(CodecPath path, const uint8_t* p, const uint8_t* end, size_t n,
                                uint32_t prev, uint32_t* docs) {
  return path == CodecPath::kSse2 ? DecodeDocs<CodecPath::kSse2>(p, end, n, prev, docs)
                                  : DecodeDocs<CodecPath::kScalar>(p, end, n, prev, docs);
}

const uint8_t* DecodeWeightBlockOn(CodecPath path, const uint8_t* p, const uint8_t* end, size_t n,
                                   uint32_t* weights) {
  return path == CodecPath::kSse2 ? DecodeWeights<CodecPath::kSse2>(p, end, n, weights)
                                  : DecodeWeights<CodecPath::kScalar>(p, end, n, weights);
}

}  // namespace internal
}  // namespace dps
