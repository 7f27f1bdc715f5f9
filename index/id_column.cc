#include "index/id_column.h"

#include <algorithm>
#include <bit>
#include <charconv>

#include "common/coding.h"
#include "index/front_coding.h"
#include "index/packed_frames.h"

namespace dps {

namespace {

bool Present(const uint8_t* presence, uint32_t slot) {
  return presence == nullptr || (presence[slot / 8] >> (slot % 8) & 1);
}

// A decimal frame's body starts with base and slope (u64 each).
constexpr size_t kDecimalHead = 16;

// A decimal frame's line: slot i's id is base + i * slope + (value i).
struct Line {
  uint64_t base = 0, slope = 0;
  unsigned width = 0;
};

// The line through the frame's first and last present ids, when every id
// lies on or above it and the values then take fewer bits than around the
// smallest id (ids ascending with their docids: serial numbers, offsets).
Line FitLine(const uint64_t* values, const bool* present, uint32_t slots, const Line& flat) {
  uint32_t first = slots, last = 0;
  for (uint32_t i = 0; i < slots; ++i) {
    if (!present[i]) continue;
    first = std::min(first, i);
    last = i;
  }
  if (first >= last || values[last] <= values[first]) return flat;
  const uint64_t slope = (values[last] - values[first]) / (last - first);
  uint64_t low = UINT64_MAX, high = 0;
  for (uint32_t i = first; i <= last; ++i) {
    if (!present[i]) continue;
    uint64_t on_line;
    if (__builtin_mul_overflow(uint64_t{i}, slope, &on_line) || values[i] < on_line) return flat;
    low = std::min(low, values[i] - on_line);
    high = std::max(high, values[i] - on_line);
  }
  const unsigned width = static_cast<unsigned>(std::bit_width(high - low));
  return width < flat.width ? Line{low, slope, width} : flat;
}

}  // namespace

bool IsCanonicalDecimal(std::string_view s, uint64_t* value) {
  if (s.empty() || s.size() > 19 || (s[0] == '0' && s.size() > 1)) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *value = v;
  return true;
}

Status IdColumnWriter::Add(DocId docid, std::string_view id) {
  if (id.empty()) return Status::InvalidArgument("docid " + std::to_string(docid) + ": empty external id");
  if (any_ && docid <= last_docid_) return Status::InvalidArgument("id column: docids must ascend");
  if (!any_) {
    any_ = true;
    min_docid_ = docid;
  }
  last_docid_ = docid;
  const uint64_t slot = uint64_t{docid} - min_docid_;
  while (slot / kPackedFrameSlots > frame_) {
    FlushFrame(kPackedFrameSlots);
    ++frame_;
  }
  const uint32_t s = static_cast<uint32_t>(slot % kPackedFrameSlots);
  ids_[s].assign(id);
  present_[s] = true;
  used_ = s + 1;
  return Status::OK();
}

void IdColumnWriter::FlushFrame(uint32_t slots) {
  starts_.push_back(static_cast<uint32_t>(frames_.size()));
  uint32_t present = 0;
  bool decimal = true;
  uint64_t values[kPackedFrameSlots] = {}, base = UINT64_MAX, max = 0;
  for (uint32_t i = 0; i < slots; ++i) {
    if (!present_[i]) continue;
    ++present;
    decimal = decimal && IsCanonicalDecimal(ids_[i], &values[i]);
    base = std::min(base, values[i]);
    max = std::max(max, values[i]);
  }
  if (present == 0) base = max = 0;
  Line line{base, 0, static_cast<unsigned>(std::bit_width(max - base))};
  if (decimal) line = FitLine(values, present_.data(), slots, line);
  uint8_t head = decimal ? static_cast<uint8_t>(line.width) : kIdFrameStrings;
  if (present < slots) head |= kIdFramePresence;
  frames_.push_back(static_cast<char>(head));
  if (present < slots) {
    uint8_t bitmap[kIdPresenceBytes] = {};
    for (uint32_t i = 0; i < slots; ++i) bitmap[i / 8] |= static_cast<uint8_t>(present_[i]) << (i % 8);
    frames_.append(reinterpret_cast<const char*>(bitmap), sizeof bitmap);
  }
  if (decimal) {
    PutFixed64(&frames_, line.base);
    PutFixed64(&frames_, line.slope);
    for (uint32_t i = 0; i < slots; ++i) values[i] = present_[i] ? values[i] - i * line.slope - line.base : 0;
    AppendPacked(values, slots, line.width, &frames_);
  } else {
    std::string_view prev;
    for (uint32_t i = 0; i < slots; ++i) {
      const std::string_view id = present_[i] ? std::string_view(ids_[i]) : std::string_view();
      PutFrontCoded(&frames_, prev, id);
      prev = id;
    }
  }
  present_.fill(false);
  used_ = 0;
}

Status IdColumnWriter::Finish(std::string* out) {
  Status s;
  if (any_) {
    FlushFrame(used_);
    // Frame offsets are u32.
    if (frames_.size() + 4 * starts_.size() + kFramePadding > UINT32_MAX) {
      s = Status::InvalidArgument("a bin's external ids over 4 GiB in one file");
    } else {
      AppendFrameRegion({}, frames_, starts_, out);
    }
  }
  any_ = false;
  frame_ = 0;
  frames_.clear();
  starts_.clear();
  return s;
}

Status IdColumnReader::Open(std::string_view region, DocId min_docid, DocId max_docid, uint32_t num_docs,
                            std::string where) {
  where_ = std::move(where);
  data_ = reinterpret_cast<const uint8_t*>(region.data());
  end_ = region.size() >= kFramePadding ? region.size() - kFramePadding : 0;
  min_docid_ = min_docid;
  max_docid_ = max_docid;
  uint64_t present = 0;
  const uint64_t frames = FrameCount(min_docid, max_docid);
  std::string error = ReadFrameTable(
      region, 0, frames,
      [&](uint64_t f, const uint8_t* frame, uint64_t span) -> std::string {
        const uint32_t n = FrameSlots(min_docid, max_docid, f);
        const uint8_t head = frame[0], width = head & ~kIdFramePresence;
        if (width > 64 && width != kIdFrameStrings) return "bad head " + std::to_string(head);
        uint64_t size = 1;
        uint32_t here = n;
        if (head & kIdFramePresence) {
          if (span < 1 + kIdPresenceBytes) return "size " + std::to_string(span);
          size += kIdPresenceBytes;
          // Bits of the frame's slots only, and some slot absent (else no bitmap).
          const uint64_t lo = DecodeFixed64(frame + 1), hi = DecodeFixed64(frame + 9);
          const uint64_t lo_mask = n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
          const uint64_t hi_mask = n >= 128 ? ~uint64_t{0} : n <= 64 ? 0 : (uint64_t{1} << (n - 64)) - 1;
          if ((lo & ~lo_mask) != 0 || (hi & ~hi_mask) != 0) return "presence bit past the last slot";
          here = static_cast<uint32_t>(std::popcount(lo) + std::popcount(hi));
          if (here == n) return "a presence bitmap with every slot present";
        }
        present += here;
        if (width == kIdFrameStrings) {
          // Each slot takes at least two bytes (shared, suffix length).
          return span >= size + 2 * uint64_t{n} ? "" : "size " + std::to_string(span);
        }
        if (span != size + kDecimalHead + PackedBytes(n, width)) return "size " + std::to_string(span);
        if (DecodeFixed64(frame + size) > kMaxDecimalId || DecodeFixed64(frame + size + 8) > kMaxDecimalId) {
          return "base or slope over 19 digits";
        }
        return PackedTailIsZero(frame + size + kDecimalHead, n, width) ? "" : "padding bits";
      },
      &frame_offsets_);
  if (!error.empty()) return Status::Corruption(where_ + ": id column: " + error);
  if (present != num_docs) {
    return Status::Corruption(where_ + ": id column: " + std::to_string(present) + " documents, the bin says " +
                              std::to_string(num_docs));
  }
  const uint64_t last = uint64_t{max_docid} - min_docid;
  if (!Present(FrameAt(0).presence, 0) ||
      !Present(FrameAt(frames - 1).presence, static_cast<uint32_t>(last % kPackedFrameSlots))) {
    return Status::Corruption(where_ + ": id column: the bin's first or last docid is absent");
  }
  return Status::OK();
}

IdColumnReader::Frame IdColumnReader::FrameAt(uint64_t f) const {
  const uint8_t* p = data_ + frame_offsets_[f];
  Frame fr{p + 1, data_ + (f + 1 < frame_offsets_.size() ? frame_offsets_[f + 1] : end_), p[0], nullptr};
  if (fr.head & kIdFramePresence) {
    fr.presence = fr.body;
    fr.body += kIdPresenceBytes;
    fr.head &= ~kIdFramePresence;
  }
  return fr;
}

Status IdColumnReader::Malformed(uint64_t f, const std::string& what) const {
  return Status::Corruption(where_ + ": id column frame " + std::to_string(f) + ": " + what);
}

Status IdColumnReader::Decimal(const Frame& fr, uint64_t f, uint32_t slot, std::string* id) const {
  const uint64_t base = DecodeFixed64(fr.body), slope = DecodeFixed64(fr.body + 8);
  uint64_t value;
  if (__builtin_mul_overflow(uint64_t{slot}, slope, &value) || __builtin_add_overflow(value, base, &value) ||
      __builtin_add_overflow(value, LoadPacked(fr.body + kDecimalHead, slot, fr.head), &value) ||
      value > kMaxDecimalId) {
    return Malformed(f, "decimal id over 19 digits");
  }
  char digits[20];
  const auto r = std::to_chars(digits, digits + sizeof digits, value);
  id->assign(digits, r.ptr);
  return Status::OK();
}

Status IdColumnReader::Get(DocId docid, std::string* id) const {
  if (docid < min_docid_ || docid > max_docid_) return Status::NotFound("docid " + std::to_string(docid));
  const uint64_t i = docid - min_docid_, f = i / kPackedFrameSlots;
  const uint32_t slot = static_cast<uint32_t>(i % kPackedFrameSlots);
  const Frame fr = FrameAt(f);
  if (!Present(fr.presence, slot)) return Status::NotFound("docid " + std::to_string(docid));
  if (fr.head != kIdFrameStrings) return Decimal(fr, f, slot, id);
  // Front-coded: the slot's id is built from those before it in the frame.
  id->clear();
  const uint8_t* p = fr.body;
  for (uint32_t s = 0; s <= slot; ++s) {
    p = GetFrontCoded(p, fr.end, id);
    if (p == nullptr) return Malformed(f, "a string runs past the frame");
  }
  if (id->empty()) return Malformed(f, "empty id");
  return Status::OK();
}

Status IdColumnReader::ForEach(const std::function<void(DocId, std::string_view)>& fn) const {
  std::string id;
  for (uint64_t f = 0; f < frame_offsets_.size(); ++f) {
    const Frame fr = FrameAt(f);
    const uint32_t n = FrameSlots(min_docid_, max_docid_, f);
    const uint8_t* p = fr.body;
    id.clear();
    for (uint32_t s = 0; s < n; ++s) {
      const bool present = Present(fr.presence, s);
      if (fr.head == kIdFrameStrings) {
        p = GetFrontCoded(p, fr.end, &id);
        if (p == nullptr) return Malformed(f, "a string runs past the frame");
        if (id.empty() == present) return Malformed(f, present ? "empty id" : "an id in an absent slot");
      } else if (present) {
        DPS_RETURN_IF_ERROR(Decimal(fr, f, s, &id));
      } else if (LoadPacked(fr.body + kDecimalHead, s, fr.head) != 0) {
        return Malformed(f, "a value in an absent slot");
      }
      if (present) fn(static_cast<DocId>(min_docid_ + f * kPackedFrameSlots + s), id);
    }
    if (fr.head == kIdFrameStrings && p != fr.end) return Malformed(f, "bytes after the last id");
  }
  return Status::OK();
}

}  // namespace dps
