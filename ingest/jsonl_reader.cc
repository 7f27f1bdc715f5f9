#include "ingest/jsonl_reader.h"

#include <charconv>

#include "ingest/jsonl_parser.h"
#include "ingest/line_source.h"

namespace dps {

namespace {

class JsonlReader final : public DocumentReader {
 public:
  JsonlReader(std::unique_ptr<ByteSource> source, const ReaderOptions& options)
      : DocumentReader(options),
        lines_(std::move(source), options.max_record_bytes),
        parser_(options),
        source_prefix_(lines_.source().name() + ":") {}

  uint64_t bytes_read() const override { return lines_.source().bytes_read(); }
  std::optional<uint64_t> total_bytes() const override { return lines_.source().total_bytes(); }

 protected:
  Result<bool> ReadNext(RawDocument* doc) override {
    for (;;) {
      std::string_view line;
      DPS_ASSIGN_OR_RETURN(LineSource::Kind kind, lines_.Next(&line));
      if (kind == LineSource::Kind::kEnd) return false;
      if (kind == LineSource::Kind::kTooLong) {
        DPS_RETURN_IF_ERROR(
            SkipOrFail(Status::InvalidArgument("line longer than " +
                                               std::to_string(options_.max_record_bytes) + " bytes")
                           .WithContext(Where())));
        continue;
      }
      Result<bool> parsed = parser_.Parse(line, doc, &stats_.utf8_replacements);
      if (!parsed.ok()) {
        DPS_RETURN_IF_ERROR(SkipOrFail(parsed.status().WithContext(Where())));
        continue;
      }
      if (!*parsed) {
        ++stats_.blank_lines;
        continue;
      }
      // "name:line", from a prefix built once: this runs for every document.
      char digits[24];
      char* end = std::to_chars(digits, digits + sizeof(digits), lines_.line_number()).ptr;
      doc->source.assign(source_prefix_);
      doc->source.append(digits, end);
      return true;
    }
  }

 private:
  std::string Where() const {
    return lines_.source().name() + ": line " + std::to_string(lines_.line_number());
  }

  LineSource lines_;
  JsonlParser parser_;
  const std::string source_prefix_;
};

}  // namespace

std::unique_ptr<DocumentReader> NewJsonlReader(std::unique_ptr<ByteSource> source,
                                               const ReaderOptions& options) {
  return std::make_unique<JsonlReader>(std::move(source), options);
}

Status ParseJsonlBuffer(std::string_view data, const ReaderOptions& options,
                        const std::function<void(const RawDocument&)>& on_doc, ReaderStats* stats) {
  auto reader = NewJsonlReader(NewMemorySource(data, "<buffer>"), options);
  RawDocument doc;
  Status status;
  for (;;) {
    Result<bool> more = reader->Next(&doc);
    if (!more.ok()) {
      status = more.status();
      break;
    }
    if (!*more) break;
    on_doc(doc);
  }
  if (stats != nullptr) *stats = reader->stats();
  return status;
}

}  // namespace dps
