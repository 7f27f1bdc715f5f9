#include "index/doc_lengths.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "common/coding.h"

namespace dps {

namespace {
constexpr size_t kPadding = 8;  // lets Get load 8 bytes anywhere in the last frame

size_t FrameBytes(uint64_t n, unsigned width) { return 1 + (n * width + 7) / 8; }
}  // namespace

void EncodeDocLengths(const std::vector<uint32_t>& lengths, std::string* out) {
  const size_t frames = (lengths.size() + kLengthsPerFrame - 1) / kLengthsPerFrame;
  uint64_t total = 0;
  for (uint32_t l : lengths) total += l;
  const size_t start = out->size();
  PutFixed64(out, total);
  out->append(4 * frames, '\0');  // offsets, filled below
  for (size_t f = 0; f < frames; ++f) {
    const size_t first = f * kLengthsPerFrame, n = std::min<size_t>(kLengthsPerFrame, lengths.size() - first);
    uint32_t max = 0;
    for (size_t i = 0; i < n; ++i) max = std::max(max, lengths[first + i]);
    const unsigned width = static_cast<unsigned>(std::bit_width(max));
    const uint32_t offset = static_cast<uint32_t>(out->size() - start);
    std::memcpy(out->data() + start + 8 + 4 * f, &offset, 4);  // little-endian hosts (coding.h)
    out->push_back(static_cast<char>(width));
    const size_t bytes_at = out->size();
    out->append(FrameBytes(n, width) - 1, '\0');
    auto* bytes = reinterpret_cast<uint8_t*>(out->data() + bytes_at);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t bit = uint64_t{i} * width;
      for (unsigned b = 0; b < width; ++b) {
        if (lengths[first + i] >> b & 1) bytes[(bit + b) / 8] |= static_cast<uint8_t>(1u << ((bit + b) % 8));
      }
    }
  }
  out->append(kPadding, '\0');
}

Status DocLengthsReader::Open(std::string_view region, DocId min_docid, DocId max_docid, const std::string& where) {
  auto bad = [&](const std::string& what) { return Status::Corruption(where + ": document lengths: " + what); };
  const uint64_t count = uint64_t{max_docid} - min_docid + 1;
  const uint64_t frames = (count + kLengthsPerFrame - 1) / kLengthsPerFrame;
  if (max_docid < min_docid || region.size() < 8 + 4 * frames + kPadding) return bad("region too short");
  data_ = reinterpret_cast<const uint8_t*>(region.data());
  min_docid_ = min_docid;
  total_ = DecodeFixed64(data_);
  frame_offsets_.resize(frames);
  uint64_t expected = 8 + 4 * frames, sum = 0;
  for (uint64_t f = 0; f < frames; ++f) {
    const uint32_t offset = DecodeFixed32(data_ + 8 + 4 * f);
    if (offset != expected || offset >= region.size() - kPadding) return bad("frame " + std::to_string(f) + " misplaced");
    const unsigned width = data_[offset];
    if (width > 32) return bad("frame " + std::to_string(f) + " width " + std::to_string(width));
    const uint64_t n = std::min<uint64_t>(kLengthsPerFrame, count - f * kLengthsPerFrame);
    expected = offset + FrameBytes(n, width);
    if (expected > region.size() - kPadding) return bad("frame " + std::to_string(f) + " runs past the region");
    frame_offsets_[f] = offset;
    for (uint64_t i = 0; i < n; ++i) sum += Get(static_cast<DocId>(min_docid + f * kLengthsPerFrame + i));
    // The bits after a frame's last value are zero (one encoding per region).
    const uint64_t used = n * width;
    if (used % 8 != 0 && (data_[expected - 1] >> (used % 8)) != 0) return bad("frame " + std::to_string(f) + " padding");
  }
  if (expected != region.size() - kPadding) return bad("trailing bytes");
  for (size_t i = 0; i < kPadding; ++i) {
    if (data_[expected + i] != 0) return bad("padding");
  }
  if (sum != total_) return bad("total " + std::to_string(total_) + " is not the sum " + std::to_string(sum));
  return Status::OK();
}

uint32_t DocLengthsReader::Get(DocId docid) const {
  const uint64_t i = docid - min_docid_;
  const uint8_t* frame = data_ + frame_offsets_[i / kLengthsPerFrame];
  const unsigned width = frame[0];
  if (width == 0) return 0;
  const uint64_t bit = (i % kLengthsPerFrame) * width;
  uint64_t word;
  std::memcpy(&word, frame + 1 + bit / 8, 8);
  return static_cast<uint32_t>((word >> (bit % 8)) & ((uint64_t{1} << width) - 1));
}

}  // namespace dps
