// The external ids of one bin's stored documents, one per docid with O(1)
// access (issue 18: a ranked top 10 must show 10 ids without decompressing
// the doc store's meta frames). Dense over the bin record's min..max docid
// in frames of 128 slots (index/packed_frames.h):
//   frame = head (u8) | presence bitmap (16 bytes, iff head bit 7) | body
//   head bits 0-6: width 0-64 = decimal frame, 127 = strings frame
//   decimal body = base (u64) | slope (u64) | 128 (the last frame: the
//                  rest) values of `width` bits; slot i's id is
//                  base + i * slope + value i, printed in decimal
//   strings body = the slots' ids front-coded, absent slots empty
// The bitmap is there only when some docid of the frame is absent (a
// compaction drops deleted documents and leaves gaps). Layout, and what
// makes a frame decimal: docs/FORMAT.md ("Id column").
//
// Writer: one thread. Reader: immutable after Open, shareable.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/types.h"

namespace dps {

// The largest id a decimal frame holds: 19 digits (every such value fits a
// uint64, and prints back exactly).
inline constexpr uint64_t kMaxDecimalId = 9'999'999'999'999'999'999ull;
inline constexpr uint8_t kIdFramePresence = 0x80;  // head bit 7
inline constexpr uint8_t kIdFrameStrings = 127;    // head bits 0-6
inline constexpr size_t kIdPresenceBytes = 16;

// "0" or 1 to 19 digits not starting with 0: an id a decimal frame can hold.
bool IsCanonicalDecimal(std::string_view s, uint64_t* value);

class IdColumnWriter {
 public:
  // Docids strictly ascending since the last Finish, else InvalidArgument;
  // so is an empty id (a reader takes it for corruption).
  Status Add(DocId docid, std::string_view id);
  // Appends the region for the docids added since the last Finish (none:
  // appends nothing) and resets for the next bin.
  Status Finish(std::string* out);

 private:
  void FlushFrame(uint32_t slots);
  bool any_ = false;
  DocId min_docid_ = 0, last_docid_ = 0;
  uint64_t frame_ = 0;  // the frame being filled
  uint32_t used_ = 0;   // its slots up to the last one added
  std::array<std::string, 128> ids_;
  std::array<bool, 128> present_{};
  std::string frames_;
  std::vector<uint32_t> starts_;
};

class IdColumnReader {
 public:
  // Checks the layout against the bin record: frame offsets, heads, sizes,
  // bitmaps and padding, min_docid and max_docid present, num_docs present
  // in all (values are checked when read). `where` names the file and
  // offset in errors. REQUIRES: num_docs >= 1, min_docid <= max_docid.
  Status Open(std::string_view region, DocId min_docid, DocId max_docid, uint32_t num_docs, std::string where);
  // NotFound if docid is not stored; Corruption if its id is malformed.
  Status Get(DocId docid, std::string* id) const;
  // Every (docid, id) in docid order, checking every value: absent slots
  // 0 or empty, strings frames exactly filled, no empty or over-19-digit id.
  Status ForEach(const std::function<void(DocId, std::string_view)>& fn) const;

 private:
  struct Frame {
    const uint8_t* body;  // after the head and bitmap
    const uint8_t* end;
    uint8_t head;
    const uint8_t* presence;  // nullptr: every slot present
  };
  Frame FrameAt(uint64_t f) const;
  Status Malformed(uint64_t f, const std::string& what) const;
  Status Decimal(const Frame& fr, uint64_t f, uint32_t slot, std::string* id) const;

  const uint8_t* data_ = nullptr;
  uint64_t end_ = 0;  // where the padding starts
  DocId min_docid_ = 0, max_docid_ = 0;
  std::vector<uint32_t> frame_offsets_;
  std::string where_;
};

}  // namespace dps
