#include "common/checksum.h"

#include <xxhash.h>

namespace dps {

uint64_t Checksum64(const void* data, size_t n) { return XXH3_64bits(data, n); }

uint64_t StableHash64(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

}  // namespace dps
