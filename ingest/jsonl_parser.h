// JsonlParser: one JSONL line -> RawDocument, with simdjson's On-Demand API.
//
// The line is parsed where it lies in the reader's block buffer (LineSource
// guarantees the padding simdjson reads past the end), with one parser whose
// internal buffers are reused for every line: no allocation per line beyond
// the document's own strings. Only the configured fields are decoded; other
// fields are skipped without being materialised.
//
// Rules: the line must be exactly one JSON object; "id" a non-empty string
// or an integer (rendered canonically: 42 -> "42", -0 -> "0"; 4.5 and 1e3
// are rejected); "text" a string; "title" a string or null, or absent. A
// repeated field keeps its last value, as in JavaScript and Python.
// Invalid UTF-8 in the line is replaced (U+FFFD) before parsing and counted.
//
// Owns a simdjson parser (a few times the longest line in scratch memory,
// up to 1 MiB lines: longer ones are parsed by hand); one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "ingest/document_reader.h"

namespace dps {

class JsonlParser {
 public:
  explicit JsonlParser(const ReaderOptions& options);
  ~JsonlParser();
  JsonlParser(const JsonlParser&) = delete;
  JsonlParser& operator=(const JsonlParser&) = delete;

  // Parses `line` (without its newline) into doc's id, title and text.
  // Returns false for a blank line (only JSON whitespace). Errors are
  // InvalidArgument with a bare message ("missing field \"text\""); the
  // caller prefixes file and line. Adds U+FFFD substitutions to *replaced.
  // REQUIRES: kLinePadding readable bytes after the end of `line`.
  Result<bool> Parse(std::string_view line, RawDocument* doc, uint64_t* replaced);

  // Lines longer than `bytes` (default 1 MiB) are parsed without simdjson,
  // whose index of a line costs a few times its size: for tests.
  void ParseByHandAbove(size_t bytes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dps
