#include "index/doc_store.h"

#include <zstd.h>

#include <algorithm>
#include <memory>

#include "common/coding.h"
#include "index/front_coding.h"

namespace dps {

namespace {

// The titles of a block, front-coded (index/front_coding.h).
void PutTitles(std::string* out, const std::vector<std::string>& column) {
  std::string_view prev;
  for (const std::string& s : column) {
    PutFrontCoded(out, prev, s);
    prev = s;
  }
}

// Decodes n front-coded strings from [p, end), appending them to `strings`
// and their spans to `spans`. nullptr on malformed input.
const uint8_t* GetTitles(const uint8_t* p, const uint8_t* end, size_t n, std::string* strings,
                         std::vector<std::pair<uint32_t, uint32_t>>* spans) {
  std::string cur;
  for (size_t i = 0; i < n; ++i) {
    p = GetFrontCoded(p, end, &cur);
    if (p == nullptr || strings->size() + cur.size() > kMaxDocBlockRaw) return nullptr;
    spans->emplace_back(static_cast<uint32_t>(strings->size()), static_cast<uint32_t>(cur.size()));
    strings->append(cur);
  }
  return p;
}

std::string Compress(std::string_view raw, int level) {
  std::string out(ZSTD_compressBound(raw.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), level);
  // ZSTD_compress only fails on a too-small buffer, impossible with the bound.
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

std::string_view Span(const std::string& s, std::pair<uint32_t, uint32_t> span) {
  return std::string_view(s).substr(span.first, span.second);
}

}  // namespace

Status DocStoreWriter::Add(DocId docid, std::string_view id, std::string_view title,
                           std::string_view text) {
  DPS_RETURN_IF_ERROR(ids_.Add(docid, id));
  last_id_.assign(id);
  docids_.push_back(docid);
  titles_.emplace_back(title);
  PutLengthPrefixed(&texts_, text);
  any_text_ |= !text.empty();
  raw_bytes_ += id.size() + title.size() + text.size() + 3;
  if (raw_bytes_ >= kDocBlockTarget) return FlushBlock();
  return Status::OK();
}

Status DocStoreWriter::FlushBlock() {
  if (docids_.empty()) return Status::OK();
  const size_t n = docids_.size();
  std::string meta;
  PutVarint64(&meta, n);
  for (size_t i = 1; i < n; ++i) PutVarint32(&meta, docids_[i] - docids_[i - 1]);
  PutTitles(&meta, titles_);
  const std::string meta_z = Compress(meta, kDocMetaZstdLevel);
  // What a reader would refuse must not be written.
  if (meta.size() > kMaxDocBlockRaw || texts_.size() > kMaxDocBlockRaw) {
    return Status::InvalidArgument("document " + last_id_ + ": over 256 MiB of stored text");
  }
  const std::string text_z = any_text_ ? Compress(texts_, zstd_level_) : std::string();
  if (region_bytes_ + meta_z.size() + text_z.size() > UINT32_MAX) {
    return Status::InvalidArgument("a bin's stored documents over 4 GiB in one file");
  }
  PutFixed32(&index_, docids_[0]);
  PutFixed32(&index_, static_cast<uint32_t>(region_bytes_));
  PutFixed32(&index_, static_cast<uint32_t>(meta_z.size()));
  PutFixed32(&index_, static_cast<uint32_t>(meta.size()));
  PutFixed32(&index_, static_cast<uint32_t>(text_z.size()));
  PutFixed32(&index_, any_text_ ? static_cast<uint32_t>(texts_.size()) : 0);
  region_bytes_ += meta_z.size() + text_z.size();
  docids_.clear();
  titles_.clear();
  texts_.clear();
  any_text_ = false;
  raw_bytes_ = 0;
  ++blocks_;
  DPS_RETURN_IF_ERROR(sink_(meta_z));
  return text_z.empty() ? Status::OK() : sink_(text_z);
}

Status DocStoreWriter::Finish(std::string* id_column) {
  DPS_RETURN_IF_ERROR(FlushBlock());
  DPS_RETURN_IF_ERROR(ids_.Finish(id_column));
  std::string tail = std::move(index_);
  PutFixed32(&tail, blocks_);
  Status s = sink_(tail);
  index_.clear();
  blocks_ = 0;
  region_bytes_ = 0;
  return s;
}

std::string DocStoreReader::Where(uint64_t rel) const {
  return file_->path() + ": doc store at offset " + std::to_string(offset_ + rel);
}

Status DocStoreReader::Open(const PagedFileReader* file, const DocStoreRegions& regions,
                            const DocStoreShape& shape) {
  const uint64_t offset = regions.docs_offset, len = regions.docs_len;
  file_ = file;
  offset_ = offset;
  blocks_ = 0;
  shape_ = shape;
  if ((len == 0) != (shape.num_docs == 0)) {
    return Status::Corruption(Where(0) + ": " + std::to_string(len) + " bytes for " +
                              std::to_string(shape.num_docs) + " documents");
  }
  if ((regions.ids_len == 0) != (shape.num_docs == 0) || shape.min_docid > shape.max_docid) {
    return Status::Corruption(Where(0) + ": an id column of " + std::to_string(regions.ids_len) + " bytes for " +
                              std::to_string(shape.num_docs) + " documents");
  }
  if (len == 0) return Status::OK();
  DPS_ASSIGN_OR_RETURN(std::string_view ids, file->Read(regions.ids_offset, regions.ids_len));
  DPS_RETURN_IF_ERROR(ids_.Open(ids, shape.min_docid, shape.max_docid, shape.num_docs,
                                file->path() + ": offset " + std::to_string(regions.ids_offset)));
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
  uint64_t expected_offset = 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    const uint8_t* e = index_ + b * kDocBlockIndexEntrySize;
    const uint64_t off = DecodeFixed32(e + 4), meta_comp = DecodeFixed32(e + 8);
    const uint64_t meta_raw = DecodeFixed32(e + 12), text_comp = DecodeFixed32(e + 16);
    const uint64_t text_raw = DecodeFixed32(e + 20);
    // Blocks are back to back, a meta frame each; a text frame iff texts.
    // The first block starts at the bin's smallest docid; no text frames
    // in a file that stores no text.
    if (off != expected_offset || meta_comp == 0 || meta_raw == 0 ||
        meta_comp + text_comp > index_at - off || meta_raw > kMaxDocBlockRaw ||
        text_raw > kMaxDocBlockRaw || (text_comp == 0) != (text_raw == 0) ||
        (text_comp != 0 && !shape.stores_text) || (b == 0 && DecodeFixed32(e) != shape.min_docid) ||
        DecodeFixed32(e) > shape.max_docid ||
        (b > 0 && DecodeFixed32(e) <= DecodeFixed32(e - kDocBlockIndexEntrySize))) {
      return Status::Corruption(Where(index_at + b * kDocBlockIndexEntrySize) +
                                ": bad block index entry " + std::to_string(b));
    }
    expected_offset = off + meta_comp + text_comp;
  }
  if (blocks == 0 || expected_offset != index_at) {
    return Status::Corruption(Where(index_at) + ": blocks end at " +
                              std::to_string(expected_offset) + ", not at the block index");
  }
  blocks_ = blocks;
  return Status::OK();
}

namespace {

// Decompresses one frame of exactly `raw_len` bytes into `out`.
bool Decompress(std::string_view frame, uint32_t raw_len, std::string* out, std::string* error) {
  out->resize(raw_len);
  // One decompression context per thread: ZSTD_decompress would allocate
  // and initialise one per block.
  thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(),
                                                                       ZSTD_freeDCtx);
  const size_t n = ZSTD_decompressDCtx(dctx.get(), out->data(), out->size(), frame.data(), frame.size());
  if (!ZSTD_isError(n) && n == raw_len) return true;
  *error = ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong length";
  return false;
}

}  // namespace

