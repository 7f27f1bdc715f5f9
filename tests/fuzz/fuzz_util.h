// Helpers shared by the fuzz targets (tests/fuzz/*_fuzz.cc) for decoders
// that only read files: a per-process scratch directory (on tmpfs when
// /dev/shm exists, so a file per input costs no disk), and a paged
// container (docs/FORMAT.md "Paged container") written around fuzzed
// bytes with correct page checksums, so the fuzzer reaches the structures
// inside instead of stopping at a checksum mismatch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dps::fuzz {

// Aborts unless `s` is OK: for the harness's own set-up, whose failure is
// not a finding about the code under test.
void OrDie(const Status& s);

// `name` inside this process's scratch directory (created on first use,
// removed at exit).
std::string ScratchPath(std::string_view name);

// Writes `bytes` to `path` (truncating); aborts on an I/O error: the harness,
// not the code under test, failed.
void WriteFileOrDie(const std::string& path, std::string_view bytes);

// Writes `body` to `path` as a paged container whose footer names the
// directory [directory_offset, directory_offset + directory_size) and
// `version`. Aborts on an I/O error.
void WritePagedFileOrDie(const std::string& path, std::string_view body, uint64_t directory_offset,
                         uint64_t directory_size, uint32_t version);

// `in` compressed as one gzip member (zlib) or one zstd frame, at `level`.
std::string Gzip(std::string_view in, int level);
std::string Zstd(std::string_view in, int level);

// Reads a little-endian integer of `bytes` bytes from the front of *in and
// drops them; 0 (and nothing dropped) when *in is shorter.
uint64_t TakeLE(std::string_view* in, size_t bytes);

}  // namespace dps::fuzz
