#include "index/doc_store.h"

#include <zstd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <memory>

#include "common/coding.h"

namespace dps {

namespace {

enum IdKind : uint8_t { kIdStrings = 0, kIdDecimal = 1, kIdDecimalRice = 2 };

// Rice codes (Golomb codes with a power-of-two divisor 2^k) of zigzagged
// deltas: a quotient below kRiceEscape in unary (ones, then a zero), then
// the k low bits; a larger quotient as kRiceEscape ones and the 64-bit
// value. Ids like byte offsets or sparse serial numbers have deltas of
// similar size that zstd cannot shrink much as varints (gcide: 10-11 bits
// of information, 16 bits of varint).
constexpr int kRiceEscape = 48;
constexpr int kMaxRiceK = 56;

class BitWriter {
 public:
  explicit BitWriter(std::string* out) : out_(out) {}
  void Put(uint64_t v, int bits) {  // LSB first, bits <= 64
    for (int i = 0; i < bits; i += 32) {
      const int take = std::min(32, bits - i);
      acc_ |= ((v >> i) & ((uint64_t{1} << take) - 1)) << used_;
      used_ += take;
      while (used_ >= 8) {
        out_->push_back(static_cast<char>(acc_));
        acc_ >>= 8;
        used_ -= 8;
      }
    }
  }
  void Flush() {
    if (used_ > 0) out_->push_back(static_cast<char>(acc_));
    acc_ = 0;
    used_ = 0;
  }

 private:
  std::string* out_;
  uint64_t acc_ = 0;
  int used_ = 0;
};

// Reads an LSB-first bit stream through a 56-bit window.
class BitReader {
 public:
  BitReader(const uint8_t* p, const uint8_t* end) : p_(p), bits_(8 * static_cast<size_t>(end - p)) {}
  // The next (at least 56) bits, zero past the end.
  uint64_t Window() const {
    const size_t byte = pos_ >> 3;
    uint64_t w = 0;
    std::memcpy(&w, p_ + byte, std::min<size_t>(8, bits_ / 8 - byte));
    return w >> (pos_ & 7);
  }
  bool Skip(size_t bits) {
    if (bits > bits_ - pos_) return false;
    pos_ += bits;
    return true;
  }
  bool Get(int bits, uint64_t* v) {  // bits <= 56
    *v = Window() & ((uint64_t{1} << bits) - 1);
    return Skip(static_cast<size_t>(bits));
  }
  // The byte after the last bit read (the stream is padded to a byte).
  const uint8_t* End() const { return p_ + (pos_ + 7) / 8; }
  size_t Position() const { return pos_; }

