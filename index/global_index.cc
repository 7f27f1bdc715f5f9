#include "index/global_index.h"

#include "common/coding.h"

namespace dps {

namespace {
constexpr size_t kHeaderSize = 16;
constexpr size_t kDirectorySize = 32;  // dict_offset, dict_len, num_terms, total_docs
}  // namespace

Result<std::unique_ptr<GlobalIndexWriter>> GlobalIndexWriter::Create(const std::string& path) {
  DPS_ASSIGN_OR_RETURN(auto file, PagedFileWriter::Create(path));
  std::unique_ptr<GlobalIndexWriter> w(new GlobalIndexWriter(std::move(file)));
  std::string header;
  PutFixed64(&header, kGlobalIndexMagic);
  PutFixed32(&header, kGlobalIndexVersion);
  PutFixed32(&header, 0);  // flags, reserved
  DPS_RETURN_IF_ERROR(w->file_->Append(header));
  return w;
}

Status GlobalIndexWriter::Add(std::string_view term, const GlobalTermInfo& info) {
  if ((dict_.entries() > 0 && term <= last_) || info.bins.empty()) {
    return Status::InvalidArgument("GlobalIndexWriter: terms must ascend and have bins");
  }
  scratch_.clear();
  PutVarint64(&scratch_, info.df);
  PutVarint32(&scratch_, static_cast<uint32_t>(info.bins.size()));
  uint32_t prev = 0;
  for (size_t i = 0; i < info.bins.size(); ++i) {
    PutVarint32(&scratch_, info.bins[i] - prev);  // first bin absolute, then gaps
    prev = info.bins[i];
  }
  dict_.Add(term, scratch_);
  last_.assign(term);
  return Status::OK();
}

Status GlobalIndexWriter::Finish(uint64_t total_docs) {
  const uint64_t terms = dict_.entries();
  const uint64_t dict_offset = file_->offset();
  std::string dict = dict_.Finish();
  if (terms == 0) dict.clear();
  DPS_RETURN_IF_ERROR(file_->Append(dict));
  std::string dir;
  PutFixed64(&dir, dict_offset);
  PutFixed64(&dir, dict.size());
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
    return Status::Unsupported(path + ": global index version " +
                               std::to_string(f.format_version()));
  }
  DPS_ASSIGN_OR_RETURN(std::string_view header, f.Read(0, kHeaderSize));
  auto* h = reinterpret_cast<const uint8_t*>(header.data());
  if (DecodeFixed64(h) != kGlobalIndexMagic || DecodeFixed32(h + 8) != kGlobalIndexVersion ||
      DecodeFixed32(h + 12) != 0) {
    return Status::Corruption(path + ": offset 0: bad global index header");
  }
  if (f.directory_size() != kDirectorySize) {
    return Status::Corruption(path + ": offset " + std::to_string(f.directory_offset()) +
                              ": bad directory size");
  }
  DPS_ASSIGN_OR_RETURN(std::string_view dir, f.Read(f.directory_offset(), kDirectorySize));
  auto* d = reinterpret_cast<const uint8_t*>(dir.data());
  const uint64_t dict_offset = DecodeFixed64(d), dict_len = DecodeFixed64(d + 8);
  r->num_terms_ = DecodeFixed64(d + 16);
  r->total_docs_ = DecodeFixed64(d + 24);
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
  uint32_t count = 0;
  p = GetVarint64(p, end, &info->df);
  if (p != nullptr) p = GetVarint32(p, end, &count);
  if (p == nullptr || count == 0 || count > value.size()) {
    return Status::Corruption(file_->path() + ": malformed global index entry");
  }
  info->bins.clear();
  uint64_t bin = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t delta;
    p = GetVarint32(p, end, &delta);
    bin += delta;
    if (p == nullptr || (i > 0 && delta == 0) || bin > UINT32_MAX) {
      return Status::Corruption(file_->path() + ": malformed global index bin list");
    }
    info->bins.push_back(static_cast<uint32_t>(bin));
  }
  if (p != end) return Status::Corruption(file_->path() + ": trailing bytes in global index entry");
  return Status::OK();
}

Status GlobalIndexReader::Lookup(std::string_view term, bool* found, GlobalTermInfo* info) const {
  std::string_view value;
  DPS_RETURN_IF_ERROR(dict_.Find(term, found, &value));
  if (!*found) return Status::OK();
  return ParseValue(value, info);
}

}  // namespace dps
