// DocumentReader: the documents of one input, in input order, for the ingest
// pipeline. Three formats (DESIGN.md, "Command line"):
//
//   jsonl  one JSON object per line: "id" (string or integer), "text", and
//          optional "title"; other fields ignored; names configurable.
//          Blank lines are skipped.
//   dir    a directory tree: every regular file is a document whose id is its
//          path relative to the root ('/'-separated), title its file name,
//          text its content (.gz/.zst files decompressed). Binary files
//          are skipped and counted.
//   lines  one document per non-blank line: id = 1-based line number, no
//          title, text = the line.
//
// jsonl and lines read a file, "-" (standard input), or a .gz/.zst file
// decompressed on the fly (decompress.h).
//
// Errors. Bad input (a malformed JSON line, a missing or mistyped field, an
// over-long line, an unreadable file in a tree) is an InvalidArgument, or an
// IOError when the operating system refused, with one line naming the file
// and line: `corpus.jsonl: line 17: missing field "text"`. With
// ReaderOptions::skip_bad such records are skipped and counted (the first
// kKeptErrors messages are kept) and reading goes on; failures of the stream
// itself (read errors, corrupt compressed data) always end the input. After
// an error Next keeps returning it. Invalid UTF-8 is never an error: it is
// replaced with U+FFFD and counted (utf8.h).
//
// Thread-safety: a reader belongs to one thread (the serial input stage of
// the pipeline); the documents it returns are plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dps {

struct RawDocument {
  std::string id;
  std::string title;
  std::string text;
  // jsonl: the values of the fields ReaderOptions::fields declares, in that
  // order (each a string, or an array's strings; none when absent or null).
  std::vector<std::vector<std::string>> fields;
  // Where the document came from, for messages further down the pipeline:
  // "corpus.jsonl:17" for line formats, the file's path for dir.
  std::string source;

  // The bytes a batch is measured in (id, title and text).
  size_t ByteSize() const {
    size_t bytes = id.size() + title.size() + text.size();
    for (const auto& values : fields) {
      for (const auto& v : values) bytes += v.size();
    }
    return bytes;
  }
};

enum class InputFormat {
  kAuto,  // DetectFormat(input)
  kJsonl,
  kDir,
  kLines,
};

// "jsonl", "dir", "lines" (the --format values) and "auto".
Result<InputFormat> ParseInputFormat(std::string_view name);
const char* InputFormatName(InputFormat format);

// The format of `input` when none is given:
//   "-" (standard input)                                -> jsonl
//   an existing directory                               -> dir
//   a name ending in .jsonl .ndjson .jsonlines or .json,
//     optionally followed by .gz or .zst                -> jsonl
//   anything else                                       -> lines
// JSONL is the project's input format, so stdin defaults to it; a .json file
// holding one object per line is JSONL, and a pretty-printed one fails on
// its first line with a clear message. Never returns kAuto.
InputFormat DetectFormat(const std::string& input);

struct ReaderOptions {
  InputFormat format = InputFormat::kAuto;

  // jsonl: the fields holding the id, the text and the optional title.
  std::string id_field = "id";
  std::string text_field = "text";
  std::string title_field = "title";
  // jsonl: further fields to read (`ingest --field`), each a string, an
  // array of strings, null or absent; RawDocument::fields in this order.
  // Other formats have none (their documents' fields stay empty).
  std::vector<std::string> fields;

  // Skip bad records (counted in ReaderStats::bad_records, first messages
  // kept) instead of failing the input. Off by default: silently indexing
  // part of a corpus is worse than stopping with a clear message.
  bool skip_bad = false;

  // dir: follow symbolic links to directories. Off by default (such links
  // are skipped and counted), so a tree is indexed once however it links to
  // itself. When on, a directory already visited (same device and inode) is
  // skipped, so link cycles and bind-mount loops still terminate. Links to
  // files are always followed.
  bool follow_dir_symlinks = false;

  // The longest line (jsonl, lines) or file (dir) accepted; longer ones are
  // bad records. Bounds memory on input without newlines: simdjson needs
  // about five times a line's size while parsing it (its structural index
  // holds 4 bytes per input byte), so the default allows ~64 MiB documents
  // (far beyond any encyclopedia article) for at most a few hundred MB.
  size_t max_record_bytes = size_t{64} << 20;
};

// Messages of skipped bad records kept for the final report.
inline constexpr size_t kKeptErrors = 10;

struct ReaderStats {
  uint64_t documents = 0;                 // returned by Next
  uint64_t blank_lines = 0;               // jsonl, lines: skipped, not an error
  uint64_t bad_records = 0;               // skipped under skip_bad
  uint64_t binary_files = 0;              // dir: skipped as binary
  uint64_t skipped_entries = 0;           // dir: links to directories not followed,
                                          // directories seen before, fifos, sockets, devices
  uint64_t utf8_replacements = 0;         // U+FFFD substituted for invalid input
  std::vector<std::string> first_errors;  // the first kKeptErrors skipped-record messages

  // Adds `other`'s counters and keeps its messages while there is room.
  void Merge(const ReaderStats& other);
};

class DocumentReader {
 public:
  virtual ~DocumentReader() = default;
  DocumentReader(const DocumentReader&) = delete;
  DocumentReader& operator=(const DocumentReader&) = delete;

  // Fills *doc with the next document; false at the end of the input.
  // REQUIRES: doc != nullptr. All of *doc's fields are overwritten, reusing
  // their capacity.
  Result<bool> Next(RawDocument* doc);

  // Reads documents into *batch until their ByteSize() totals at least
  // max_bytes or the input ends, and returns how many; 0 at the end. The
  // batch is resized to the count; existing elements are overwritten, so a
  // recycled batch reuses its strings' capacity.
  Result<size_t> NextBatch(std::vector<RawDocument>* batch, size_t max_bytes);

  // Input bytes consumed so far and, when known, in total (compressed bytes
  // for compressed input), for progress bars and ETAs.
  virtual uint64_t bytes_read() const = 0;
  virtual std::optional<uint64_t> total_bytes() const = 0;

  const ReaderStats& stats() const { return stats_; }

 protected:
  explicit DocumentReader(const ReaderOptions& options) : options_(options) {}

  // The format's reading step, called by Next while no error has occurred.
  virtual Result<bool> ReadNext(RawDocument* doc) = 0;

  // For bad records: under skip_bad counts and keeps `bad` and returns OK,
  // so the caller moves on to the next record; otherwise returns `bad`.
  Status SkipOrFail(Status bad);

  const ReaderOptions options_;
  ReaderStats stats_;

 private:
  Status error_;  // sticky: once set, Next returns it
};

// Opens `input` (a path, or "-" for standard input) in options.format, or
// in DetectFormat(input) when that is kAuto.
Result<std::unique_ptr<DocumentReader>> OpenReader(const std::string& input,
                                                   const ReaderOptions& options);

}  // namespace dps