Status DocStoreReader::ReadMeta(uint32_t block, DocBlockCache* cache) const {
  cache->reader = nullptr;
  cache->docids.clear();
  cache->strings.clear();
  cache->titles.clear();
  cache->text_loaded = false;
  cache->texts.clear();
  const uint8_t* e = index_ + block * kDocBlockIndexEntrySize;
  const uint32_t first = DecodeFixed32(e), off = DecodeFixed32(e + 4);
  const uint32_t comp = DecodeFixed32(e + 8), raw_len = DecodeFixed32(e + 12);
  auto malformed = [&](const std::string& what) {
    cache->docids.clear();
    return Status::Corruption(Where(off) + ": block " + std::to_string(block) + ": " + what);
  };
  DPS_ASSIGN_OR_RETURN(std::string_view bytes, file_->Read(offset_ + off, comp));
  std::string raw, error;
  if (!Decompress(bytes, raw_len, &raw, &error)) return malformed("zstd: " + error);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(raw.data());
  const uint8_t* end = p + raw.size();
  uint64_t n;
  p = GetVarint64(p, end, &n);
  if (p == nullptr || n == 0 || n > kMaxDocBlockRecords) return malformed("bad record count");
  cache->docids.reserve(n);
  cache->docids.push_back(first);
  for (uint64_t i = 1; i < n; ++i) {
    uint32_t gap;
    p = GetVarint32(p, end, &gap);
    if (p == nullptr || gap == 0 || uint64_t{cache->docids.back()} + gap > kMaxDocId) {
      return malformed("bad docid gap");
    }
    cache->docids.push_back(cache->docids.back() + gap);
  }
  // Blocks hold ascending, disjoint docid ranges within the bin's.
  const DocId limit = block + 1 < blocks_
                          ? DecodeFixed32(index_ + (block + 1) * kDocBlockIndexEntrySize) - 1
                          : shape_.max_docid;
  if (cache->docids.back() > limit) return malformed("docids past the block's range");
  p = GetTitles(p, end, n, &cache->strings, &cache->titles);
  if (p != end) return malformed(p == nullptr ? "bad title" : "bytes after the titles");
  cache->reader = this;
  cache->block = block;
  return Status::OK();
}

