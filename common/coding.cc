#include "common/coding.h"

#include <bit>

static_assert(std::endian::native == std::endian::little,
              "dpsearch's on-disk format is little-endian; big-endian hosts need byte swaps");
