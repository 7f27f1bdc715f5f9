#include "index/global_index.h"

#include <bit>

#include <algorithm>

#include "common/byte_reader.h"
#include "common/file_header.h"
#include "common/coding.h"
#include "index/inline_postings.h"
#include "index/positions.h"
#include "index/posting_codec.h"

namespace dps {

namespace {
constexpr size_t kDirectorySize = 32;  // dict_offset, dict_len, num_terms, total_docs
// A singleton's head: docid << 6 | gap code << 3 | has_file << 2 | kind; gap
// codes 0-6 are the gap, 7 means 7 + a varint that follows the head.
constexpr uint64_t kSingletonGapEscape = 7;
}  // namespace

Result<std::unique_ptr<GlobalIndexWriter>> GlobalIndexWriter::Create(const std::string& path, bool positions) {
  DPS_ASSIGN_OR_RETURN(auto file, PagedFileWriter::Create(path));
  std::unique_ptr<GlobalIndexWriter> w(new GlobalIndexWriter(std::move(file), positions));
  std::string header;
  EncodeFileHeader({kGlobalIndexMagic, kGlobalIndexVersion, positions ? kGlobalFlagPositions : 0}, &header);
  DPS_RETURN_IF_ERROR(w->file_->Append(header));
  return w;
}

std::span<const TermRef> GlobalTermInfo::RefsOf(BinId bin) const {
  auto lo = std::lower_bound(refs.begin(), refs.end(), bin.value,
                             [](const TermRef& r, uint32_t b) { return r.bin < b; });
  auto hi = lo;
  while (hi != refs.end() && hi->bin == bin.value) ++hi;
  return {lo, hi};
}

void GlobalTermInfo::Bins(std::vector<BinId>* out) const {
  out->clear();
  out->reserve(refs.size());  // one allocation, not one per doubling
  for (const TermRef& r : refs) {
    if (out->empty() || out->back().value != r.bin) out->push_back(BinId{r.bin});
  }
}

size_t TermTable::IndexOf(std::string_view term, size_t hint) const {
  if (hint < entries.size() && entries[hint].first == term) return hint;
  if (!slots_.empty()) {
    const size_t mask = slots_.size() - 1;
    for (size_t s = std::hash<std::string_view>()(term) & mask;; s = (s + 1) & mask) {
      if (slots_[s] == kNoSlot) return kNone;
      if (entries[slots_[s]].first == term) return slots_[s];
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].first == term) return i;
  }
  return kNone;
}

void TermTable::Index(size_t entry) {
  const size_t mask = slots_.size() - 1;
  size_t s = std::hash<std::string_view>()(entries[entry].first) & mask;
  while (slots_[s] != kNoSlot) s = (s + 1) & mask;
  slots_[s] = static_cast<uint32_t>(entry);
}

void TermTable::Append(std::string_view term, GlobalTermInfo info) {
  entries.emplace_back(std::string(term), std::move(info));
  if (entries.size() <= kLinearEntries) return;
  if (2 * entries.size() > slots_.size()) {  // (re)build at most half full
    slots_.assign(std::bit_ceil(4 * entries.size()), kNoSlot);
    for (size_t i = 0; i < entries.size(); ++i) Index(i);
    return;
  }
  Index(entries.size() - 1);
}

void KnownTerms::Add(std::string term, GlobalTermInfo info) {
  index_.clear();  // its views may move with entries_
  entries_.emplace_back(std::move(term), std::move(info));
}

bool KnownTerms::Take(std::string_view term, GlobalTermInfo* info) {
  size_t i = next_;
  if (i >= entries_.size() || entries_[i].first != term) {
    if (index_.empty()) {
      for (size_t k = entries_.size(); k-- > 0;) index_[entries_[k].first] = k;  // the first of duplicates wins
    }
    const auto it = index_.find(term);
    if (it == index_.end()) return false;
    i = it->second;
  }
  *info = std::move(entries_[i].second);
  next_ = i + 1;
  return true;
}

bool TermTable::TakeFrom(KnownTerms* known, std::string_view term) {
  GlobalTermInfo info;
  if (known == nullptr || known->size() == 0 || !known->Take(term, &info)) return false;
  Append(term, std::move(info));
  return true;
}

