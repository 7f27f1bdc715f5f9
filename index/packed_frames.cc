#include "index/packed_frames.h"

#include "common/coding.h"

namespace dps {

void AppendPacked(const uint64_t* values, size_t n, unsigned width, std::string* out) {
  const size_t at = out->size();
  out->append(PackedBytes(n, width), '\0');
  auto* bytes = reinterpret_cast<uint8_t*>(out->data() + at);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t bit = uint64_t{i} * width;
    for (unsigned b = 0; b < width; ++b) {
      if (values[i] >> b & 1) bytes[(bit + b) / 8] |= static_cast<uint8_t>(1u << ((bit + b) % 8));
    }
  }
}

bool PackedTailIsZero(const uint8_t* p, uint64_t n, unsigned width) {
  const uint64_t used = n * width;
  return used % 8 == 0 || (p[used / 8] >> (used % 8)) == 0;
}

void AppendFrameRegion(std::string_view prefix, std::string_view frames, const std::vector<uint32_t>& starts,
                       std::string* out) {
  out->append(prefix);
  const uint64_t first = prefix.size() + 4 * uint64_t{starts.size()};
  for (uint32_t s : starts) PutFixed32(out, static_cast<uint32_t>(first + s));
  out->append(frames);
  out->append(kFramePadding, '\0');
}

std::string ReadFrameTable(std::string_view region, size_t prefix_bytes, uint64_t frames,
                           const std::function<std::string(uint64_t f, const uint8_t* frame, uint64_t span)>& check,
                           std::vector<uint32_t>* offsets) {
  // Each frame takes at least its head byte.
  if (frames == 0 || region.size() < prefix_bytes + 5 * frames + kFramePadding) return "region too short";
  const auto* data = reinterpret_cast<const uint8_t*>(region.data());
  const uint64_t end = region.size() - kFramePadding;
  offsets->resize(frames);
  uint64_t expected = prefix_bytes + 4 * frames;
  for (uint64_t f = 0; f < frames; ++f) {
    (*offsets)[f] = DecodeFixed32(data + prefix_bytes + 4 * f);
    const uint64_t next = f + 1 < frames ? DecodeFixed32(data + prefix_bytes + 4 * (f + 1)) : end;
    if ((*offsets)[f] != expected || next <= expected || next > end) {
      return "frame " + std::to_string(f) + " misplaced";
    }
    std::string bad = check(f, data + expected, next - expected);
    if (!bad.empty()) return "frame " + std::to_string(f) + ": " + bad;
    expected = next;
  }
  for (size_t i = 0; i < kFramePadding; ++i) {
    if (data[end + i] != 0) return "padding";
  }
  return "";
}

}  // namespace dps
