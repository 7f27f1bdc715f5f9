#include "index/paged_file.h"

#include <string>

#include "common/checksum.h"
#include "common/coding.h"

namespace dps {

namespace {
std::string At(uint64_t offset) { return "offset " + std::to_string(offset); }
}  // namespace

Result<std::unique_ptr<PagedFileWriter>> PagedFileWriter::Create(const std::string& path) {
  DPS_ASSIGN_OR_RETURN(auto file, WritableFile::Create(path));
  return std::unique_ptr<PagedFileWriter>(new PagedFileWriter(std::move(file)));
}

Status PagedFileWriter::Append(std::string_view data) {
  offset_ += data.size();
  DPS_RETURN_IF_ERROR(file_->Append(data));
  while (!data.empty()) {
    size_t take = std::min<size_t>(kPageSize - page_.size(), data.size());
    page_.append(data.data(), take);
    data.remove_prefix(take);
    if (page_.size() == kPageSize) {
      checksums_.push_back(Checksum64(page_));
      page_.clear();
    }
  }
  return Status::OK();
}

Status PagedFileWriter::Finish(uint64_t directory_offset, uint64_t directory_size,
                               uint32_t format_version) {
  if (!page_.empty()) checksums_.push_back(Checksum64(page_));
  page_.clear();
  std::string tail;
  for (uint64_t c : checksums_) PutFixed64(&tail, c);
  uint64_t table_checksum = Checksum64(tail);
  std::string footer;
  PutFixed64(&footer, directory_offset);
  PutFixed64(&footer, directory_size);
  PutFixed64(&footer, offset_);  // body size
  PutFixed32(&footer, kPageSize);
  PutFixed32(&footer, format_version);
  PutFixed64(&footer, table_checksum);
  PutFixed64(&footer, Checksum64(footer));
  PutFixed64(&footer, kFooterMagic);
  tail += footer;
  DPS_RETURN_IF_ERROR(file_->Append(tail));
  DPS_RETURN_IF_ERROR(file_->Sync());
  return file_->Close();
}

Result<std::unique_ptr<PagedFileReader>> PagedFileReader::Open(const std::string& path) {
  DPS_ASSIGN_OR_RETURN(auto file, MappedFile::Open(path));
  std::unique_ptr<PagedFileReader> r(new PagedFileReader());
  const uint64_t size = file->size();
  if (size < kFooterSize) {
    return Status::Corruption(path + ": offset " + std::to_string(size) +
                              ": file ends before the footer (truncated?)");
  }
  const uint64_t footer_at = size - kFooterSize;
  const uint8_t* f = file->data() + footer_at;
  if (DecodeFixed64(f + 48) != kFooterMagic) {
    return Status::Corruption(path + ": " + At(footer_at + 48) +
                              ": bad footer magic (truncated or not a dpsearch file)");
  }
  if (DecodeFixed64(f + 40) != Checksum64(f, 40)) {
    return Status::Corruption(path + ": " + At(footer_at) + ": footer checksum mismatch");
  }
  r->directory_offset_ = DecodeFixed64(f);
  r->directory_size_ = DecodeFixed64(f + 8);
  r->body_size_ = DecodeFixed64(f + 16);
  const uint32_t page_size = DecodeFixed32(f + 24);
  r->format_version_ = DecodeFixed32(f + 28);
  if (page_size != kPageSize) {
    return Status::Corruption(path + ": " + At(footer_at + 24) + ": unsupported page size " +
                              std::to_string(page_size));
  }
  r->page_count_ = (r->body_size_ + kPageSize - 1) / kPageSize;
  if (r->body_size_ > footer_at || r->page_count_ * 8 != footer_at - r->body_size_) {
    return Status::Corruption(path + ": " + At(footer_at + 16) + ": body size " +
                              std::to_string(r->body_size_) + " does not match file size " +
                              std::to_string(size));
  }
  if (r->directory_offset_ > r->body_size_ ||
      r->directory_size_ > r->body_size_ - r->directory_offset_) {
    return Status::Corruption(path + ": " + At(footer_at) + ": directory out of bounds");
  }
  r->table_ = file->data() + r->body_size_;
  if (Checksum64(r->table_, r->page_count_ * 8) != DecodeFixed64(f + 32)) {
    return Status::Corruption(path + ": " + At(r->body_size_) + ": page table checksum mismatch");
  }
  r->verified_.reset(new std::atomic<uint64_t>[(r->page_count_ + 63) / 64]());
  r->file_ = std::move(file);
  return r;
}

Status PagedFileReader::VerifyPage(uint64_t page) const {
  const uint64_t begin = page * kPageSize;
  const uint64_t len = std::min<uint64_t>(kPageSize, body_size_ - begin);
  if (Checksum64(file_->data() + begin, len) != DecodeFixed64(table_ + page * 8)) {
    return Status::Corruption(path() + ": page " + std::to_string(page) + " at " + At(begin) +
                              ": checksum mismatch");
  }
  verified_[page / 64].fetch_or(uint64_t{1} << (page % 64), std::memory_order_release);
  return Status::OK();
}

Status PagedFileReader::Verify(uint64_t offset, uint64_t len) const {
  if (offset > body_size_ || len > body_size_ - offset) {
    return Status::Corruption(path() + ": " + At(offset) + ": range of " + std::to_string(len) +
                              " bytes runs past the end of the data (" +
                              std::to_string(body_size_) + " bytes)");
  }
  if (len == 0) return Status::OK();
  // Before the verified-page shortcut: a page read once can still fail
  // later (the page cache dropped it, the device died).
  if (faults::Armed()) DPS_RETURN_IF_ERROR(file_->CheckRead(offset, len));
  const uint64_t first = offset / kPageSize;
  const uint64_t last = (offset + len - 1) / kPageSize;
  for (uint64_t page = first; page <= last; ++page) {
    uint64_t bits = verified_[page / 64].load(std::memory_order_acquire);
    if ((bits >> (page % 64)) & 1) continue;
    DPS_RETURN_IF_ERROR(VerifyPage(page));
  }
  return Status::OK();
}

Result<std::string_view> PagedFileReader::Read(uint64_t offset, uint64_t len) const {
  DPS_RETURN_IF_ERROR(Verify(offset, len));
  return std::string_view(reinterpret_cast<const char*>(file_->data() + offset), len);
}

size_t PagedFileReader::verified_pages() const {
  size_t n = 0;
  for (uint64_t i = 0; i < (page_count_ + 63) / 64; ++i) {
    n += static_cast<size_t>(__builtin_popcountll(verified_[i].load(std::memory_order_relaxed)));
  }
  return n;
}

}  // namespace dps