Result<size_t> TermTable::Add(const GlobalIndexReader* global, std::string_view term, KnownTerms* known) {
  if (const size_t i = IndexOf(term); i != kNone) return i;
  if (TakeFrom(known, term)) return entries.size() - 1;
  GlobalTermInfo info;
  if (global != nullptr) {
    bool found = false;  // absent: the entry stays empty
    DPS_RETURN_IF_ERROR(global->Lookup(term, &found, &info));
  }
  Append(term, std::move(info));
  return entries.size() - 1;
}

Status TermTable::AddAll(const GlobalIndexReader* global, std::span<const std::string> terms, KnownTerms* known) {
  if (global == nullptr || terms.size() < 2) {
    for (const auto& t : terms) DPS_RETURN_IF_ERROR(Add(global, t, known).status());
    return Status::OK();
  }
  // A query has a handful of terms: fixed scratch, no allocation.
  constexpr size_t kBatch = 8;
  constexpr int64_t kTaken = INT64_MIN;  // moved from `known`: nothing to look up
  int64_t blocks[kBatch];
  for (size_t start = 0; start < terms.size(); start += kBatch) {
    const size_t first_new = entries.size();
    for (size_t k = start; k < std::min(start + kBatch, terms.size()); ++k) {
      if (IndexOf(terms[k]) != kNone) continue;
      int64_t& block = blocks[entries.size() - first_new];
      if (TakeFrom(known, terms[k])) {
        block = kTaken;
        continue;
      }
      DPS_ASSIGN_OR_RETURN(block, global->dict().Locate(terms[k]));
      Append(terms[k], GlobalTermInfo());
    }
    for (size_t i = first_new; i < entries.size(); ++i) {
      if (blocks[i - first_new] == kTaken) continue;
      bool found = false;  // absent: the entry stays empty
      std::string_view value;
      DPS_RETURN_IF_ERROR(
          global->dict().FindInBlock(blocks[i - first_new], entries[i].first, &found, &value));
      if (found) DPS_RETURN_IF_ERROR(global->ParseValue(value, &entries[i].second));
    }
  }
  return Status::OK();
}

Status GlobalIndexWriter::Add(std::string_view term, const GlobalTermInfo& info) {
  if ((dict_.entries() > 0 && term <= last_) || info.refs.empty()) {
    return Status::InvalidArgument("GlobalIndexWriter: terms must ascend and have postings");
  }
  scratch_.clear();
  uint32_t prev_bin = 0, prev_file = 0;
  for (size_t i = 0; i < info.refs.size(); ++i) {
    const TermRef& r = info.refs[i];
    const bool same_bin = i > 0 && r.bin == prev_bin;
    if ((i > 0 && r.bin < prev_bin) || (same_bin && r.file <= prev_file) || r.df == 0 ||
        (r.df == 1 && r.inline_weight == 0)) {
      return Status::InvalidArgument("GlobalIndexWriter: refs must ascend by (bin, file)");
    }
    if (r.in_file() && r.df > kBlockSize && (r.max_score == 0 || r.max_score > UINT16_MAX)) {
      return Status::InvalidArgument("GlobalIndexWriter: a list of several blocks needs its max score (1 to 65535)");
    }
    // head = bin gap (the first bin absolute) << 3 | has_file << 2 | kind;
    // without has_file the ref is in the bin's oldest file (position 0).
    // kind 0: a list in the file (df, offset, len follow); 3: a short list
    // inline (df << 1 | has_weights, then its postings); 1: a singleton of
    // weight 1 and 2: a singleton (its weight follows), whose head holds the
    // docid too (docid << 6 | gap code << 3 | has_file << 2 | kind): most
    // refs of a natural corpus are singletons of weight 1, three bytes for
    // a docid below 32,768 where a head and a varint took four from 16,384.
    const bool has_file = same_bin || r.file != 0;
    const uint64_t kind = r.df == 1 ? (r.inline_weight == 1 ? 1 : 2) : r.in_file() ? 0 : 3;
    const uint64_t gap = r.bin - (i > 0 ? prev_bin : 0);
    if (kind == 1 || kind == 2) {
      const uint64_t code = std::min(gap, kSingletonGapEscape);
      PutVarint64(&scratch_, uint64_t{r.inline_doc} << 6 | code << 3 | (has_file ? 4 : 0) | kind);
      if (code == kSingletonGapEscape) PutVarint64(&scratch_, gap - kSingletonGapEscape);
    } else {
      PutVarint64(&scratch_, gap << 3 | (has_file ? 4 : 0) | kind);
    }
    if (has_file) PutVarint32(&scratch_, r.file);
    if (kind == 0) {
      PutVarint32(&scratch_, r.df);
      PutVarint64(&scratch_, r.offset);
      PutVarint64(&scratch_, r.len);
      if (r.df > kBlockSize) PutFixed16(&scratch_, static_cast<uint16_t>(r.max_score));
      if (positions_) PutVarint64(&scratch_, r.positions_offset);
    } else if (kind == 3) {
      PutVarint64(&scratch_, uint64_t{r.df} << 1 | (r.inline_weights ? 1 : 0));
      scratch_.append(r.inline_postings);
    } else if (kind == 2) {
      PutVarint32(&scratch_, r.inline_weight);
    }
    if (positions_ && kind != 0) {
      if (r.inline_positions.empty()) return Status::InvalidArgument("GlobalIndexWriter: an inline ref without its positions");
      scratch_.append(r.inline_positions);
    }
    prev_bin = r.bin;
    prev_file = r.file;
  }
  DPS_RETURN_IF_ERROR(dict_.Add(term, scratch_));
  last_.assign(term);
  return Status::OK();
}

