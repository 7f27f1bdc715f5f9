// UTF-8 validation and repair for everything the readers hand to the
// analyzer. DESIGN.md: invalid UTF-8 is never fatal; it is replaced with
// U+FFFD and counted. Each maximal ill-formed subpart (Unicode 15, §3.9,
// "U+FFFD Substitution of Maximal Subparts", as the WHATWG decoder does)
// becomes one U+FFFD, so "\xE2\x82" + "x" gives one replacement, not two.
//
// Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dps {

// True if `in` is well-formed UTF-8 (no overlongs, no surrogates, nothing
// above U+10FFFF). Pure ASCII is checked eight bytes at a time.
bool IsValidUtf8(std::string_view in);

// Returns `in` with every maximal ill-formed subpart replaced by U+FFFD and
// adds the number of replacements to *replaced. REQUIRES: replaced != nullptr.
std::string SanitizeUtf8(std::string_view in, uint64_t* replaced);

// Sanitizes *s in place (no copy when it is already valid, the common case).
void SanitizeUtf8InPlace(std::string* s, uint64_t* replaced);

// The number of bytes of `in` that belong to ill-formed subparts. The
// directory reader's binary-file test compares it with the file size.
uint64_t CountInvalidUtf8Bytes(std::string_view in);

// Writes the UTF-8 encoding of `cp` to dst (room for 4 bytes) and returns
// its length. REQUIRES: `cp` is a Unicode scalar value.
size_t EncodeUtf8(uint32_t cp, char* dst);

// Appends the UTF-8 encoding of `cp` (REQUIRES: a Unicode scalar value).
void AppendUtf8(uint32_t cp, std::string* out);

}  // namespace dps
