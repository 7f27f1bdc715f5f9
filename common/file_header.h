// The 16-byte header every dpsearch data file starts with (tablet files,
// term lists, the global index, spill runs; docs/FORMAT.md): magic (u64) |
// format version (u32) | flags (u32). One encoder and one check, so every
// kind refuses a foreign file, another version and unknown flags alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dps {

inline constexpr size_t kFileHeaderSize = 16;

struct FileHeader {
  uint64_t magic = 0;
  uint32_t version = 0;
  uint32_t flags = 0;
};

void EncodeFileHeader(const FileHeader& header, std::string* out);

// Checks the first kFileHeaderSize bytes of `bytes` against `expected`'s
// magic and version, and that no flag outside `known_flags` is set; the
// flags into *flags (may be null). Corruption naming the offset and the
// file `kind` ("tablet file") otherwise.
Status CheckFileHeader(std::string_view bytes, const FileHeader& expected, uint32_t known_flags,
                       std::string_view kind, uint32_t* flags = nullptr);

}  // namespace dps