Status GlobalIndexWriter::Finish(uint64_t total_docs) {
  const uint64_t terms = dict_.entries();
  uint64_t dict_offset, dict_len;
  DPS_RETURN_IF_ERROR(dict_.Finish(&dict_offset, &dict_len));
  std::string dir;
  PutFixed64(&dir, dict_offset);
  PutFixed64(&dir, dict_len);
  PutFixed64(&dir, terms);
  PutFixed64(&dir, total_docs);
  const uint64_t dir_offset = file_->offset();
  DPS_RETURN_IF_ERROR(file_->Append(dir));
  return file_->Finish(dir_offset, dir.size(), kGlobalIndexVersion);
}

Result<std::unique_ptr<GlobalIndexReader>> GlobalIndexReader::Open(const std::string& path) {
  std::unique_ptr<GlobalIndexReader> r(new GlobalIndexReader());
  DPS_ASSIGN_OR_RETURN(r->file_, PagedFileReader::Open(path));
  const PagedFileReader& f = *r->file_;
  if (f.format_version() != kGlobalIndexVersion) {
    return Status::Unsupported(path + ": global index version " + std::to_string(f.format_version()) +
                               " (this build reads " + std::to_string(kGlobalIndexVersion) + ")");
  }
  DPS_ASSIGN_OR_RETURN(std::string_view header, f.Read(0, kFileHeaderSize));
  DPS_RETURN_IF_ERROR(
      CheckFileHeader(header, {kGlobalIndexMagic, kGlobalIndexVersion}, kGlobalFlagPositions, "global index").WithContext(path));
  r->positions_ = (DecodeFixed32(reinterpret_cast<const uint8_t*>(header.data()) + 12) & kGlobalFlagPositions) != 0;
  if (f.directory_size() != kDirectorySize) {
    return Status::Corruption(path + ": offset " + std::to_string(f.directory_offset()) +
                              ": bad directory size");
  }
  DPS_ASSIGN_OR_RETURN(std::string_view dir, f.Read(f.directory_offset(), kDirectorySize));
  ByteReader fields(dir, path + ": offset " + std::to_string(f.directory_offset()) + ": directory",
                    /*corruption=*/true);
  const uint64_t dict_offset = fields.U64("dictionary offset"), dict_len = fields.U64("dictionary length");
  r->num_terms_ = fields.U64("term count");
  r->total_docs_ = fields.U64("document count");
  DPS_RETURN_IF_ERROR(fields.Finish());
  if (dict_offset > f.body_size() || dict_len > f.body_size() - dict_offset) {
    return Status::Corruption(path + ": offset " + std::to_string(f.directory_offset()) +
                              ": dictionary out of bounds");
  }
  DPS_RETURN_IF_ERROR(r->dict_.Open(r->file_.get(), dict_offset, dict_len));
  return r;
}

