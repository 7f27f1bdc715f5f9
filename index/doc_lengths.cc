#include "index/doc_lengths.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "common/coding.h"
#include "index/packed_frames.h"

namespace dps {

void EncodeDocLengths(const std::vector<uint32_t>& lengths, std::string* out) {
  uint64_t total = 0;
  for (uint32_t l : lengths) total += l;
  std::string prefix, frames;
  PutFixed64(&prefix, total);
  std::vector<uint32_t> starts;
  std::vector<uint64_t> values;
  for (size_t first = 0; first < lengths.size(); first += kLengthsPerFrame) {
    const size_t n = std::min<size_t>(kLengthsPerFrame, lengths.size() - first);
    values.assign(lengths.begin() + static_cast<ptrdiff_t>(first), lengths.begin() + static_cast<ptrdiff_t>(first + n));
    const unsigned width = static_cast<unsigned>(std::bit_width(*std::max_element(values.begin(), values.end())));
    starts.push_back(static_cast<uint32_t>(frames.size()));
    frames.push_back(static_cast<char>(width));
    AppendPacked(values.data(), n, width, &frames);
  }
  AppendFrameRegion(prefix, frames, starts, out);
}

Status DocLengthsReader::Open(std::string_view region, DocId min_docid, DocId max_docid, const std::string& where) {
  auto bad = [&](const std::string& what) { return Status::Corruption(where + ": document lengths: " + what); };
  if (max_docid < min_docid || region.size() < 8) return bad("region too short");
  data_ = reinterpret_cast<const uint8_t*>(region.data());
  min_docid_ = min_docid;
  total_ = DecodeFixed64(data_);
  const uint64_t frames = FrameCount(min_docid, max_docid);
  uint64_t sum = 0;
  std::string error = ReadFrameTable(
      region, 8, frames,
      [&](uint64_t f, const uint8_t* frame, uint64_t span) -> std::string {
        const unsigned width = frame[0];
        if (width > 32) return "width " + std::to_string(width);
        const uint32_t n = FrameSlots(min_docid, max_docid, f);
        if (span != 1 + PackedBytes(n, width)) return "size " + std::to_string(span);
        if (!PackedTailIsZero(frame + 1, n, width)) return "padding bits";
        for (uint32_t i = 0; i < n; ++i) sum += LoadPacked(frame + 1, i, width);
        return "";
      },
      &frame_offsets_);
  if (!error.empty()) return bad(error);
  if (sum != total_) return bad("total " + std::to_string(total_) + " is not the sum " + std::to_string(sum));
  return Status::OK();
}

}  // namespace dps
