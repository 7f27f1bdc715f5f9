// Token-level JSON helpers for the JSONL parser: string decoding, integer
// tokens, and validation of the values it skips.
//
// The JSONL parser takes strings as raw tokens from simdjson and decodes them
// here, straight into the document's own std::string: one copy instead of
// simdjson's unescape-to-scratch plus a copy out, and lone surrogates
// ("\ud800" alone, which simdjson 3.0 rejects) become U+FFFD and are counted
// instead of failing the line, like invalid UTF-8 elsewhere.
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dps {

// Decodes the text between the quotes of a JSON string into *out (replacing
// its contents). All escapes are decoded: \" \\ \/ \b \f \n \r \t and \uXXXX,
// with surrogate pairs combined and unpaired surrogates replaced by U+FFFD
// (counted in *replaced). Returns false with *error set on an invalid
// escape. The body's own bytes are copied as they are (the caller has
// validated them as UTF-8).
bool DecodeJsonString(std::string_view body, std::string* out, uint64_t* replaced,
                      std::string* error);

// True for a JSON number token that is an integer: -?(0|[1-9][0-9]*).
bool IsJsonInteger(std::string_view token);

// The canonical text of a JSON integer token: the token itself, except that
// "-0" is "0". REQUIRES: IsJsonInteger(token).
std::string_view CanonicalInteger(std::string_view token);

// Checks that `text` begins with one well-formed JSON value and sets
// *length to the bytes it spans. simdjson's On-Demand API steps over the
// values of ignored fields by matching brackets without checking them; this
// keeps a line like {"id":1,"text":"a","x":[1,,2]} an error, as in any
// strict parser. Nesting deeper than kMaxJsonDepth is rejected.
inline constexpr int kMaxJsonDepth = 1024;
bool SkipJsonValue(std::string_view text, size_t* length);

}  // namespace dps
