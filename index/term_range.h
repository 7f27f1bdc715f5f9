// A range of a term dictionary: the entries whose keys start with a prefix
// (a prefix query's expansions, index/prefix_expansion.h). The keys are
// sorted, so the range is contiguous: one seek through the sparse index to
// the first key >= the prefix, then the front-coded blocks in order while
// keys start with it. The walk reads the range's blocks and one entry past
// it, never the rest of the dictionary (an empty prefix is the one range
// that is the whole dictionary).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "common/status.h"
#include "index/term_dict.h"

namespace dps {

// Calls visit(key, value) for every entry of `dict` whose key starts with
// `prefix`, in key order; the views are valid during the call only. A block
// that does not decode is Corruption naming its offset (visit has then seen
// the range's entries before it).
Status ForEachKeyWithPrefix(const TermDictReader& dict, std::string_view prefix,
                            const std::function<void(std::string_view key, std::string_view value)>& visit);

}  // namespace dps
