// The dir format: every regular file under a root directory, walked
// depth-first with each directory's entries in byte order of their names, so
// the same tree always yields the same sequence. Each file is a document:
// id = its path relative to the root with '/' separators ("a/b.txt"),
// title = its file name, text = its content with invalid UTF-8 replaced.
// A file whose name ends in .gz or .zst is decompressed as it is read (like
// a .gz/.zst jsonl or lines input, decompress.h); its id and title keep the
// suffix, so "a" and "a.gz" side by side stay two documents and the id
// names the file on disk.
//
// Skipped and counted, not errors: binary files (a NUL byte in the first
// 8 KiB, or more than 30% of the bytes in invalid UTF-8) in
// ReaderStats::binary_files; fifos, sockets, devices, links to directories
// (unless ReaderOptions::follow_dir_symlinks) and directories already
// visited (same device and inode: link cycles, bind mounts) in
// ReaderStats::skipped_entries. Links to files are followed.
//
// The binary test applies to the decompressed content; reading stops at the
// first 8 KiB when they hold a NUL, so a large binary file is not read
// through.
//
// Errors (bad records, so skip_bad skips them): a file or directory that
// cannot be opened or read, a dangling or looping link, a file larger than
// max_record_bytes (decompressed: the limit bounds the memory a
// decompression bomb can take), corrupt or truncated compressed data. Each
// is one line naming the file. A root that is not a directory fails
// OpenDirReader.
//
// The walk is lazy (one directory listing per level in memory), so the
// total size is not known up front: total_bytes() is nullopt and
// bytes_read() counts file bytes read (compressed bytes for .gz/.zst).
#pragma once

#include <memory>
#include <string>

#include "ingest/document_reader.h"

namespace dps {

Result<std::unique_ptr<DocumentReader>> OpenDirReader(const std::string& root,
                                                      const ReaderOptions& options);

}  // namespace dps
