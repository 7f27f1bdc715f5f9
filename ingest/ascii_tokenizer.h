// The analyzer's ASCII fast path: what NFKC_Casefold followed by ICU word
// segmentation (root locale, tokens with status >= UBRK_WORD_NUMBER) yields
// for pure-ASCII text, computed with a byte table instead of ICU.
//
// For ASCII, NFKC_Casefold only maps A-Z to a-z, and the UAX #29 rules that
// can join ASCII characters are (classes as ICU 72 assigns them):
//   letters  a-z A-Z and '@'  (ICU 72 made '@' ALetter, CLDR-15767)
//   digits   0-9              (Numeric)
//   '_'                       (ExtendNumLet)
//   '.' '\''                  (MidNumLet, Single_Quote)
//   ',' ';'                   (MidNum; ':' is NOT MidLetter in ICU's root
//                              rules, it only is in the Swedish tailoring)
//   WB5/8/9/10/13a/13b: letters, digits and '_' join with each other;
//   WB6/7:   letter ('.'|'\'') letter stays one token;
//   WB11/12: digit ('.'|'\''|','|';') digit stays one token.
// Everything else (space, controls, '"', '-', ':', '/', ...) breaks on both
// sides and never starts a word. A token is kept (ICU rule status >= 100)
// unless it is a lone '_' (ICU tags "__" and "_a" but not "_").
//
// The equivalence with ICU is checked at run time (Analyzer::Create) and by
// tests/ingest/fast_path_property_test.cc; docs/analyzer.md has the
// argument. Thread-safe (pure functions).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dps {

// Appends the lower-cased word tokens of `ascii` in text order.
// REQUIRES: every byte of `ascii` is < 0x80.
void TokenizeAscii(std::string_view ascii, std::vector<std::string>* tokens);

// True if `b` is an ASCII byte after which a word boundary lies in every
// context when the next byte is ASCII too, so that text may be cut there
// and each side analyzed alone (see Analyzer). These are the bytes that no
// UAX #29 rule joins: all ASCII except letters, digits, '@', '_', '.',
// '\'', ',', ';'.
bool IsAsciiSeparator(unsigned char b);

}  // namespace dps
