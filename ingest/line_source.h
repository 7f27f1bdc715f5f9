// LineSource: splits a ByteSource into lines, zero-copy.
//
// Bytes are read in large blocks into one buffer and lines are handed out as
// views into it, so a whole block of lines is split (and, for JSONL, parsed)
// in place without an allocation per line. Every view is followed by at least
// kLinePadding readable bytes, which is what simdjson needs to parse the line
// where it lies. The buffer grows for long lines, up to max_line_bytes.
//
// Line ends are "\n" or "\r\n"; a last line without a newline is still a
// line (a "\r" ending it is dropped, as a cut-short "\r\n").
// A UTF-8 byte order mark at the start of the input is dropped.
// Owns its ByteSource; one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "common/status.h"
#include "ingest/byte_source.h"

namespace dps {

// simdjson::SIMDJSON_PADDING; checked against it in jsonl_parser.cc.
inline constexpr size_t kLinePadding = 64;

class LineSource {
 public:
  enum class Kind {
    kLine,     // *line holds the next line
    kTooLong,  // the next line exceeded max_line_bytes and was discarded
    kEnd,      // no more input
  };

  LineSource(std::unique_ptr<ByteSource> source, size_t max_line_bytes);

  // Moves to the next line. The view stays valid until the next call. Errors
  // come from the ByteSource and end the input.
  Result<Kind> Next(std::string_view* line);

  // 1-based number of the line (or discarded line) Next last produced.
  uint64_t line_number() const { return line_number_; }
  const ByteSource& source() const { return *source_; }

 private:
  // Makes room after the unread bytes (moving them to the front, growing the
  // buffer if they fill it) and reads more. Sets eof_ at the end.
  Status Fill();
  Result<Kind> Discard();  // skips the rest of an over-long line

  std::unique_ptr<ByteSource> source_;
  size_t max_line_bytes_;
  std::unique_ptr<char[]> buf_;
  size_t capacity_ = 0;  // usable bytes; kLinePadding more are allocated
  size_t begin_ = 0;     // first unread byte
  size_t scanned_ = 0;   // [begin_, scanned_) is known to hold no '\n'
  size_t end_ = 0;       // end of the bytes read
  bool eof_ = false;
  uint64_t line_number_ = 0;
};

}  // namespace dps