 private:
  const uint8_t* p_;
  size_t bits_;
  size_t pos_ = 0;
};

void PutRice(std::string* out, const std::vector<uint64_t>& zigzags) {
  // k near log2 of the median: most quotients are then 0 or 1, and a few
  // outliers take the escape rather than widening every code.
  std::vector<uint64_t> sorted = zigzags;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const int k = std::min(kMaxRiceK, std::max(0, static_cast<int>(std::bit_width(sorted[sorted.size() / 2])) - 1));
  out->push_back(static_cast<char>(k));
  BitWriter w(out);
  for (uint64_t z : zigzags) {
    const uint64_t q = z >> k;
    if (q < kRiceEscape) {
      w.Put((uint64_t{1} << q) - 1, static_cast<int>(q) + 1);  // q ones, a zero
      w.Put(z, k);
    } else {
      w.Put((uint64_t{1} << kRiceEscape) - 1, kRiceEscape);
      w.Put(z, 64);
    }
  }
  w.Flush();
}

const uint8_t* GetRice(const uint8_t* p, const uint8_t* end, size_t n, std::vector<uint64_t>* out) {
  if (p == end || *p > kMaxRiceK) return nullptr;
  const int k = *p++;
  if (n > 8 * static_cast<size_t>(end - p)) return nullptr;  // a code takes at least a bit
  BitReader r(p, end);
  for (size_t i = 0; i < n; ++i) {
    const int q = std::min(std::countr_one(r.Window()), kRiceEscape);
    uint64_t z, low, high;
    if (q == kRiceEscape) {
      if (!r.Skip(kRiceEscape) || !r.Get(32, &low) || !r.Get(32, &high)) return nullptr;
      z = high << 32 | low;
    } else {
      if (!r.Skip(static_cast<size_t>(q) + 1) || !r.Get(k, &low)) return nullptr;
      z = uint64_t{static_cast<uint32_t>(q)} << k | low;
    }
    out->push_back(z);
  }
  // The padding to the byte must be zero bits.
  uint64_t pad;
  if (!r.Get(static_cast<int>((8 - r.Position() % 8) % 8), &pad) || pad != 0) return nullptr;
  return r.End();
}

// "0" or up to 19 digits without a leading zero: the ids that print back
// exactly from their value (every such value fits a uint64).
constexpr uint64_t kMaxDecimalId = 9'999'999'999'999'999'999ull;
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

uint64_t ZigZag(uint64_t delta) { return (delta << 1) ^ (0 - (delta >> 63)); }
uint64_t UnZigZag(uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }

void PutFrontCoded(std::string* out, const std::vector<std::string>& column) {
  std::string_view prev;
  for (const std::string& s : column) {
    const size_t shared = SharedPrefixLength(prev, s);
    PutVarint64(out, shared);
    PutLengthPrefixed(out, std::string_view(s).substr(shared));
    prev = s;
  }
}

// Decodes n front-coded strings from [p, end), appending them to `strings`
// and their spans to `spans`. nullptr on malformed input.
const uint8_t* GetFrontCoded(const uint8_t* p, const uint8_t* end, size_t n, std::string* strings,
                             std::vector<std::pair<uint32_t, uint32_t>>* spans) {
  std::string cur;
  for (size_t i = 0; i < n; ++i) {
    uint64_t shared;
    std::string_view suffix;
    p = GetVarint64(p, end, &shared);
    if (p == nullptr || shared > cur.size()) return nullptr;
    p = GetLengthPrefixed(p, end, &suffix);
    if (p == nullptr || strings->size() + shared + suffix.size() > kMaxDocBlockRaw) return nullptr;
    cur.resize(shared);
    cur.append(suffix);
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
  docids_.push_back(docid);
  ids_.emplace_back(id);
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
  bool decimal = true;
  std::vector<uint64_t> values(n);
  for (size_t i = 0; i < n && decimal; ++i) decimal = IsCanonicalDecimal(ids_[i], &values[i]);
  std::string meta_z;
  if (decimal) {
    // Varint deltas compress well when they repeat (serial ids), Rice codes
    // when they vary: write both, keep the smaller.
    std::vector<uint64_t> zigzags;
    uint64_t prev = 0;
    for (uint64_t v : values) {
      zigzags.push_back(ZigZag(v - prev));
      prev = v;
    }
    std::string titles;
    PutFrontCoded(&titles, titles_);
    std::string rice = meta;
    meta.push_back(static_cast<char>(kIdDecimal));
    for (uint64_t z : zigzags) PutVarint64(&meta, z);
    meta.append(titles);
    rice.push_back(static_cast<char>(kIdDecimalRice));
    PutRice(&rice, zigzags);
    rice.append(titles);
    meta_z = Compress(meta, kDocMetaZstdLevel);
    std::string rice_z = Compress(rice, kDocMetaZstdLevel);
    if (rice_z.size() < meta_z.size()) {
      meta.swap(rice);
      meta_z.swap(rice_z);
    }
  } else {
    meta.push_back(static_cast<char>(kIdStrings));
    PutFrontCoded(&meta, ids_);
    PutFrontCoded(&meta, titles_);
    meta_z = Compress(meta, kDocMetaZstdLevel);
  }
  // What a reader would refuse must not be written.
  if (meta.size() > kMaxDocBlockRaw || texts_.size() > kMaxDocBlockRaw) {
    return Status::InvalidArgument("document " + ids_.back() + ": over 256 MiB of stored text");
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
  ids_.clear();
  titles_.clear();
  texts_.clear();
  any_text_ = false;
  raw_bytes_ = 0;
  ++blocks_;
  DPS_RETURN_IF_ERROR(sink_(meta_z));
  return text_z.empty() ? Status::OK() : sink_(text_z);
}

Status DocStoreWriter::Finish() {
  DPS_RETURN_IF_ERROR(FlushBlock());
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

Status DocStoreReader::Open(const PagedFileReader* file, uint64_t offset, uint64_t len,
                            const DocStoreShape& shape) {
  file_ = file;
  offset_ = offset;
  blocks_ = 0;
  shape_ = shape;
  if ((len == 0) != (shape.num_docs == 0)) {
    return Status::Corruption(Where(0) + ": " + std::to_string(len) + " bytes for " +
                              std::to_string(shape.num_docs) + " documents");
  }
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

Status DocStoreReader::ReadMeta(uint32_t block, DocBlockCache* cache, bool with_titles) const {
  cache->reader = nullptr;
  cache->titles_loaded = false;
  cache->docids.clear();
  cache->strings.clear();
  cache->ids.clear();
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
  if (p == end || *p > kIdDecimalRice) return malformed("bad id kind");
  const uint8_t kind = *p++;
  if (kind != kIdStrings) {
    std::vector<uint64_t> zigzags;
    if (kind == kIdDecimalRice) {
      p = GetRice(p, end, n, &zigzags);
      if (p == nullptr) return malformed("bad Rice-coded id");
    }
    uint64_t value = 0;
    char digits[20];
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t z;
      if (kind == kIdDecimalRice) {
        z = zigzags[i];
      } else {
        p = GetVarint64(p, end, &z);
        if (p == nullptr) return malformed("bad decimal id");
      }
      value += UnZigZag(z);
      if (value > kMaxDecimalId) return malformed("decimal id over 19 digits");
      const auto r = std::to_chars(digits, digits + sizeof digits, value);
      cache->ids.emplace_back(static_cast<uint32_t>(cache->strings.size()),
                              static_cast<uint32_t>(r.ptr - digits));
      cache->strings.append(digits, r.ptr);
    }
  } else {
    p = GetFrontCoded(p, end, n, &cache->strings, &cache->ids);
    if (p == nullptr) return malformed("bad id");
  }
  if (with_titles) {
    p = GetFrontCoded(p, end, n, &cache->strings, &cache->titles);
    if (p != end) return malformed(p == nullptr ? "bad title" : "bytes after the titles");
    cache->titles_loaded = true;
  }
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
  if (c.reader != this || c.block != lo - 1 || (with_titles && !c.titles_loaded)) {
    DPS_RETURN_IF_ERROR(ReadMeta(lo - 1, &c, with_titles));
  }
  auto it = std::lower_bound(c.docids.begin(), c.docids.end(), docid);
  if (it == c.docids.end() || *it != docid) return Status::NotFound("docid " + std::to_string(docid));
  const size_t i = static_cast<size_t>(it - c.docids.begin());
  doc->docid = docid;
  doc->id.assign(Span(c.strings, c.ids[i]));
  if (with_titles) {
    doc->title.assign(Span(c.strings, c.titles[i]));
  } else {
    doc->title.clear();
  }
  doc->text.clear();
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
  DocBlockCache c;
  uint64_t records = 0;
  for (uint32_t b = 0; b < blocks_; ++b) {
    DPS_RETURN_IF_ERROR(ReadMeta(b, &c));
    DPS_RETURN_IF_ERROR(ReadText(&c));
    for (size_t i = 0; i < c.docids.size(); ++i) {
      StoredDoc& doc = docs->emplace_back();
      doc.docid = c.docids[i];
      doc.id.assign(Span(c.strings, c.ids[i]));
      doc.title.assign(Span(c.strings, c.titles[i]));
      doc.text.assign(Span(c.text, c.texts[i]));
    }
    records += c.docids.size();
  }
  return CheckWhole(records, records > 0 ? docs->back().docid : 0);
}

Status DocStoreReader::ForEachId(const std::function<void(DocId, std::string_view)>& fn) const {
  DocBlockCache c;
  uint64_t records = 0;
  DocId last = 0;
  for (uint32_t b = 0; b < blocks_; ++b) {
    DPS_RETURN_IF_ERROR(ReadMeta(b, &c));
    for (size_t i = 0; i < c.docids.size(); ++i) fn(c.docids[i], Span(c.strings, c.ids[i]));
    records += c.docids.size();
    last = c.docids.back();
  }
  return CheckWhole(records, last);
}

}  // namespace dps
