// Front coding of a sequence of strings (the doc store's titles, the id
// column's strings frames; docs/FORMAT.md "Doc store"): each string is
//   shared (varint) | suffix (lp-string)
// the first `shared` bytes of the previous string (the empty string before
// the first), then the suffix. The writer uses the whole common prefix.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/coding.h"

namespace dps {

inline void PutFrontCoded(std::string* out, std::string_view prev, std::string_view s) {
  const size_t shared = SharedPrefixLength(prev, s);
  PutVarint64(out, shared);
  PutLengthPrefixed(out, s.substr(shared));
}

// Decodes the string after *cur (which holds the previous one) into *cur.
// nullptr on malformed input: a truncated varint or suffix, or `shared`
// past the previous string.
inline const uint8_t* GetFrontCoded(const uint8_t* p, const uint8_t* end, std::string* cur) {
  uint64_t shared;
  std::string_view suffix;
  p = GetVarint64(p, end, &shared);
  if (p == nullptr || shared > cur->size()) return nullptr;
  p = GetLengthPrefixed(p, end, &suffix);
  if (p == nullptr) return nullptr;
  cur->resize(shared);
  cur->append(suffix);
  return p;
}

}  // namespace dps
