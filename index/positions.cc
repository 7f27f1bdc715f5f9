#include "index/positions.h"

#include <algorithm>

#include "common/coding.h"
#include "index/paged_file.h"

namespace dps {

namespace {

uint64_t Blocks(uint64_t df) { return (df + kBlockSize - 1) / kBlockSize; }

// The value stream: each posting's first position, then its gaps minus one.
void ToValues(std::span<const uint32_t> weights, std::span<const uint32_t> positions, std::vector<uint32_t>* out) {
  out->resize(positions.size());
  size_t at = 0;
  for (uint32_t tf : weights) {
    (*out)[at] = positions[at];
    for (size_t i = 1; i < tf; ++i) (*out)[at + i] = positions[at + i] - positions[at + i - 1] - 1;
    at += tf;
  }
}

// Values back to positions for one posting, from v to out (which may be
// v); false past kMaxPosition. Positions ascend, so the last is checked
// alone (a sum of at most 2^32 values below 2^32 each fits 64 bits); out
// is left half written on failure.
bool ToPositions(const uint32_t* v, uint32_t tf, uint32_t* out) {
  uint64_t p = v[0];
  out[0] = v[0];
  for (uint32_t i = 1; i < tf; ++i) {
    p += uint64_t{v[i]} + 1;
    out[i] = static_cast<uint32_t>(p);
  }
  return p <= kMaxPosition;
}

}  // namespace

void EncodePositionList(std::span<const uint32_t> weights, std::span<const uint32_t> positions,
                        std::string* out) {
  PutVarint64(out, positions.size());
  uint64_t sum = 0;
  for (size_t j = 0; j < weights.size(); ++j) {
    if (j > 0 && j % kBlockSize == 0) PutFixed32(out, static_cast<uint32_t>(sum));
    sum += weights[j];
  }
  // The value stream (as ToValues) a block at a time: a frequent term's
  // positions are many megabytes, and a copy of them all was the largest
  // allocation of a small-budget ingest's merge.
  std::string chunks;
  uint32_t block[kBlockSize];
  size_t posting = 0, in_posting = 0;
  for (size_t at = 0; at < positions.size(); at += kBlockSize) {
    const size_t n = std::min(kBlockSize, positions.size() - at);
    for (size_t k = 0; k < n; ++k) {
      const size_t i = at + k;
      while (posting < weights.size() && in_posting == weights[posting]) {
        ++posting;
        in_posting = 0;
      }
      block[k] = in_posting == 0 ? positions[i] : positions[i] - positions[i - 1] - 1;
      ++in_posting;
    }
    if (at > 0) PutFixed32(out, static_cast<uint32_t>(chunks.size()));
    EncodeValueBlock(block, n, &chunks);
  }
  out->append(chunks);
}

void AppendInlinePositions(std::span<const uint32_t> weights, std::span<const uint32_t> positions,
                           std::string* out) {
  std::vector<uint32_t> values;
  ToValues(weights, positions, &values);
  for (uint32_t v : values) PutVarint32(out, v);
}

const uint8_t* ParseInlinePositions(const uint8_t* p, const uint8_t* end, std::span<const uint32_t> weights,
                                    std::vector<uint32_t>* positions) {
  for (uint32_t tf : weights) {
    // A varint is a byte at least: a weight the bytes cannot hold must not
    // size the output (a damaged 2^31 would allocate 8 GB).
    if (tf > static_cast<uint64_t>(end - p)) return nullptr;
    const size_t at = positions->size();
    positions->resize(at + tf);
    for (uint32_t i = 0; i < tf; ++i) {
      p = GetVarint32(p, end, &(*positions)[at + i]);
      if (p == nullptr) return nullptr;
    }
    if (!ToPositions(positions->data() + at, tf, positions->data() + at)) return nullptr;
  }
  return p;
}

const uint8_t* SkipInlinePositions(const uint8_t* p, const uint8_t* end, uint64_t values) {
  for (uint64_t i = 0; i < values; ++i) {
    while (p < end && (*p & 0x80) != 0) ++p;
    if (p >= end) return nullptr;
    ++p;
  }
  return p;
}

std::string PositionReader::Where() const {
  return path_ == nullptr ? where_ : *path_ + ": positions list at offset " + std::to_string(offset_);
}

Status PositionReader::Corrupt(const std::string& what) const {
  return Status::Corruption(Where() + ": positions: " + what);
}

Status PositionReader::PastMaxPosition() const { return Corrupt("a position past " + std::to_string(kMaxPosition)); }

Status PositionReader::Open(std::string_view list, uint64_t df, std::string where) {
  where_ = std::move(where);
  path_ = nullptr;
  file_ = nullptr;
  base_ = reinterpret_cast<const uint8_t*>(list.data());
  end_ = base_ + list.size();
  return OpenVerified(df);
}

Status PositionReader::Open(const PagedFileReader* file, uint64_t offset, uint64_t end, uint64_t df,
                            const std::string* path) {
  path_ = path;
  offset_ = offset;
  if (offset >= end || end > file->body_size()) return Corrupt("list outside its region");
  file_ = file;
  base_ = file->data() + offset;
  end_ = file->data() + end;
  return OpenVerified(df);
}

Status PositionReader::Verify(const uint8_t* from, uint64_t len) const {
  if (file_ == nullptr) return Status::OK();
  len = std::min<uint64_t>(len, static_cast<uint64_t>(end_ - from));
  return file_->Verify(static_cast<uint64_t>(from - file_->data()), len);
}

Status PositionReader::OpenVerified(uint64_t df) {
  df_ = df;
  loaded_ = UINT64_MAX;
  viewed_ = UINT64_MAX;
  DPS_RETURN_IF_ERROR(Verify(base_, 10));  // the head's varint
  const uint8_t* p = GetVarint64(base_, end_, &values_);
  if (p == nullptr) return Corrupt("truncated head");
  // Every posting has at least one position, and a list of df postings has
  // at most df * kMaxDocLength of them.
  if (df == 0 || values_ < df || values_ / df > UINT32_MAX) {
    return Corrupt(std::to_string(values_) + " positions for " + std::to_string(df) + " postings");
  }
  blocks_ = Blocks(df);
  nchunks_ = Blocks(values_);
  const uint64_t tables = 4 * (blocks_ - 1) + 4 * (nchunks_ - 1);
  if (static_cast<uint64_t>(end_ - p) < tables + 1) return Corrupt("truncated tables");
  DPS_RETURN_IF_ERROR(Verify(p, tables));
  starts_ = p;
  ends_ = p + 4 * (blocks_ - 1);
  chunks_ = ends_ + 4 * (nchunks_ - 1);
  return Status::OK();
}

uint64_t PositionReader::BlockStart(size_t block) const {
  return block == 0 ? 0 : DecodeFixed32(starts_ + 4 * (block - 1));
}

// Where value block `chunk` starts and how many values it holds, its bytes
// checksum-verified as far as they may reach: up to the next block's start,
// or for the last block the largest block of its values (head 3, 32-bit
// payload, n exceptions of 32-bit highs). Corruption if it starts past the
// region.
Status PositionReader::ChunkBytes(uint64_t chunk, const uint8_t** from, size_t* n) const {
  const uint64_t at = chunk == 0 ? 0 : DecodeFixed32(ends_ + 4 * (chunk - 1));
  if (at > static_cast<uint64_t>(end_ - chunks_)) return Corrupt("value block " + std::to_string(chunk) + " past the end");
  *n = static_cast<size_t>(std::min<uint64_t>(kBlockSize, values_ - chunk * kBlockSize));
  const uint64_t most = chunk + 1 < nchunks_
                            ? DecodeFixed32(ends_ + 4 * chunk) - std::min<uint64_t>(at, DecodeFixed32(ends_ + 4 * chunk))
                            : 3 + PayloadSize(*n, 32) + *n + 4 * *n;
  *from = chunks_ + at;
  return Verify(*from, most);
}

Status PositionReader::EndsOnTable(uint64_t chunk, const uint8_t* after) const {
  if (chunk + 1 < nchunks_ && static_cast<uint64_t>(after - chunks_) != DecodeFixed32(ends_ + 4 * chunk)) {
    return Corrupt("value block " + std::to_string(chunk) + " ends off its table entry");
  }
  return Status::OK();
}

Status PositionReader::ReadChunk(uint64_t chunk, bool whole) {
  uint64_t& held = whole ? loaded_ : viewed_;
  if (chunk == held) return Status::OK();
  // Forgotten first: a block that fails leaves buf_ or view_ half set,
  // never to be taken for the block held before.
  held = UINT64_MAX;
  const uint8_t* from = nullptr;
  size_t n = 0;
  DPS_RETURN_IF_ERROR(ChunkBytes(chunk, &from, &n));
  const uint8_t* after = whole                       ? DecodeValueBlock(from, end_, n, buf_)
                         : view_.Open(from, end_, n) ? view_.end()
                                                     : nullptr;
  if (after == nullptr) return Corrupt("value block " + std::to_string(chunk) + " does not decode");
  DPS_RETURN_IF_ERROR(EndsOnTable(chunk, after));
  held = chunk;
  return Status::OK();
}

Status PositionReader::CopyValues(uint64_t start, uint32_t tf, uint32_t* out) {
  for (uint64_t v = start; v < start + tf;) {
    DPS_RETURN_IF_ERROR(ReadChunk(v / kBlockSize, /*whole=*/true));
    const uint64_t upto = std::min(start + tf, (v / kBlockSize + 1) * kBlockSize);
    std::copy(buf_ + v % kBlockSize, buf_ + v % kBlockSize + (upto - v), out + (v - start));
    v = upto;
  }
  return Status::OK();
}

Status PositionReader::Get(size_t block, uint64_t in_block, uint32_t tf, uint32_t* out) {
  const uint32_t b = block > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(block);
  return GetMany(&b, &in_block, &tf, 1, out);
}

Status PositionReader::GetMany(const uint32_t* blocks, const uint64_t* in_blocks, const uint32_t* tfs, size_t m,
                               uint32_t* out) {
  uint64_t next = 0;  // where the next posting may start: postings do not overlap
  uint64_t chunk_seen = UINT64_MAX;  // the block whose demand was counted last
  uint64_t demand = 0;               // values the batch asks of it
  for (size_t i = 0; i < m; ++i) {
    if (blocks[i] >= blocks_) return Corrupt("doc block " + std::to_string(blocks[i]) + " of " + std::to_string(blocks_));
    const uint64_t start = BlockStart(blocks[i]) + in_blocks[i];
    const uint32_t tf = tfs[i];
    if (tf == 0 || start < next || start + tf > values_) {
      return Corrupt("values " + std::to_string(start) + "+" + std::to_string(tf) + " of " + std::to_string(values_));
    }
    next = start + tf;
    const uint64_t chunk = start / kBlockSize;
    const bool one_block = (next - 1) / kBlockSize == chunk;
    if (chunk == loaded_ && one_block) {
      if (!ToPositions(buf_ + start % kBlockSize, tf, out)) return PastMaxPosition();
      out += tf;
      continue;
    }
    if (chunk != chunk_seen) {
      // How many values the batch asks of this block, from this posting on.
      chunk_seen = chunk;
      demand = 0;
      const uint64_t chunk_end = (chunk + 1) * kBlockSize;
      for (size_t j = i; j < m && demand <= kMaxValuesInPlace; ++j) {
        if (blocks[j] >= blocks_) break;
        const uint64_t s = BlockStart(blocks[j]) + in_blocks[j];
        if (s >= chunk_end) break;
        demand += std::min<uint64_t>(tfs[j], chunk_end - s);
      }
    }
    if (demand <= kMaxValuesInPlace && one_block) {
      DPS_RETURN_IF_ERROR(ReadChunk(chunk, /*whole=*/false));
      for (uint32_t k = 0; k < tf; ++k) out[k] = view_.At(start % kBlockSize + k);
    } else {
      DPS_RETURN_IF_ERROR(CopyValues(start, tf, out));
    }
    if (!ToPositions(out, tf, out)) return PastMaxPosition();
    out += tf;
  }
  return Status::OK();
}

Status PositionReader::GetRun(uint32_t block, const uint64_t* in_blocks, const uint32_t* tfs, size_t m,
                              uint32_t* out) {
  if (block >= blocks_) return Corrupt("doc block " + std::to_string(block) + " of " + std::to_string(blocks_));
  const uint64_t base = BlockStart(block);
  const uint64_t values = values_;  // a local: stores to out could alias members
  for (size_t i = 0; i < m; ++i) {
    const uint64_t start = base + in_blocks[i];
    const uint32_t tf = tfs[i];
    if (tf == 0 || start >= values || tf > values - start) {
      return Corrupt("values " + std::to_string(start) + "+" + std::to_string(tf) + " of " + std::to_string(values));
    }
    const uint64_t chunk = start / kBlockSize;
    if ((start + tf - 1) / kBlockSize == chunk) {
      if (chunk != loaded_) DPS_RETURN_IF_ERROR(ReadChunk(chunk, /*whole=*/true));
      if (!ToPositions(buf_ + start % kBlockSize, tf, out)) return PastMaxPosition();
    } else {
      DPS_RETURN_IF_ERROR(CopyValues(start, tf, out));
      if (!ToPositions(out, tf, out)) return PastMaxPosition();
    }
    out += tf;
  }
  return Status::OK();
}

Status PositionReader::Values(uint64_t start, uint32_t tf, bool whole, uint32_t* scratch, const uint32_t** out) {
  const uint64_t chunk = start / kBlockSize;
  if ((start + tf - 1) / kBlockSize != chunk) {
    DPS_RETURN_IF_ERROR(CopyValues(start, tf, scratch));
    *out = scratch;
    return Status::OK();
  }
  DPS_RETURN_IF_ERROR(ReadChunk(chunk, whole));
  if (whole) {
    *out = buf_ + start % kBlockSize;
    return Status::OK();
  }
  for (uint32_t k = 0; k < tf; ++k) scratch[k] = view_.At(start % kBlockSize + k);
  *out = scratch;
  return Status::OK();
}

Status PositionReader::CheckWhole(std::span<const uint32_t> weights, const uint8_t** end_out) {
  if (weights.size() != df_) return Corrupt("checked with " + std::to_string(weights.size()) + " weights");
  uint64_t sum = 0;
  for (size_t j = 0; j < weights.size(); ++j) {
    if (j % kBlockSize == 0 && BlockStart(j / kBlockSize) != sum) {
      return Corrupt("doc block " + std::to_string(j / kBlockSize) + " starts at value " +
                     std::to_string(BlockStart(j / kBlockSize)) + ", its weights say " + std::to_string(sum));
    }
    sum += weights[j];
  }
  if (sum != values_) return Corrupt(std::to_string(values_) + " values, the weights sum to " + std::to_string(sum));
  // Every value block decoded whole (Get may read values in place, which
  // does not check a block's exception list).
  for (uint64_t chunk = 0; chunk < nchunks_; ++chunk) DPS_RETURN_IF_ERROR(ReadChunk(chunk, /*whole=*/true));
  std::vector<uint32_t> out;
  uint64_t in_block = 0;
  for (size_t j = 0; j < weights.size(); ++j) {
    if (j % kBlockSize == 0) in_block = 0;
    out.resize(weights[j]);
    DPS_RETURN_IF_ERROR(Get(j / kBlockSize, in_block, weights[j], out.data()));
    in_block += weights[j];
  }
  // The last value block's end is the list's.
  const uint64_t last = nchunks_ - 1;
  const uint64_t from = last == 0 ? 0 : DecodeFixed32(ends_ + 4 * (last - 1));
  const uint8_t* after = SkipBlock(chunks_ + from, end_, static_cast<size_t>(values_ - last * kBlockSize));
  if (after == nullptr) return Corrupt("the last value block does not decode");
  *end_out = after;
  return Status::OK();
}

Status PostingPositions::OpenInline(std::string_view bytes, std::span<const uint32_t> weights,
                                    const std::string& where) {
  inline_ = true;
  df_ = weights.size();
  inline_values_.clear();
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const auto* end = p + bytes.size();
  const uint8_t* parsed = ParseInlinePositions(p, end, weights, &inline_values_);
  if (parsed == nullptr || parsed != end) {  // (an empty view with no data ends at nullptr)
    return Status::Corruption(where + ": positions: malformed inline positions");
  }
  return Status::OK();
}

Status PostingPositions::CopyInline(uint32_t block, uint64_t in_block, uint32_t tf, uint32_t** out) const {
  if (block != 0 || tf == 0 || in_block + tf > inline_values_.size()) {
    return Status::Corruption("inline positions: posting out of range");
  }
  *out = std::copy_n(inline_values_.begin() + static_cast<ptrdiff_t>(in_block), tf, *out);
  return Status::OK();
}

Status PostingPositions::GetMany(const uint32_t* blocks, const uint64_t* in_blocks, const uint32_t* tfs, size_t m,
                                 uint32_t* out) {
  if (!inline_) return reader_.GetMany(blocks, in_blocks, tfs, m, out);
  for (size_t i = 0; i < m; ++i) DPS_RETURN_IF_ERROR(CopyInline(blocks[i], in_blocks[i], tfs[i], &out));
  return Status::OK();
}

Status PostingPositions::GetRun(uint32_t block, const uint64_t* in_blocks, const uint32_t* tfs, size_t m,
                                uint32_t* out) {
  if (!inline_) return reader_.GetRun(block, in_blocks, tfs, m, out);
  for (size_t i = 0; i < m; ++i) DPS_RETURN_IF_ERROR(CopyInline(block, in_blocks[i], tfs[i], &out));
  return Status::OK();
}

Status PostingPositions::Get(uint32_t block, uint64_t in_block, uint32_t tf, uint32_t* out) {
  if (!inline_) return reader_.Get(block, in_block, tf, out);
  return CopyInline(block, in_block, tf, &out);
}

}  // namespace dps
