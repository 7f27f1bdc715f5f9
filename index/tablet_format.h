// Constants and the bin directory of the tablet file.
// Byte layout: docs/FORMAT.md ("Tablet file"). On-disk values are never
// renumbered; a new layout gets a new version. The reader reads only
// kTabletFormatVersion and refuses others (FORMAT.md "Compatibility";
// tests/golden holds an index of this version).
#pragma once

#include <cstdint>
#include <string>

namespace dps {

inline constexpr uint64_t kTabletMagic = 0x0031424154535044ULL;  // "DPSTAB1\0" little-endian
inline constexpr uint32_t kTabletFormatVersion = 11;
// Header flag bits; the others are reserved and must be zero.
inline constexpr uint32_t kTabletFlagStoredText = 1u << 0;
// Word positions: each bin's lists in the file have a positions region.
inline constexpr uint32_t kTabletFlagPositions = 1u << 1;
inline constexpr uint32_t kTabletKnownFlags = kTabletFlagStoredText | kTabletFlagPositions;

// One fixed-size record per bin in the directory, sorted by bin.
struct BinInfo {
  uint32_t bin = 0;
  uint32_t num_docs = 0;      // stored documents in this file's bin
  uint32_t num_terms = 0;
  uint32_t min_docid = 0;     // of the stored documents; 0 when num_docs == 0
  uint32_t max_docid = 0;
  // The reference avgdl of the bin's block scores in units of
  // kScoreAvgdlUnit (index/block_impacts.h); >= 1 when the bin has posting
  // lists in the file (not inline), else 0. (Version 7 and earlier: zero.)
  uint32_t score_avgdl = 0;
  uint64_t num_postings = 0;  // (term, doc) pairs
  uint64_t postings_offset = 0, postings_len = 0;
  uint64_t docs_offset = 0, docs_len = 0;
  // The id column (index/id_column.h); both 0 iff num_docs == 0. (Version
  // 6 and earlier reserved these bytes, before docs_offset, for a dictionary.)
  uint64_t ids_offset = 0, ids_len = 0;
  // The document lengths region (index/doc_lengths.h); both 0 iff
  // num_docs == 0. (Version 4 kept an id index here.)
  uint64_t lengths_offset = 0, lengths_len = 0;
  uint64_t tombstones_offset = 0, tombstones_len = 0;
  // The positions region (index/positions.h): the positions lists of the
  // bin's lists in the file; both 0 when the file has no positions or the
  // bin no list in the file. (Version 8 and earlier: absent.)
  uint64_t positions_offset = 0, positions_len = 0;
  // The field lengths region (index/field_lengths.h): one length column
  // per field of the index; both 0 iff num_docs == 0. (Version 9 and
  // earlier: absent.)
  uint64_t field_lengths_offset = 0, field_lengths_len = 0;
};
inline constexpr size_t kBinInfoSize = 6 * 4 + 15 * 8;  // 144 bytes

void EncodeBinInfo(const BinInfo& info, std::string* out);
// REQUIRES: p points at kBinInfoSize readable bytes.
BinInfo DecodeBinInfo(const uint8_t* p);

}  // namespace dps