Status DocStoreReader::ReadText(DocBlockCache* cache) const {
  const uint8_t* e = index_ + cache->block * kDocBlockIndexEntrySize;
  const uint32_t off = DecodeFixed32(e + 4) + DecodeFixed32(e + 8);
  const uint32_t comp = DecodeFixed32(e + 16), raw_len = DecodeFixed32(e + 20);
  const size_t n = cache->docids.size();
  cache->texts.clear();
  if (comp == 0) {  // every text of the block is empty
    cache->text.clear();
    cache->texts.assign(n, {0, 0});
    cache->text_loaded = true;
    return Status::OK();
  }
  auto malformed = [&](const std::string& what) {
    cache->texts.clear();
    return Status::Corruption(Where(off) + ": block " + std::to_string(cache->block) +
                              " texts: " + what);
  };
  DPS_ASSIGN_OR_RETURN(std::string_view bytes, file_->Read(offset_ + off, comp));
  std::string error;
  if (!Decompress(bytes, raw_len, &cache->text, &error)) return malformed("zstd: " + error);
  const uint8_t* base = reinterpret_cast<const uint8_t*>(cache->text.data());
  const uint8_t* p = base;
  const uint8_t* end = base + cache->text.size();
  for (size_t i = 0; i < n; ++i) {
    std::string_view s;
    p = GetLengthPrefixed(p, end, &s);
    if (p == nullptr) return malformed("malformed text");
    cache->texts.emplace_back(static_cast<uint32_t>(reinterpret_cast<const uint8_t*>(s.data()) - base),
                              static_cast<uint32_t>(s.size()));
  }
  if (p != end) return malformed("bytes after the last text");
  cache->text_loaded = true;
  return Status::OK();
}

Status DocStoreReader::Get(DocId docid, StoredDoc* doc, DocBlockCache* cache, bool with_text,
                           bool with_titles) const {
  if (blocks_ == 0) return Status::NotFound("docid " + std::to_string(docid));
  DPS_RETURN_IF_ERROR(ids_.Get(docid, &doc->id));
  doc->docid = docid;
  doc->title.clear();
  doc->text.clear();
  if (!with_titles && !with_text) return Status::OK();
  // Last block whose first docid <= docid (the id column found it, so one is).
  uint32_t lo = 0, hi = blocks_;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (DecodeFixed32(index_ + mid * kDocBlockIndexEntrySize) <= docid) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  DocBlockCache local;
  DocBlockCache& c = cache != nullptr ? *cache : local;
  if (lo > 0 && (c.reader != this || c.block != lo - 1)) DPS_RETURN_IF_ERROR(ReadMeta(lo - 1, &c));
  auto it = std::lower_bound(c.docids.begin(), c.docids.end(), docid);
  if (lo == 0 || it == c.docids.end() || *it != docid) {
    return Status::Corruption(Where(0) + ": docid " + std::to_string(docid) +
                              " is in the id column but in no block");
  }
  const size_t i = static_cast<size_t>(it - c.docids.begin());
  if (with_titles) doc->title.assign(Span(c.strings, c.titles[i]));
  if (with_text) {
    if (!c.text_loaded) DPS_RETURN_IF_ERROR(ReadText(&c));
    doc->text.assign(Span(c.text, c.texts[i]));
  }
  return Status::OK();
}

Status DocStoreReader::CheckWhole(uint64_t records, DocId last) const {
  if (records == shape_.num_docs && (records == 0 || last == shape_.max_docid)) return Status::OK();
  return Status::Corruption(Where(0) + ": " + std::to_string(records) + " documents up to docid " +
                            std::to_string(last) + ", the bin says " + std::to_string(shape_.num_docs) +
                            " up to " + std::to_string(shape_.max_docid));
}

Status DocStoreReader::ReadAll(std::vector<StoredDoc>* docs) const {
  const size_t first = docs->size();
  DPS_RETURN_IF_ERROR(ForEachId([&](DocId d, std::string_view id) {
    StoredDoc& doc = docs->emplace_back();
    doc.docid = d;
    doc.id.assign(id);
  }));
  DocBlockCache c;
  uint64_t records = 0;
  DocId last = 0;
  for (uint32_t b = 0; b < blocks_; ++b) {
    DPS_RETURN_IF_ERROR(ReadMeta(b, &c));
    DPS_RETURN_IF_ERROR(ReadText(&c));
    last = c.docids.back();
    for (size_t i = 0; i < c.docids.size(); ++i, ++records) {
      // The id column and the meta frames must name the same docids.
      if (first + records >= docs->size() || (*docs)[first + records].docid != c.docids[i]) {
        return Status::Corruption(Where(0) + ": block " + std::to_string(b) + " holds docid " +
                                  std::to_string(c.docids[i]) + ", the id column does not");
      }
      StoredDoc& doc = (*docs)[first + records];
      doc.title.assign(Span(c.strings, c.titles[i]));
      doc.text.assign(Span(c.text, c.texts[i]));
    }
  }
  return CheckWhole(records, last);
}

Status DocStoreReader::ForEachId(const std::function<void(DocId, std::string_view)>& fn) const {
  // The id column's Open checked its documents against the bin's.
  return blocks_ == 0 ? Status::OK() : ids_.ForEach(fn);
}

}  // namespace dps
