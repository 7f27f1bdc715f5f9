#include "index/doc_store.h"

#include <zstd.h>

#include <algorithm>
#include <memory>

#include "common/coding.h"

namespace dps {

Status DocStoreWriter::Add(DocId docid, std::string_view id, std::string_view title,
                           std::string_view text) {
  if (raw_.empty()) {
    block_first_ = docid;
    last_ = docid;
  }
  PutVarint32(&raw_, docid - last_);
  last_ = docid;
  PutLengthPrefixed(&raw_, id);
  PutLengthPrefixed(&raw_, title);
  PutLengthPrefixed(&raw_, text);
  if (raw_.size() >= kDocBlockTarget) return FlushBlock();
  return Status::OK();
}

Status DocStoreWriter::FlushBlock() {
  if (raw_.empty()) return Status::OK();
  std::string compressed(ZSTD_compressBound(raw_.size()), '\0');
  size_t n = ZSTD_compress(compressed.data(), compressed.size(), raw_.data(), raw_.size(),
                           zstd_level_);
  // ZSTD_compress only fails on a too-small buffer, impossible with the bound.
  compressed.resize(ZSTD_isError(n) ? 0 : n);
  PutFixed32(&index_, block_first_);
  PutFixed32(&index_, static_cast<uint32_t>(region_bytes_));
  PutFixed32(&index_, static_cast<uint32_t>(compressed.size()));
  PutFixed32(&index_, static_cast<uint32_t>(raw_.size()));
  region_bytes_ += compressed.size();
  raw_.clear();
  ++blocks_;
  return sink_(compressed);
}

Status DocStoreWriter::Finish() {
  DPS_RETURN_IF_ERROR(FlushBlock());
  std::string tail = std::move(index_);
  PutFixed32(&tail, blocks_);
  Status s = sink_(tail);
  index_.clear();
  raw_.clear();
  blocks_ = 0;
  region_bytes_ = 0;
  return s;
}

std::string DocStoreReader::Where(uint64_t rel) const {
  return file_->path() + ": doc store at offset " + std::to_string(offset_ + rel);
}

Status DocStoreReader::Open(const PagedFileReader* file, uint64_t offset, uint64_t len) {
  file_ = file;
  offset_ = offset;
  len_ = len;
  blocks_ = 0;
  if (len == 0) return Status::OK();
  if (len < 4) return Status::Corruption(Where(0) + ": region too short");
  DPS_ASSIGN_OR_RETURN(std::string_view count, file->Read(offset + len - 4, 4));
  const uint32_t blocks = DecodeFixed32(reinterpret_cast<const uint8_t*>(count.data()));
  if (uint64_t{blocks} * kDocBlockIndexEntrySize > len - 4) {
    return Status::Corruption(Where(len - 4) + ": block count " + std::to_string(blocks) +
                              " does not fit the region");
  }
  const uint64_t index_at = len - 4 - uint64_t{blocks} * kDocBlockIndexEntrySize;
  DPS_ASSIGN_OR_RETURN(std::string_view index,
                       file->Read(offset + index_at, uint64_t{blocks} * kDocBlockIndexEntrySize));
  index_ = reinterpret_cast<const uint8_t*>(index.data());
  for (uint32_t b = 0; b < blocks; ++b) {
    const uint8_t* e = index_ + b * kDocBlockIndexEntrySize;
    const uint64_t off = DecodeFixed32(e + 4), comp = DecodeFixed32(e + 8);
    if (off > index_at || comp > index_at - off || DecodeFixed32(e + 12) > kMaxDocBlockRaw ||
        (b > 0 && DecodeFixed32(e) <= DecodeFixed32(e - kDocBlockIndexEntrySize))) {
      return Status::Corruption(Where(index_at + b * kDocBlockIndexEntrySize) +
                                ": bad block index entry " + std::to_string(b));
    }
  }
  blocks_ = blocks;
  return Status::OK();
}

Status DocStoreReader::ReadBlock(uint32_t block, DocBlockCache* cache) const {
  cache->reader = nullptr;
  cache->records.clear();
  const uint8_t* e = index_ + block * kDocBlockIndexEntrySize;
  const uint32_t first = DecodeFixed32(e), off = DecodeFixed32(e + 4);
  const uint32_t comp = DecodeFixed32(e + 8), raw_len = DecodeFixed32(e + 12);
  DPS_ASSIGN_OR_RETURN(std::string_view bytes, file_->Read(offset_ + off, comp));
  std::string& raw = cache->raw;
  raw.resize(raw_len);
  // One decompression context per thread: ZSTD_decompress would allocate
  // and initialise one per block.
  thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  size_t n = ZSTD_decompressDCtx(dctx.get(), raw.data(), raw.size(), bytes.data(), bytes.size());
  if (ZSTD_isError(n) || n != raw_len) {
    return Status::Corruption(Where(off) + ": block " + std::to_string(block) + ": zstd: " +
                              (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong length"));
  }
  const uint8_t* base = reinterpret_cast<const uint8_t*>(raw.data());
  const uint8_t* p = base;
  const uint8_t* end = p + raw.size();
  DocId docid = first;
  bool first_record = true;
  while (p < end) {
    uint32_t delta;
    std::string_view id, title, text;
    p = GetVarint32(p, end, &delta);
    const uint8_t* record = p;
    if (p != nullptr) p = GetLengthPrefixed(p, end, &id);
    if (p != nullptr) p = GetLengthPrefixed(p, end, &title);
    if (p != nullptr) p = GetLengthPrefixed(p, end, &text);
    if (p == nullptr || (first_record ? delta != 0 : delta == 0) ||
        uint64_t{docid} + delta > kMaxDocId) {
      cache->records.clear();
      return Status::Corruption(Where(off) + ": block " + std::to_string(block) +
                                ": malformed record");
    }
    docid += delta;
    first_record = false;
    cache->records.emplace_back(docid, static_cast<uint32_t>(record - base));
  }
  cache->reader = this;
  cache->block = block;
  return Status::OK();
}

namespace {

// A record ReadBlock has validated: three length-prefixed strings.
void DecodeRecord(const DocBlockCache& c, size_t i, StoredDoc* doc) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(c.raw.data()) + c.records[i].second;
  const uint8_t* end = reinterpret_cast<const uint8_t*>(c.raw.data()) + c.raw.size();
  std::string_view id, title, text;
  p = GetLengthPrefixed(p, end, &id);
  p = GetLengthPrefixed(p, end, &title);
  GetLengthPrefixed(p, end, &text);
  doc->docid = c.records[i].first;
  doc->id.assign(id);
  doc->title.assign(title);
  doc->text.assign(text);
}

}  // namespace

Status DocStoreReader::Get(DocId docid, StoredDoc* doc, DocBlockCache* cache) const {
  // Last block whose first docid <= docid.
  uint32_t lo = 0, hi = blocks_;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (DecodeFixed32(index_ + mid * kDocBlockIndexEntrySize) <= docid) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return Status::NotFound("docid " + std::to_string(docid));
  DocBlockCache local;
  DocBlockCache& c = cache != nullptr ? *cache : local;
  if (c.reader != this || c.block != lo - 1) DPS_RETURN_IF_ERROR(ReadBlock(lo - 1, &c));
  auto it = std::lower_bound(c.records.begin(), c.records.end(), docid,
                             [](const auto& r, DocId id) { return r.first < id; });
  if (it != c.records.end() && it->first == docid) {
    DecodeRecord(c, it - c.records.begin(), doc);
    return Status::OK();
  }
  return Status::NotFound("docid " + std::to_string(docid));
}

Status DocStoreReader::ReadAll(std::vector<StoredDoc>* docs) const {
  DocBlockCache c;
  for (uint32_t b = 0; b < blocks_; ++b) {
    DPS_RETURN_IF_ERROR(ReadBlock(b, &c));
    for (size_t i = 0; i < c.records.size(); ++i) {
      docs->emplace_back();
      DecodeRecord(c, i, &docs->back());
    }
  }
  return Status::OK();
}

}  // namespace dps