Status GlobalIndexReader::ParseValue(std::string_view value, GlobalTermInfo* info) const {
  auto* p = reinterpret_cast<const uint8_t*>(value.data());
  auto* end = p + value.size();
  info->df = 0;
  info->refs.clear();
  // Most refs take 2 bytes or more (a singleton of docid 0 or 1 takes one):
  // reserve once instead of growing.
  info->refs.reserve(value.size() / 2 + 1);
  auto bad = [&](const char* what) {
    return Status::Corruption(file_->path() + ": malformed global index entry (" + what + ")");
  };
  if (p == end) return bad("no postings");
  uint64_t bin = 0;
  while (p != end) {
    uint64_t head;
    p = GetVarint64(p, end, &head);
    if (p == nullptr) return bad("head");
    TermRef r;
    const bool has_file = head & 4;
    const uint64_t kind = head & 3;
    const bool singleton = kind == 1 || kind == 2;
    uint64_t gap = singleton ? (head >> 3) & 7 : head >> 3;
    if (singleton && gap == kSingletonGapEscape) {
      uint64_t rest;
      p = GetVarint64(p, end, &rest);
      if (p == nullptr || rest > UINT32_MAX) return bad("head");
      gap += rest;
    }
    const bool first = info->refs.empty();
    bin += gap;
    if (bin > UINT32_MAX) return bad("head");
    r.bin = static_cast<uint32_t>(bin);
    if (has_file) {
      p = GetVarint32(p, end, &r.file);
      if (p == nullptr) return bad("file");
    }
    if (!first && gap == 0 && (!has_file || r.file <= info->refs.back().file)) {
      return bad("refs out of order");
    }
    if (kind == 0) {
      p = GetVarint32(p, end, &r.df);
      if (p != nullptr) p = GetVarint64(p, end, &r.offset);
      if (p != nullptr) p = GetVarint64(p, end, &r.len);
      if (p == nullptr || r.df < 2 || r.len == 0) return bad("posting list");
      if (r.df > kBlockSize) {
        // The term's bound in the bin: its largest block score (u16, >= 1).
        if (end - p < 2 || DecodeFixed16(p) == 0) return bad("posting list");
        r.max_score = DecodeFixed16(p);
        p += 2;
      }
      if (positions_) {
        p = GetVarint64(p, end, &r.positions_offset);
        if (p == nullptr) return bad("positions offset");
      }
    } else if (kind == 3) {
      uint64_t df_flag;
      p = GetVarint64(p, end, &df_flag);
      if (p == nullptr || df_flag >> 1 < 2 || df_flag >> 1 > kMaxInlineDfRead) return bad("inline list");
      r.df = static_cast<uint32_t>(df_flag >> 1);
      r.inline_weights = df_flag & 1;
      const uint8_t* start = p;
      p = SkipInlinePostings(p, end, r.df, r.inline_weights);
      if (p == nullptr) return bad("inline list");
      r.inline_postings = std::string_view(reinterpret_cast<const char*>(start), p - start);
    } else {
      r.df = 1;
      r.inline_weight = 1;
      const uint64_t docid = head >> 6;
      r.inline_doc = static_cast<DocId>(docid);
      if (kind == 2) p = GetVarint32(p, end, &r.inline_weight);
      if (p == nullptr || docid > kMaxDocId || r.inline_weight < (kind == 2 ? 2u : 1u)) {
        return bad("posting");
      }
    }
    if (positions_ && kind != 0) {
      // As many varints as the list's weights sum to.
      uint64_t values = r.df == 1 ? r.inline_weight : r.df;
      if (r.df > 1 && r.inline_weights) {
        uint32_t weights[kMaxInlineDfRead];
        const auto* q = reinterpret_cast<const uint8_t*>(r.inline_postings.data());
        if (ParseInlinePostings(q, q + r.inline_postings.size(), r.df, true, nullptr, weights) == nullptr) {
          return bad("inline list");
        }
        values = 0;
        for (uint32_t i = 0; i < r.df; ++i) values += weights[i];
      }
      const uint8_t* start = p;
      p = SkipInlinePositions(p, end, values);
      if (p == nullptr) return bad("inline positions");
      r.inline_positions = std::string_view(reinterpret_cast<const char*>(start), p - start);
    }
    info->df += r.df;
    info->refs.push_back(r);
  }
  return Status::OK();
}

Status GlobalIndexReader::Lookup(std::string_view term, bool* found, GlobalTermInfo* info) const {
  std::string_view value;
  DPS_RETURN_IF_ERROR(dict_.Find(term, found, &value));
  if (!*found) return Status::OK();
  return ParseValue(value, info);
}

}  // namespace dps
