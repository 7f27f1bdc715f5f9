#include "index/tablet_reader.h"

#include "index/positions.h"

#include "common/file_header.h"
#include "common/coding.h"
#include "index/inline_postings.h"

namespace dps {

std::string TabletReader::Where(uint64_t offset) const {
  return path() + ": offset " + std::to_string(offset);
}

Result<std::unique_ptr<TabletReader>> TabletReader::Open(const std::string& path) {
  std::unique_ptr<TabletReader> r(new TabletReader());
  DPS_ASSIGN_OR_RETURN(r->file_, PagedFileReader::Open(path));
  const PagedFileReader& f = *r->file_;
  if (f.format_version() != kTabletFormatVersion) {
    return Status::Unsupported(path + ": tablet format version " +
                               std::to_string(f.format_version()) + " (this build reads " +
                               std::to_string(kTabletFormatVersion) + ")");
  }
  DPS_ASSIGN_OR_RETURN(std::string_view header, f.Read(0, kFileHeaderSize));
  uint32_t flags = 0;
  DPS_RETURN_IF_ERROR(CheckFileHeader(header, {kTabletMagic, kTabletFormatVersion}, kTabletKnownFlags,
                                      "tablet file", &flags)
                          .WithContext(path));
  r->stores_text_ = flags & kTabletFlagStoredText;
  r->positions_ = (flags & kTabletFlagPositions) != 0;

  DPS_ASSIGN_OR_RETURN(std::string_view dir, f.Read(f.directory_offset(), f.directory_size()));
  auto* d = reinterpret_cast<const uint8_t*>(dir.data());
  if (dir.size() < 8) return Status::Corruption(r->Where(f.directory_offset()) + ": short directory");
  const uint32_t bins = DecodeFixed32(d);
  if (DecodeFixed32(d + 4) != 0 || dir.size() != 8 + uint64_t{bins} * kBinInfoSize) {
    return Status::Corruption(r->Where(f.directory_offset()) + ": directory of " +
                              std::to_string(dir.size()) + " bytes does not hold " +
                              std::to_string(bins) + " bins");
  }
  r->bins_.resize(bins);
  for (uint32_t i = 0; i < bins; ++i) {
    Bin& bin = r->bins_[i];
    bin.info = DecodeBinInfo(d + 8 + i * kBinInfoSize);
    if (i > 0 && bin.info.bin <= r->bins_[i - 1].info.bin) {
      return Status::Corruption(r->Where(f.directory_offset() + 8 + i * kBinInfoSize) +
                                ": bins out of order");
    }
    Status s = r->OpenBin(&bin);
    if (!s.ok()) return s.WithContext("bin " + std::to_string(bin.info.bin));
  }
  return r;
}

Status TabletReader::OpenBin(Bin* bin) {
  const BinInfo& b = bin->info;
  const uint64_t body = file_->body_size();
  auto in_body = [body](uint64_t off, uint64_t len) { return off <= body && len <= body - off; };
  if (!in_body(b.postings_offset, b.postings_len) || !in_body(b.ids_offset, b.ids_len) ||
      (b.num_docs == 0 && b.ids_offset != 0) ||
      !in_body(b.docs_offset, b.docs_len) || !in_body(b.lengths_offset, b.lengths_len) ||
      (b.lengths_len == 0) != (b.num_docs == 0) || (b.num_docs == 0 && b.lengths_offset != 0) ||
      !in_body(b.tombstones_offset, b.tombstones_len) || (b.score_avgdl == 0) != (b.postings_len == 0) ||
      (b.docs_len == 0) != (b.num_docs == 0) || !in_body(b.field_lengths_offset, b.field_lengths_len) ||
      (b.field_lengths_len == 0) != (b.num_docs == 0) || (b.num_docs == 0 && b.field_lengths_offset != 0)) {
    return Status::Corruption(Where(file_->directory_offset()) + ": bad directory entry");
  }
  DPS_RETURN_IF_ERROR(bin->docs.Open(file_.get(), DocStoreRegions{b.docs_offset, b.docs_len, b.ids_offset, b.ids_len},
                                     DocStoreShape{b.num_docs, b.min_docid, b.max_docid, stores_text_}));
  if (b.num_docs > 0) {
    DPS_ASSIGN_OR_RETURN(std::string_view lengths, file_->Read(b.lengths_offset, b.lengths_len));
    DPS_RETURN_IF_ERROR(bin->lengths.Open(lengths, b.min_docid, b.max_docid, Where(b.lengths_offset)));
    DPS_ASSIGN_OR_RETURN(std::string_view fields, file_->Read(b.field_lengths_offset, b.field_lengths_len));
    DPS_RETURN_IF_ERROR(
        OpenFieldLengths(fields, b.min_docid, b.max_docid, Where(b.field_lengths_offset), &bin->fields));
  }
  if (b.tombstones_len > 0) {
    DPS_ASSIGN_OR_RETURN(std::string_view t, file_->Read(b.tombstones_offset, b.tombstones_len));
    auto* p = reinterpret_cast<const uint8_t*>(t.data());
    auto* end = p + t.size();
    uint32_t count;
    p = GetVarint32(p, end, &count);
    if (p == nullptr || count > t.size()) {
      return Status::Corruption(Where(b.tombstones_offset) + ": bad tombstone count");
    }
    uint64_t doc = 0;
    for (uint32_t k = 0; k < count; ++k) {
      uint32_t delta;
      p = GetVarint32(p, end, &delta);
      doc += delta;
      if (p == nullptr || (k > 0 && delta == 0) || doc > kMaxDocId) {
        return Status::Corruption(Where(b.tombstones_offset) + ": malformed tombstones");
      }
      bin->tombstones.push_back(static_cast<DocId>(doc));
    }
    if (p != end) return Status::Corruption(Where(b.tombstones_offset) + ": trailing bytes");
  }
  return Status::OK();
}

int TabletReader::FindBin(BinId bin) const {
  size_t lo = 0, hi = bins_.size();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (bins_[mid].info.bin < bin.value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < bins_.size() && bins_[lo].info.bin == bin.value ? static_cast<int>(lo) : -1;
}

// Views `values` inline positions at p (stepped over, not decoded: the
// cursor that reads them checks them).
const uint8_t* TabletReader::InlinePositionsOf(const uint8_t* p, const uint8_t* end, uint64_t values,
                                               std::string_view* out) {
  const uint8_t* after = SkipInlinePositions(p, end, values);
  if (after != nullptr) *out = std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(after - p));
  return after;
}

Status TabletReader::ParsePostingRef(size_t i, std::string_view value, PostingRef* ref) const {
  const BinInfo& b = bins_[i].info;
  auto* p = reinterpret_cast<const uint8_t*>(value.data());
  auto* end = p + value.size();
  uint64_t head = 0;
  p = GetVarint64(p, end, &head);
  const uint64_t df = head >> 2, form = head & 3;
  ref->df = static_cast<uint32_t>(df);
  ref->inline_postings = {};
  ref->inline_weights = form == 2;
  if (p == nullptr || df == 0 || df > UINT32_MAX || form == 3) {
    p = nullptr;
  } else if (form != 0 && df == 1) {
    p = ParseInlinePostings(p, end, 1, form == 2, &ref->inline_doc, &ref->inline_weight);
    if (p != nullptr && positions_) p = InlinePositionsOf(p, end, ref->inline_weight, &ref->inline_positions);
  } else if (form != 0) {
    const uint8_t* start = p;
    uint32_t weights[kMaxInlineDfRead];
    p = df > kMaxInlineDfRead ? nullptr : ParseInlinePostings(p, end, ref->df, form == 2, nullptr, weights);
    if (p != nullptr) ref->inline_postings = std::string_view(reinterpret_cast<const char*>(start), p - start);
    if (p != nullptr && positions_) {
      uint64_t values = 0;
      for (uint32_t i = 0; i < ref->df; ++i) values += weights[i];
      p = InlinePositionsOf(p, end, values, &ref->inline_positions);
    }
  } else if (df >= 2) {
    uint64_t rel = 0;
    p = GetVarint64(p, end, &rel);
    if (p != nullptr) p = GetVarint64(p, end, &ref->len);
    if (p != nullptr && (rel > b.postings_len || ref->len > b.postings_len - rel)) p = nullptr;
    ref->max_score = 0;
    if (p != nullptr && df > kBlockSize) {
      // A list of several blocks: its largest block score (u16, >= 1).
      ref->max_score = end - p < 2 ? 0 : DecodeFixed16(p);
      p = ref->max_score == 0 ? nullptr : p + 2;
    }
    ref->offset = b.postings_offset + rel;
    if (p != nullptr && positions_) {
      uint64_t pos_rel = 0;
      p = GetVarint64(p, end, &pos_rel);
      if (p != nullptr && pos_rel >= b.positions_len) p = nullptr;
      ref->positions_offset = b.positions_offset + pos_rel;
    }
  } else {
    p = nullptr;
  }
  if (p == nullptr || p != end) {
    return Status::Corruption(path() + ": bin " + std::to_string(b.bin) +
                              ": malformed dictionary value");
  }
  return Status::OK();
}

Status TabletReader::OpenPositions(const PostingRef& ref, PostingPositions* out) const {
  if (!positions_) return Status::Unsupported(path() + ": no word positions (the index was built with --no-positions)");
  if (ref.df == 1) {
    const uint32_t weight = ref.inline_weight;
    return out->OpenInline(ref.inline_positions, std::span(&weight, 1), path());
  }
  if (!ref.inline_postings.empty()) {
    uint32_t weights[kMaxInlineDfRead];
    const auto* p = reinterpret_cast<const uint8_t*>(ref.inline_postings.data());
    if (ref.df > kMaxInlineDfRead ||
        ParseInlinePostings(p, p + ref.inline_postings.size(), ref.df, ref.inline_weights, nullptr, weights) == nullptr) {
      return Status::Corruption(path() + ": malformed inline postings");
    }
    return out->OpenInline(ref.inline_positions, std::span(weights, ref.df), path());
  }
  // The region's end: the bin whose positions region holds the offset.
  for (const auto& bin : bins_) {
    const BinInfo& b = bin.info;
    if (ref.positions_offset >= b.positions_offset && ref.positions_offset < b.positions_offset + b.positions_len) {
      return out->OpenInFile(file_.get(), ref.positions_offset, b.positions_offset + b.positions_len, ref.df, &path());
    }
  }
  return Status::Corruption(path() + ": positions offset " + std::to_string(ref.positions_offset) + " in no bin");
}

Status TabletReader::OpenCursor(const PostingRef& ref, PostingCursor* cursor) const {
  if (ref.df == 1) {
    cursor->InitSingleton(ref.inline_doc, ref.inline_weight);
    return Status::OK();
  }
  if (!ref.inline_postings.empty()) return cursor->InitInline(ref.inline_postings, ref.df, ref.inline_weights);
  DPS_RETURN_IF_ERROR(file_->Verify(ref.offset, ref.len));
  return cursor->Init(file_->data() + ref.offset, ref.len, ref.df, &path(), ref.offset);
}

Status TabletReader::OpenCursorAt(const PostingRef& ref, DocId target, PostingCursor* cursor) const {
  if (!ref.in_file()) return OpenCursor(ref, cursor);  // kept in the dictionary: decoded whole anyway
  DPS_RETURN_IF_ERROR(file_->Verify(ref.offset, ref.len));
  return cursor->InitAt(file_->data() + ref.offset, ref.len, ref.df, &path(), ref.offset, target);
}

}  // namespace dps
