// Helpers shared by the ingest reader tests: writing inputs, compressing them
// the way gzip and zstd do, and draining a reader.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <fstream>
#include <string>
#include <vector>

#include "ingest/document_reader.h"

namespace dps::testing {

inline void WriteFile(const std::string& path, std::string_view contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  ASSERT_TRUE(out.good()) << path;
}

// One gzip member holding `data`.
inline std::string Gzip(std::string_view data, int level = 6) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// One zstd frame holding `data`, with a content checksum as the zstd tool
// writes by default.
inline std::string Zstd(std::string_view data, int level = 3) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  size_t n = ZSTD_compress2(cctx, out.data(), out.size(), data.data(), data.size());
  ZSTD_freeCCtx(cctx);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

// All documents of `reader`, or the first error.
struct Drained {
  std::vector<RawDocument> docs;
  Status status;
};

inline Drained Drain(DocumentReader* reader) {
  Drained d;
  for (;;) {
    RawDocument doc;
    Result<bool> more = reader->Next(&doc);
    if (!more.ok()) {
      d.status = more.status();
      return d;
    }
    if (!*more) return d;
    d.docs.push_back(std::move(doc));
  }
}

inline Drained OpenAndDrain(const std::string& input, const ReaderOptions& options,
                            ReaderStats* stats = nullptr) {
  auto reader = OpenReader(input, options);
  if (!reader.ok()) return Drained{{}, reader.status()};
  Drained d = Drain(reader->get());
  if (stats != nullptr) *stats = (*reader)->stats();
  return d;
}

}  // namespace dps::testing
