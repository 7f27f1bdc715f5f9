#include "ingest/lines_reader.h"

#include <charconv>

#include "ingest/line_source.h"
#include "ingest/utf8.h"

namespace dps {

namespace {

// Space, tab and CR only: a line of them has nothing to index.
bool IsBlank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

class LinesReader final : public DocumentReader {
 public:
  LinesReader(std::unique_ptr<ByteSource> source, const ReaderOptions& options)
      : DocumentReader(options), lines_(std::move(source), options.max_record_bytes) {}

  uint64_t bytes_read() const override { return lines_.source().bytes_read(); }
  std::optional<uint64_t> total_bytes() const override { return lines_.source().total_bytes(); }

 protected:
  Result<bool> ReadNext(RawDocument* doc) override {
    for (;;) {
      std::string_view line;
      DPS_ASSIGN_OR_RETURN(LineSource::Kind kind, lines_.Next(&line));
      if (kind == LineSource::Kind::kEnd) return false;
      if (kind == LineSource::Kind::kTooLong) {
        DPS_RETURN_IF_ERROR(SkipOrFail(Status::InvalidArgument(
            lines_.source().name() + ": line " + std::to_string(lines_.line_number()) +
            ": line longer than " + std::to_string(options_.max_record_bytes) + " bytes")));
        continue;
      }
      if (IsBlank(line)) {
        ++stats_.blank_lines;
        continue;
      }
      char digits[24];
      char* end = std::to_chars(digits, digits + sizeof(digits), lines_.line_number()).ptr;
      doc->id.assign(digits, end);
      doc->title.clear();
      doc->fields.clear();
      doc->text.assign(line);
      SanitizeUtf8InPlace(&doc->text, &stats_.utf8_replacements);
      doc->source = lines_.source().name();
      doc->source += ':';
      doc->source.append(digits, end);
      return true;
    }
  }

 private:
  LineSource lines_;
};

}  // namespace

std::unique_ptr<DocumentReader> NewLinesReader(std::unique_ptr<ByteSource> source,
                                               const ReaderOptions& options) {
  return std::make_unique<LinesReader>(std::move(source), options);
}

}  // namespace dps
