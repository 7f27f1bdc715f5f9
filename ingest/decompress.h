// Streaming decompression of gzip (zlib) and zstd inputs, as ByteSources
// wrapped around the compressed ByteSource.
//
// Both accept concatenated members/frames (pigz, `cat a.gz b.gz`, zstd
// --rsyncable output) and read them as one stream. A stream that ends inside
// a member or frame, or holds bytes that are not a member, is an
// InvalidArgument naming the input and the compressed byte offset: the input
// is bad, not the disk. An empty compressed file reads as empty input.
// bytes_read()/total_bytes() report compressed bytes, so progress is
// consumed file bytes against the file size.
#pragma once

#include <memory>
#include <string_view>

#include "ingest/byte_source.h"

namespace dps {

enum class Compression { kNone, kGzip, kZstd };

// By suffix: ".gz" -> kGzip, ".zst" -> kZstd, otherwise kNone. The content
// is not sniffed, so a misnamed file fails with a clear decoder error rather
// than being silently read as something else.
Compression CompressionFromName(std::string_view name);

// Returns a source yielding the decompressed bytes of `compressed`.
std::unique_ptr<ByteSource> NewDecompressor(Compression c, std::unique_ptr<ByteSource> compressed);

}  // namespace dps
