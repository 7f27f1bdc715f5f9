#include "ingest/document_reader.h"

#include <sys/stat.h>

#include "ingest/byte_source.h"
#include "ingest/dir_reader.h"
#include "ingest/jsonl_reader.h"
#include "ingest/lines_reader.h"

namespace dps {

void ReaderStats::Merge(const ReaderStats& other) {
  documents += other.documents;
  blank_lines += other.blank_lines;
  bad_records += other.bad_records;
  binary_files += other.binary_files;
  skipped_entries += other.skipped_entries;
  utf8_replacements += other.utf8_replacements;
  for (const std::string& e : other.first_errors) {
    if (first_errors.size() >= kKeptErrors) break;
    first_errors.push_back(e);
  }
}

Result<bool> DocumentReader::Next(RawDocument* doc) {
  if (!error_.ok()) return error_;
  Result<bool> more = ReadNext(doc);
  if (!more.ok()) {
    error_ = more.status();
  } else if (*more) {
    ++stats_.documents;
  }
  return more;
}

Result<size_t> DocumentReader::NextBatch(std::vector<RawDocument>* batch, size_t max_bytes) {
  size_t count = 0;
  size_t bytes = 0;
  while (count == 0 || bytes < max_bytes) {
    if (count == batch->size()) batch->emplace_back();
    RawDocument& doc = (*batch)[count];
    Result<bool> more = Next(&doc);
    if (!more.ok()) return more.status();
    if (!*more) break;
    bytes += doc.ByteSize();
    ++count;
  }
  batch->resize(count);
  return count;
}

Status DocumentReader::SkipOrFail(Status bad) {
  if (bad.ok() || !options_.skip_bad) return bad;
  ++stats_.bad_records;
  if (stats_.first_errors.size() < kKeptErrors) stats_.first_errors.push_back(bad.message());
  return Status::OK();
}

Result<InputFormat> ParseInputFormat(std::string_view name) {
  if (name == "jsonl") return InputFormat::kJsonl;
  if (name == "dir") return InputFormat::kDir;
  if (name == "lines") return InputFormat::kLines;
  if (name == "auto") return InputFormat::kAuto;
  return Status::InvalidArgument("unknown input format \"" + std::string(name) +
                                 "\" (expected jsonl, dir or lines)");
}

const char* InputFormatName(InputFormat format) {
  switch (format) {
    case InputFormat::kAuto:
      return "auto";
    case InputFormat::kJsonl:
      return "jsonl";
    case InputFormat::kDir:
      return "dir";
    case InputFormat::kLines:
      return "lines";
  }
  return "?";
}

InputFormat DetectFormat(const std::string& input) {
  if (input == "-") return InputFormat::kJsonl;
  struct stat st;
  if (stat(input.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return InputFormat::kDir;
  std::string_view name = input;
  if (name.ends_with(".gz"))
    name.remove_suffix(3);
  else if (name.ends_with(".zst"))
    name.remove_suffix(4);
  for (std::string_view ext : {".jsonl", ".ndjson", ".jsonlines", ".json"}) {
    if (name.ends_with(ext)) return InputFormat::kJsonl;
  }
  return InputFormat::kLines;
}

Result<std::unique_ptr<DocumentReader>> OpenReader(const std::string& input,
                                                   const ReaderOptions& options) {
  InputFormat format = options.format == InputFormat::kAuto ? DetectFormat(input) : options.format;
  if (format == InputFormat::kDir) {
    if (input == "-")
      return Status::InvalidArgument("-: --format dir needs a directory, not stdin");
    return OpenDirReader(input, options);
  }
  DPS_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(input));
  if (format == InputFormat::kLines) return NewLinesReader(std::move(source), options);
  return NewJsonlReader(std::move(source), options);
}

}  // namespace dps
