#include "ingest/run_file.h"

#include "index/positions.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/file.h"
#include "common/file_header.h"
#include "common/checksum.h"
#include "common/coding.h"

namespace dps {

namespace {
constexpr size_t kBlockHeaderSize = 12;   // payload length u32 | XXH3-64 of payload u64
constexpr size_t kBlockTarget = 64 << 10;  // records are cut into blocks of about this size
constexpr uint32_t kMaxBlock = 1u << 30;
}  // namespace

void RunBlockEncoder::Flush() {
  if (block_.empty()) return;
  PutFixed32(&blocks_, static_cast<uint32_t>(block_.size()));
  PutFixed64(&blocks_, Checksum64(block_));
  blocks_.append(block_);
  block_.clear();
}

Status RunBlockEncoder::Add(uint32_t bin, std::string_view term, std::span<const DocId> docs,
                            std::span<const uint32_t> weights, std::span<const uint32_t> positions) {
  if (docs.empty() || docs.size() != weights.size()) {
    return Status::InvalidArgument("RunWriter: empty list or size mismatch");
  }
  PutVarint32(&block_, bin);
  PutLengthPrefixed(&block_, term);
  PutVarint32(&block_, static_cast<uint32_t>(docs.size()));
  if (docs.size() == 1) {
    PutVarint32(&block_, docs[0]);
    PutVarint32(&block_, weights[0]);
  } else {
    list_.clear();
    EncodePostingList(docs, weights, /*lengths=*/weights, /*score_avgdl=*/1.0, &list_);  // a run knows no lengths: its impacts are never read
    PutLengthPrefixed(&block_, list_);
  }
  list_.clear();
  if (!positions.empty()) AppendInlinePositions(weights, positions, &list_);
  PutLengthPrefixed(&block_, list_);
  if (block_.size() >= kBlockTarget) Flush();
  return Status::OK();
}

Result<std::unique_ptr<RunWriter>> RunWriter::Create(const std::string& path) {
  DPS_ASSIGN_OR_RETURN(auto file, WritableFile::Create(path));
  std::unique_ptr<RunWriter> w(new RunWriter(std::move(file)));
  std::string header;
  EncodeFileHeader({kRunMagic, kRunVersion, 0}, &header);  // no flags yet
  DPS_RETURN_IF_ERROR(w->file_->Append(header));
  return w;
}

Status RunWriter::WriteClosedBlocks() {
  std::string* blocks = encoder_.blocks();
  if (blocks->empty()) return Status::OK();
  DPS_RETURN_IF_ERROR(file_->Append(*blocks));
  blocks->clear();
  return Status::OK();
}

Status RunWriter::Add(uint32_t bin, std::string_view term, std::span<const DocId> docs,
                      std::span<const uint32_t> weights, std::span<const uint32_t> positions) {
  DPS_RETURN_IF_ERROR(encoder_.Add(bin, term, docs, weights, positions));
  return WriteClosedBlocks();
}

Status RunWriter::AppendBlocks(std::string_view blocks) {
  encoder_.Flush();
  DPS_RETURN_IF_ERROR(WriteClosedBlocks());
  return file_->Append(blocks);
}

Status RunWriter::Finish() {
  encoder_.Flush();
  DPS_RETURN_IF_ERROR(WriteClosedBlocks());
  std::string end;  // the empty end block
  PutFixed32(&end, 0);
  PutFixed64(&end, Checksum64(std::string_view()));
  DPS_RETURN_IF_ERROR(file_->Append(end));
  DPS_RETURN_IF_ERROR(file_->Sync());
  return file_->Close();
}

RunReader::~RunReader() {
  if (fd_ >= 0) ::close(fd_);
}

std::string RunReader::Where(uint64_t offset) const {
  return path_ + ": offset " + std::to_string(offset);
}

Result<std::unique_ptr<RunReader>> RunReader::Open(const std::string& path) {
  std::unique_ptr<RunReader> r(new RunReader());
  r->path_ = path;
  r->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (r->fd_ < 0) return ErrnoError(path, "open");
  struct stat st;
  if (fstat(r->fd_, &st) != 0) return ErrnoError(path, "fstat");
  r->file_size_ = static_cast<uint64_t>(st.st_size);
  // Sequential reads: let the kernel read ahead, and drop what we passed.
  (void)posix_fadvise(r->fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  char header[kFileHeaderSize];
  DPS_RETURN_IF_ERROR(r->ReadExact(0, kFileHeaderSize, header));
  DPS_RETURN_IF_ERROR(CheckFileHeader(std::string_view(header, kFileHeaderSize), {kRunMagic, kRunVersion}, 0,
                                      "spill run")
                          .WithContext(r->path()));
  r->next_block_ = kFileHeaderSize;
  DPS_RETURN_IF_ERROR(r->Next());
  return r;
}

Status RunReader::ReadExact(uint64_t offset, size_t len, char* out) {
  if (offset > file_size_ || len > file_size_ - offset) {
    return Status::Corruption(Where(offset) + ": truncated spill run");
  }
  return ReadAt(fd_, path_, offset, len, out);
}

Status RunReader::ReadBlock() {
  char header[kBlockHeaderSize];
  DPS_RETURN_IF_ERROR(ReadExact(next_block_, kBlockHeaderSize, header));
  auto* h = reinterpret_cast<const uint8_t*>(header);
  const uint32_t len = DecodeFixed32(h);
  if (len > kMaxBlock) return Status::Corruption(Where(next_block_) + ": block length " + std::to_string(len));
  block_offset_ = next_block_ + kBlockHeaderSize;
  // Before the buffer grows: a damaged length must not cost a gigabyte.
  if (len > file_size_ - block_offset_) return Status::Corruption(Where(block_offset_) + ": truncated spill run");
  block_.resize(len);
  DPS_RETURN_IF_ERROR(ReadExact(block_offset_, len, block_.data()));
  if (Checksum64(block_) != DecodeFixed64(h + 4)) {
    return Status::Corruption(Where(next_block_) + ": spill run block checksum mismatch");
  }
  // The pages just read are done with: keep the page cache small too.
  (void)posix_fadvise(fd_, static_cast<off_t>(next_block_), static_cast<off_t>(kBlockHeaderSize + len),
                      POSIX_FADV_DONTNEED);
  next_block_ = block_offset_ + len;
  pos_ = 0;
  if (len == 0) {
    ended_ = true;
    if (next_block_ != file_size_) return Status::Corruption(Where(next_block_) + ": data after the end block");
  }
  return Status::OK();
}

Status RunReader::Next() {
  valid_ = false;
  if (ended_) return Status::OK();
  if (pos_ >= block_.size()) {
    DPS_RETURN_IF_ERROR(ReadBlock());
    if (ended_) return Status::OK();
  }
  auto* p = reinterpret_cast<const uint8_t*>(block_.data()) + pos_;
  auto* end = reinterpret_cast<const uint8_t*>(block_.data()) + block_.size();
  const uint32_t prev_bin = bin_;
  const std::string_view prev_term = term_;
  const bool first = term_.data() == nullptr;
  p = GetVarint32(p, end, &bin_);
  if (p != nullptr) p = GetLengthPrefixed(p, end, &term_);
  if (p != nullptr) p = GetVarint32(p, end, &df_);
  if (p != nullptr && df_ == 1) {
    p = GetVarint32(p, end, &single_doc_);
    if (p != nullptr) p = GetVarint32(p, end, &single_weight_);
    if (p != nullptr && (single_doc_ > kMaxDocId || single_weight_ == 0)) p = nullptr;
  } else if (p != nullptr && df_ >= 2) {
    p = GetLengthPrefixed(p, end, &list_);
    list_offset_ = block_offset_ + static_cast<uint64_t>(reinterpret_cast<const char*>(p) - block_.data()) - list_.size();
  } else {
    p = nullptr;
  }
  if (p != nullptr) p = GetLengthPrefixed(p, end, &positions_);
  // prev_term views the previous block after a refill: compare only within one.
  const bool same_block = pos_ > 0;
  if (p == nullptr || (!first && same_block && (bin_ < prev_bin || (bin_ == prev_bin && term_ <= prev_term)))) {
    return Status::Corruption(Where(block_offset_ + pos_) + ": malformed spill run record");
  }
  pos_ = static_cast<size_t>(reinterpret_cast<const char*>(p) - block_.data());
  valid_ = true;
  return Status::OK();
}

Status RunReader::ReadPositions(std::span<const uint32_t> weights, std::vector<uint32_t>* out) const {
  if (positions_.empty()) return Status::OK();
  const auto* p = reinterpret_cast<const uint8_t*>(positions_.data());
  const auto* end = p + positions_.size();
  if (ParseInlinePositions(p, end, weights, out) != end) {
    return Status::Corruption(Where(list_offset_) + ": malformed positions of '" + std::string(term_) + "'");
  }
  return Status::OK();
}

Status RunReader::OpenList(PostingCursor* cursor) const {
  if (df_ == 1) {
    cursor->InitSingleton(single_doc_, single_weight_);
    return Status::OK();
  }
  return cursor->Init(reinterpret_cast<const uint8_t*>(list_.data()), list_.size(), df_, &path_,
                      list_offset_);
}

}  // namespace dps
