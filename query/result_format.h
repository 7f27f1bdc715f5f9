// How result fields are written in the command line's formats: JSON string
// escapes, and backslash escapes for text and tsv so that a title holding a
// tab, a line break or a terminal escape stays on its line and in its
// column (and can be decoded: `\t`, `\n`, `\r`, `\\`, `\xHH`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dps {

std::string JsonEscape(std::string_view s);
// <, >, &, " and ' as entities: text and attribute values of the HTML reports.
std::string HtmlEscape(std::string_view s);
// Control characters (below 0x20, and 0x7f) and the backslash escaped.
std::string FieldEscape(std::string_view s);
// 63970 -> "63,970".
std::string GroupedCount(uint64_t n);

}  // namespace dps
