// UTF-8 validation and repair for text entering the index.
//
// Ill-formed input is repaired with the Unicode Standard's recommended
// practice, "U+FFFD substitution of maximal subparts" (Unicode 15, section
// 3.9, Table 3-8): each maximal subpart of an ill-formed subsequence (the
// longest prefix of a well-formed sequence that the bytes start, or one
// byte if none) becomes one U+FFFD. ICU's u_strFromUTF8WithSub and the
// WHATWG Encoding Standard do the same, so the counts reported here agree
// with theirs, and a reader that sanitizes text before storing it and the
// analyzer that tokenizes it see the same characters.
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dps {

inline constexpr char32_t kReplacementCharacter = 0xFFFD;

// Returned by DecodeUtf8 for an ill-formed subsequence.
inline constexpr char32_t kInvalidCodePoint = 0xFFFFFFFF;

// Decodes the sequence starting at *p and advances *p past it: past the
// well-formed sequence (returning its code point), or past the maximal
// subpart of an ill-formed one (returning kInvalidCodePoint).
// REQUIRES: *p < end.
char32_t DecodeUtf8(const uint8_t** p, const uint8_t* end);

// The length of the longest prefix of `in` that is well-formed UTF-8.
size_t WellFormedUtf8Prefix(std::string_view in);

// `in` with every maximal subpart of an ill-formed subsequence replaced by
// U+FFFD (EF BF BD). Adds the number of replacements to *replaced (may be
// null). Well-formed input is returned unchanged.
std::string SanitizeUtf8(std::string_view in, uint64_t* replaced);

// True if `in` is well-formed UTF-8 (no overlongs, surrogates, or code
// points above U+10FFFF).
inline bool IsValidUtf8(std::string_view in) { return WellFormedUtf8Prefix(in) == in.size(); }

// Sanitizes *s in place (no copy when it is already valid, the common case).
void SanitizeUtf8InPlace(std::string* s, uint64_t* replaced);

// The number of bytes of `in` that belong to ill-formed subparts (the
// directory reader's binary-file test compares it with the file size).
uint64_t CountInvalidUtf8Bytes(std::string_view in);

// Writes the UTF-8 encoding of `cp` to dst (room for 4 bytes) and returns
// its length. REQUIRES: cp <= 0x10FFFF.
size_t EncodeUtf8(char32_t cp, char* dst);

// Appends the UTF-8 encoding of `cp` (REQUIRES: cp <= 0x10FFFF).
void AppendUtf8(char32_t cp, std::string* out);

// Decodes `in` to UTF-16 with the same replacement as SanitizeUtf8 and
// returns the number of code units written. Adds the number of
// replacements to *replaced. REQUIRES: `out` has room for in.size() units
// (every input byte yields at most one unit).
size_t DecodeUtf8ToUtf16(std::string_view in, char16_t* out, uint64_t* replaced);

// Appends the UTF-8 encoding of n UTF-16 units. An unpaired surrogate
// (never produced by DecodeUtf8ToUtf16 or ICU normalization of its output)
// is written as U+FFFD rather than as ill-formed UTF-8.
void AppendUtf16AsUtf8(const char16_t* s, size_t n, std::string* out);

}  // namespace dps
