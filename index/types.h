// Identifiers shared by every layer.
//
// BinId is a strong type: bins, tablets and docids are all small integers
// and mixing them up is the classic bug of a partitioned index. DocId stays a
// plain uint32_t because it is the value of every hot loop; kEndDoc is the
// "exhausted" sentinel of every docid iterator, so the largest storable docid
// is kMaxDocId = 2^32 - 2.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace dps {

struct BinId {
  uint32_t value = 0;
  constexpr auto operator<=>(const BinId&) const = default;
};

using DocId = uint32_t;
inline constexpr DocId kEndDoc = std::numeric_limits<uint32_t>::max();
inline constexpr DocId kMaxDocId = kEndDoc - 1;

}  // namespace dps
