// libFuzzer target for inline postings (docs/FORMAT.md "Inline postings",
// index/inline_postings.h), the short lists a term list's value or a
// global index ref keeps: ParseInlinePostings, SkipInlinePostings (the
// lookup's varint count) and PostingCursor::InitInline. Arbitrary bytes
// must parse to ascending docids <= kMaxDocId and weights >= 1 or be
// refused; where the parser accepts, the skip ends where it does and the
// cursor yields the same postings; where the skip refuses, so does the
// parser. Round trip: postings built from the input encode and parse back
// exactly. Input: df - 1 (u8, low 7 bits; bit 7: weights present) | the
// payload. Seeds in tests/fuzz/corpus/inline_postings_fuzz/ are payloads
// EncodeInlinePostings wrote (tests/fuzz/make_seeds.cc).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "index/inline_postings.h"
#include "index/posting_list.h"

namespace {

void Parse(const uint8_t* p, const uint8_t* end, uint32_t df, bool has_weights) {
  dps::DocId docs[dps::kMaxInlineDfRead];
  uint32_t weights[dps::kMaxInlineDfRead];
  const uint8_t* parsed = dps::ParseInlinePostings(p, end, df, has_weights, docs, weights);
  const uint8_t* skipped = dps::SkipInlinePostings(p, end, df, has_weights);
  if (skipped != nullptr && skipped > end) abort();
  if (parsed == nullptr) {
    // A payload the parser refuses must not open a cursor either.
    dps::PostingCursor cursor;
    if (df >= 2 && cursor.InitInline(std::string_view(reinterpret_cast<const char*>(p), end - p), df,
                                     has_weights).ok()) {
      abort();
    }
    return;
  }
  if (parsed > end || skipped != parsed) abort();
  for (uint32_t i = 0; i < df; ++i) {
    if (docs[i] > dps::kMaxDocId || weights[i] == 0 || (i > 0 && docs[i] <= docs[i - 1])) abort();
    if (!has_weights && weights[i] != 1) abort();
  }
  if (df < 2) return;
  const std::string_view exact(reinterpret_cast<const char*>(p), parsed - p);
  dps::PostingCursor cursor;
  if (!cursor.InitInline(exact, df, has_weights).ok()) abort();
  uint32_t i = 0;
  for (dps::DocId d = cursor.doc(); d != dps::kEndDoc; d = cursor.Next(), ++i) {
    if (i >= df || d != docs[i] || cursor.weight() != weights[i]) abort();
  }
  if (i != df || !cursor.status().ok() || cursor.last_doc() != docs[df - 1]) abort();
  // Bytes left over are refused: the value ends exactly after its postings.
  if (parsed != end && cursor.InitInline(std::string_view(exact.data(), end - p), df, has_weights).ok()) abort();
}

void RoundTrip(const uint8_t* data, size_t size, uint32_t df) {
  if (size == 0) return;
  std::vector<dps::DocId> docs(df);
  std::vector<uint32_t> weights(df);
  uint64_t d = 0;
  for (uint32_t i = 0; i < df; ++i) {
    const uint8_t b = data[i % size];
    d += (b & 0x80) ? uint64_t{b} << (b & 24) : b;  // some gaps need several varint bytes
    if (d > dps::kMaxDocId) return;
    docs[i] = static_cast<dps::DocId>(d);
    weights[i] = b % 5 == 0 ? 1 + (uint32_t{b} << (b & 16)) : 1;
    ++d;
  }
  std::string payload;
  const bool has_weights = dps::EncodeInlinePostings(docs, weights, &payload);
  std::vector<dps::DocId> back_docs(df);
  std::vector<uint32_t> back_weights(df);
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  if (dps::ParseInlinePostings(p, p + payload.size(), df, has_weights, back_docs.data(), back_weights.data()) !=
          p + payload.size() ||
      back_docs != docs || back_weights != weights) {
    abort();
  }
  Parse(p, p + payload.size(), df, has_weights);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint32_t df = (data[0] & 127) + 1;
  const bool has_weights = data[0] & 128;
  const std::vector<uint8_t> bytes(data + 1, data + size);  // its own allocation: ASan sees overreads
  Parse(bytes.data(), bytes.data() + bytes.size(), df, has_weights);
  RoundTrip(data + 1, size - 1, df);
  return 0;
}
