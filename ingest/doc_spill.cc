#include "ingest/doc_spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/coding.h"
#include "common/file.h"

namespace dps {

DocSpill::DocSpill(std::string path, uint32_t bins, size_t columns)
    : path_(std::move(path)), bins_(bins), columns_(columns), bins_data_(bins) {
  for (Bin& b : bins_data_) b.lengths.resize(columns);
}

DocSpill::~DocSpill() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
}

Status DocSpill::Open() {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd_ < 0) return ErrnoError(path_, "open");
  return Status::OK();
}

Status DocSpill::Add(uint32_t bin, DocId docid, std::string_view id, std::string_view title,
                     std::string_view text, std::span<const uint32_t> lengths) {
  Bin& b = bins_data_[bin];
  auto memory = [&b] {
    size_t bytes = b.buffer.size();
    for (const auto& l : b.lengths) bytes += l.memory_bytes();
    return bytes;
  };
  // A long text is not copied into the buffer: the buffer so far goes
  // out, then this record's head and the text from where it lies, the
  // record a chunk of its own (linuxsrc's 24 MB headers were copied whole).
  const bool long_text = text.size() >= kChunkBytes;
  if (long_text) DPS_RETURN_IF_ERROR(FlushBin(bin));
  const size_t before = memory();
  PutVarint32(&b.buffer, docid);
  PutLengthPrefixed(&b.buffer, id);
  PutLengthPrefixed(&b.buffer, title);
  if (long_text) {
    PutVarint64(&b.buffer, text.size());
    const uint64_t len = b.buffer.size() + text.size();
    if (len > UINT32_MAX) return Status::InvalidArgument(path_ + ": a document of " + std::to_string(len) + " bytes");
    DPS_RETURN_IF_ERROR(WriteAt(fd_, path_, size_, b.buffer));
    DPS_RETURN_IF_ERROR(WriteAt(fd_, path_, size_ + b.buffer.size(), text));
    b.chunks.push_back(Chunk{size_, static_cast<uint32_t>(len)});
    size_ += len;
    b.buffer.clear();
  } else {
    PutLengthPrefixed(&b.buffer, text);
  }
  for (size_t c = 0; c < columns_; ++c) b.lengths[c].Set(docid, c < lengths.size() ? lengths[c] : 0);
  buffered_ += memory() - before;
  b.last = docid;
  ++b.docs;
  if (b.buffer.size() >= kChunkBytes) return FlushBin(bin);
  return Status::OK();
}

Status DocSpill::FlushBin(uint32_t bin) {
  Bin& b = bins_data_[bin];
  if (b.buffer.empty()) return Status::OK();
  DPS_RETURN_IF_ERROR(WriteAt(fd_, path_, size_, b.buffer));
  b.chunks.push_back(Chunk{size_, static_cast<uint32_t>(b.buffer.size())});
  size_ += b.buffer.size();
  buffered_ -= b.buffer.size();
  std::string().swap(b.buffer);
  return Status::OK();
}

Status DocSpill::Finish() {
  for (uint32_t bin = 0; bin < bins_; ++bin) DPS_RETURN_IF_ERROR(FlushBin(bin));
  return Status::OK();
}

Status DocSpill::ReadBin(uint32_t bin, const DocSink& emit) const {
  std::string chunk;
  for (const Chunk& c : bins_data_[bin].chunks) {
    chunk.resize(c.len);
    DPS_RETURN_IF_ERROR(ReadAt(fd_, path_, c.offset, c.len, chunk.data()));
    auto* p = reinterpret_cast<const uint8_t*>(chunk.data());
    auto* end = p + chunk.size();
    while (p < end) {
      uint32_t docid;
      std::string_view id, title, text;
      p = GetVarint32(p, end, &docid);
      if (p != nullptr) p = GetLengthPrefixed(p, end, &id);
      if (p != nullptr) p = GetLengthPrefixed(p, end, &title);
      if (p != nullptr) p = GetLengthPrefixed(p, end, &text);
      if (p == nullptr) {
        return Status::Corruption(path_ + ": spilled chunk at offset " + std::to_string(c.offset) +
                                  " is malformed");
      }
      DPS_RETURN_IF_ERROR(emit(docid, id, title, text));
    }
  }
  return Status::OK();
}

}  // namespace dps
