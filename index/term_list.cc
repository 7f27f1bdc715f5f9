#include "index/term_list.h"

#include "common/file_header.h"
#include "common/coding.h"

namespace dps {

namespace {
constexpr size_t kBinRecordSize = 24;  // bin u32 | reserved u32 | offset u64 | len u64
}  // namespace

std::string TermListPathFor(const std::string& tablet_path) {
  const std::string_view ext = ".tab";
  if (tablet_path.ends_with(ext)) {
    return tablet_path.substr(0, tablet_path.size() - ext.size()) + ".dic";
  }
  return tablet_path + ".dic";
}

Result<std::unique_ptr<TermListWriter>> TermListWriter::Create(const std::string& path, bool positions) {
  DPS_ASSIGN_OR_RETURN(auto file, PagedFileWriter::Create(path));
  std::unique_ptr<TermListWriter> w(new TermListWriter(std::move(file)));
  std::string header;
  EncodeFileHeader({kTermListMagic, kTermListVersion, positions ? kTermListFlagPositions : 0}, &header);
  DPS_RETURN_IF_ERROR(w->file_->Append(header));
  return w;
}

Status TermListWriter::BeginBin(uint32_t bin) {
  if (in_bin_ || static_cast<int64_t>(bin) <= last_bin_) {
    return Status::InvalidArgument("TermListWriter: bins must ascend, one at a time");
  }
  bin_ = bin;
  in_bin_ = true;
  return Status::OK();
}

Status TermListWriter::EndBin() {
  if (!in_bin_) return Status::InvalidArgument("TermListWriter: EndBin without BeginBin");
  uint64_t offset, len;
  DPS_RETURN_IF_ERROR(dict_.Finish(&offset, &len));
  in_bin_ = false;
  last_bin_ = bin_;
  if (len == 0) return Status::OK();
  PutFixed32(&directory_, bin_);
  PutFixed32(&directory_, 0);
  PutFixed64(&directory_, offset);
  PutFixed64(&directory_, len);
  ++bins_;
  return Status::OK();
}

Status TermListWriter::Finish() {
  if (in_bin_) return Status::InvalidArgument("TermListWriter: Finish inside a bin");
  std::string dir;
  PutFixed32(&dir, bins_);
  PutFixed32(&dir, 0);
  dir += directory_;
  const uint64_t dir_offset = file_->offset();
  DPS_RETURN_IF_ERROR(file_->Append(dir));
  return file_->Finish(dir_offset, dir.size(), kTermListVersion);
}

Result<std::unique_ptr<TermListReader>> TermListReader::Open(const std::string& path) {
  std::unique_ptr<TermListReader> r(new TermListReader());
  DPS_ASSIGN_OR_RETURN(r->file_, PagedFileReader::Open(path));
  const PagedFileReader& f = *r->file_;
  auto bad = [&](uint64_t offset, const std::string& what) {
    return Status::Corruption(path + ": offset " + std::to_string(offset) + ": " + what);
  };
  if (f.format_version() != kTermListVersion) {
    return Status::Unsupported(path + ": term list version " + std::to_string(f.format_version()) +
                               " (this build reads " + std::to_string(kTermListVersion) + ")");
  }
  DPS_ASSIGN_OR_RETURN(std::string_view header, f.Read(0, kFileHeaderSize));
  DPS_RETURN_IF_ERROR(
      CheckFileHeader(header, {kTermListMagic, kTermListVersion}, kTermListFlagPositions, "term list").WithContext(path));
  r->positions_ = (DecodeFixed32(reinterpret_cast<const uint8_t*>(header.data()) + 12) & kTermListFlagPositions) != 0;
  DPS_ASSIGN_OR_RETURN(std::string_view dir, f.Read(f.directory_offset(), f.directory_size()));
  auto* d = reinterpret_cast<const uint8_t*>(dir.data());
  if (dir.size() < 8) return bad(f.directory_offset(), "short directory");
  const uint32_t bins = DecodeFixed32(d);
  if (DecodeFixed32(d + 4) != 0 || dir.size() != 8 + uint64_t{bins} * kBinRecordSize) {
    return bad(f.directory_offset(), "directory does not hold " + std::to_string(bins) + " bins");
  }
  r->dicts_.resize(bins);
  for (uint32_t i = 0; i < bins; ++i) {
    const uint8_t* rec = d + 8 + i * kBinRecordSize;
    const uint32_t bin = DecodeFixed32(rec);
    const uint64_t offset = DecodeFixed64(rec + 8), len = DecodeFixed64(rec + 16);
    if ((i > 0 && bin <= r->bins_.back()) || DecodeFixed32(rec + 4) != 0 ||
        offset > f.body_size() || len > f.body_size() - offset) {
      return bad(f.directory_offset() + 8 + i * kBinRecordSize, "bad bin record");
    }
    r->bins_.push_back(bin);
    DPS_RETURN_IF_ERROR(r->dicts_[i].Open(r->file_.get(), offset, len));
  }
  return r;
}

}  // namespace dps
