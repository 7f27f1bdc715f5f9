#include "ingest/decompress.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <climits>
#include <string>

namespace dps {

namespace {

// Compressed bytes are read in blocks of this size: large enough that the
// per-read cost vanishes, small enough to stay in L2.
constexpr size_t kInputBlock = 256 * 1024;

// Shared plumbing: the compressed source and its input buffer.
class DecompressorBase : public ByteSource {
 public:
  explicit DecompressorBase(std::unique_ptr<ByteSource> in)
      : ByteSource(in->name()), in_(std::move(in)), buf_(new char[kInputBlock]) {}
  uint64_t bytes_read() const override { return in_->bytes_read(); }
  std::optional<uint64_t> total_bytes() const override { return in_->total_bytes(); }

 protected:
  // Reads the next compressed block into buf_; returns its size, 0 at end.
  Result<size_t> Refill() { return in_->Read(buf_.get(), kInputBlock); }

  Status Bad(const char* format, uint64_t offset, std::string_view detail) const {
    std::string msg = name() + ": " + format + " at compressed byte " + std::to_string(offset);
    if (!detail.empty()) msg += std::string(": ") + std::string(detail);
    return Status::InvalidArgument(std::move(msg));
  }

  std::unique_ptr<ByteSource> in_;
  std::unique_ptr<char[]> buf_;
};

class GzipSource final : public DecompressorBase {
 public:
  explicit GzipSource(std::unique_ptr<ByteSource> in) : DecompressorBase(std::move(in)) {
    zs_.zalloc = Z_NULL;
    zs_.zfree = Z_NULL;
    zs_.opaque = Z_NULL;
    zs_.next_in = Z_NULL;
    zs_.avail_in = 0;
    // 16 + MAX_WBITS: gzip wrapper only (a raw zlib stream in a .gz file is
    // a misnamed file, reported as a bad header).
    init_ok_ = inflateInit2(&zs_, 16 + MAX_WBITS) == Z_OK;
  }
  ~GzipSource() override {
    if (init_ok_) inflateEnd(&zs_);
  }

  Result<size_t> Read(char* out, size_t n) override {
    if (!init_ok_) return Status::IOError(name() + ": zlib: initialisation failed");
    zs_.next_out = reinterpret_cast<Bytef*>(out);
    zs_.avail_out = static_cast<uInt>(std::min<size_t>(n, UINT_MAX));
    const uInt want = zs_.avail_out;
    for (;;) {
      if (zs_.avail_in == 0 && !eof_) {
        DPS_ASSIGN_OR_RETURN(size_t got, Refill());
        if (got == 0) eof_ = true;
        zs_.next_in = reinterpret_cast<Bytef*>(buf_.get());
        zs_.avail_in = static_cast<uInt>(got);
      }
      if (zs_.avail_in == 0 && eof_ && between_members_) return want - zs_.avail_out;
      if (between_members_) {
        // More bytes after a complete member: they must be another member.
        inflateReset(&zs_);
        between_members_ = false;
      }
      int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        between_members_ = true;
      } else if (rc == Z_BUF_ERROR) {
        if (zs_.avail_in == 0 && eof_) return Bad("truncated gzip stream", Offset(), "");
      } else if (rc != Z_OK) {
        return Bad("corrupt gzip stream", Offset(), zs_.msg ? zs_.msg : "inflate failed");
      }
      if (zs_.avail_out < want) return want - zs_.avail_out;
    }
  }

 private:
  uint64_t Offset() const { return in_->bytes_read() - zs_.avail_in; }

  z_stream zs_{};
  bool init_ok_ = false;
  bool eof_ = false;
  bool between_members_ = true;  // nothing started yet counts as "between"
};

class ZstdSource final : public DecompressorBase {
 public:
  explicit ZstdSource(std::unique_ptr<ByteSource> in)
      : DecompressorBase(std::move(in)), dctx_(ZSTD_createDCtx()) {}
  ~ZstdSource() override { ZSTD_freeDCtx(dctx_); }

  Result<size_t> Read(char* out, size_t n) override {
    if (dctx_ == nullptr) return Status::IOError(name() + ": zstd: out of memory");
    ZSTD_outBuffer ob{out, n, 0};
    for (;;) {
      if (ib_.pos == ib_.size && !eof_) {
        DPS_ASSIGN_OR_RETURN(size_t got, Refill());
        if (got == 0) eof_ = true;
        ib_ = ZSTD_inBuffer{buf_.get(), got, 0};
      }
      const bool no_more_input = ib_.pos == ib_.size && eof_;
      if (no_more_input && frame_complete_) return ob.pos;  // flushed all
      size_t rc = ZSTD_decompressStream(dctx_, &ob, &ib_);
      if (ZSTD_isError(rc)) {
        return Bad("corrupt zstd stream", Offset(), ZSTD_getErrorName(rc));
      }
      // rc == 0: a frame ended and its output is fully flushed.
      frame_complete_ = rc == 0;
      if (ob.pos > 0) return ob.pos;
      if (no_more_input && !frame_complete_) {
        return Bad("truncated zstd stream", Offset(), "");
      }
    }
  }

 private:
  uint64_t Offset() const { return in_->bytes_read() - (ib_.size - ib_.pos); }

  ZSTD_DCtx* dctx_;
  ZSTD_inBuffer ib_{nullptr, 0, 0};
  bool eof_ = false;
  bool frame_complete_ = true;  // an empty file holds no partial frame
};

}  // namespace

Compression CompressionFromName(std::string_view name) {
  if (name.ends_with(".gz")) return Compression::kGzip;
  if (name.ends_with(".zst")) return Compression::kZstd;
  return Compression::kNone;
}

std::unique_ptr<ByteSource> NewDecompressor(Compression c, std::unique_ptr<ByteSource> compressed) {
  switch (c) {
    case Compression::kGzip:
      return std::make_unique<GzipSource>(std::move(compressed));
    case Compression::kZstd:
      return std::make_unique<ZstdSource>(std::move(compressed));
    case Compression::kNone:
      break;
  }
  return compressed;
}

}  // namespace dps
