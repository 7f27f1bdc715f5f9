// The query language (DESIGN.md, "Query semantics"; the grammar is in
// README.md, "Queries"): words are ANDed (`white house`), `AND`, `OR` and
// `NOT` (upper case) or a leading `-` combine them, parentheses group.
// Every word goes through the same analyzer as documents, so `White-House`
// means `white AND house` and 白宫 segments as it does in text. A word
// ending in `*` is a prefix query (`netw*`: the OR of the indexed terms
// starting with `netw`, expanded by the planner); the text before the `*`
// is analyzed the same way and must give one term. `"a b"` is a phrase,
// `title:kernel` a field's term. Other engines' syntax (boosts, other
// wildcards...: unsupported_syntax.h) is refused,
// not read as words. An empty query, a syntax error or a negation
// without a positive term beside it (the whole query, an OR branch, under
// a NOT) is an InvalidArgument; syntax errors name the byte position.
//
// Precedence: NOT binds tightest, then AND (explicit or implicit), then OR:
// `a b OR c` is `(a AND b) OR c`.
#pragma once

#include <cstddef>
#include <string_view>

#include "common/status.h"
#include "index/field_key.h"
#include "index/query_node.h"
#include "ingest/analyzer.h"

namespace dps {

// Parentheses nest at most this deep (deeper is an InvalidArgument): the
// parser recurses once per group, and no deeper tree crosses the wire
// (shards/protocol.h kMaxQueryDepth).
inline constexpr size_t kMaxGroupDepth = 64;

// `fields`: the index's fields (Searcher::fields()); `NAME:` before a
// word, phrase, prefix or group searches field NAME (index/field_key.h),
// and a name the set lacks is refused (no set: no field).
Result<QueryNode> ParseQuery(std::string_view text, Analyzer* analyzer, const FieldSet* fields = nullptr);
// The same through the grammar alone, without ParseQuery's shortcut for
// plain word lists (tests compare the two).
Result<QueryNode> ParseQueryByGrammar(std::string_view text, Analyzer* analyzer, const FieldSet* fields = nullptr);

}  // namespace dps
