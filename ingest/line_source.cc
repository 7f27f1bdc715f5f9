#include "ingest/line_source.h"

#include <algorithm>
#include <cstring>

namespace dps {

namespace {
// 1 MiB blocks: a read(2) costs about as much as copying a few KiB, so at
// this size the syscalls disappear from profiles, and the buffer still fits
// in L2 on current servers.
constexpr size_t kInitialCapacity = 1 << 20;
// A buffer grown beyond this for a long line shrinks once the line is gone.
constexpr size_t kShrinkAbove = 16u << 20;
// Far above any real line; keeps the "+ 2" arithmetic below from wrapping.
constexpr size_t kMaxLineLimit = size_t{1} << 40;
constexpr std::string_view kBom = "\xEF\xBB\xBF";
}  // namespace

LineSource::LineSource(std::unique_ptr<ByteSource> source, size_t max_line_bytes)
    : source_(std::move(source)),
      max_line_bytes_(std::clamp<size_t>(max_line_bytes, 1, kMaxLineLimit)) {
  // Room for the longest line plus "\r\n", but no more.
  capacity_ = std::min(kInitialCapacity, max_line_bytes_ + 2);
  // Zeroed: simdjson reads the padding, and reading uninitialised bytes,
  // though harmless here, would make runs differ under valgrind and MSan.
  buf_.reset(new char[capacity_ + kLinePadding]());
}

Status LineSource::Fill() {
  if (begin_ > 0) {
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    scanned_ -= begin_;
    begin_ = 0;
  }
  if (capacity_ > kShrinkAbove && end_ < kInitialCapacity) {
    // The buffer grew for a long line that is gone now: give the memory back.
    std::unique_ptr<char[]> smaller(new char[kInitialCapacity + kLinePadding]());
    std::memcpy(smaller.get(), buf_.get(), end_);
    buf_ = std::move(smaller);
    capacity_ = kInitialCapacity;
  }
  if (end_ == capacity_) {
    size_t grown = std::min(capacity_ * 2, max_line_bytes_ + 2);
    std::unique_ptr<char[]> bigger(new char[grown + kLinePadding]());
    std::memcpy(bigger.get(), buf_.get(), end_);
    buf_ = std::move(bigger);
    capacity_ = grown;
  }
  DPS_ASSIGN_OR_RETURN(size_t got, source_->Read(buf_.get() + end_, capacity_ - end_));
  if (got == 0) eof_ = true;
  end_ += got;
  return Status::OK();
}

Result<LineSource::Kind> LineSource::Next(std::string_view* line) {
  for (;;) {
    const char* base = buf_.get();
    const void* nl =
        scanned_ < end_ ? std::memchr(base + scanned_, '\n', end_ - scanned_) : nullptr;
    size_t stop;  // end of the line's content
    if (nl != nullptr) {
      stop = static_cast<size_t>(static_cast<const char*>(nl) - base);
    } else {
      scanned_ = end_;
      if (end_ - begin_ > max_line_bytes_ + 1) return Discard();  // + 1: a '\r'
      if (!eof_) {
        DPS_RETURN_IF_ERROR(Fill());
        continue;
      }
      if (begin_ == end_) return Kind::kEnd;
      stop = end_;  // last line, no newline
    }
    size_t start = begin_;
    begin_ = scanned_ = std::min(stop + 1, end_);
    ++line_number_;
    std::string_view view(base + start, stop - start);
    if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
    if (view.size() > max_line_bytes_) return Kind::kTooLong;
    if (line_number_ == 1 && view.starts_with(kBom)) view.remove_prefix(kBom.size());
    *line = view;
    return Kind::kLine;
  }
}

Result<LineSource::Kind> LineSource::Discard() {
  ++line_number_;
  for (;;) {
    const void* nl = std::memchr(buf_.get() + scanned_, '\n', end_ - scanned_);
    if (nl != nullptr) {
      begin_ = scanned_ = static_cast<size_t>(static_cast<const char*>(nl) - buf_.get()) + 1;
      return Kind::kTooLong;
    }
    begin_ = scanned_ = end_ = 0;  // drop what we have; the buffer is not grown
    if (eof_) return Kind::kTooLong;
    DPS_RETURN_IF_ERROR(Fill());
  }
}

}  // namespace dps
