// libFuzzer target for the JSONL reader: line splitting, simdjson parsing,
// string decoding, validation of skipped values and UTF-8 repair. The first
// byte picks options (skip_bad, a tiny line limit, renamed fields) so those
// paths are fuzzed too. Every returned document must be valid UTF-8 with a
// non-empty id; any other outcome than a document or an InvalidArgument is a
// bug. scripts/fuzz.sh [SECONDS] builds it (clang, ASan, UBSan) and runs it
// from the seeds in tests/fuzz/corpus/jsonl_reader_fuzz/, each a flags byte
// ('0' defaults, '1' skip_bad, '2' the line limit, '4' renamed fields, '8'
// declared fields (`ingest --field`: strings, arrays of strings, null), one
// of them also the text when renamed: the low bits of an ASCII digit)
// followed by JSONL. Each line is also parsed by hand (the path of lines
// over 1 MiB) and must agree with simdjson's.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ingest/json_text.h"
#include "ingest/jsonl_parser.h"
#include "ingest/jsonl_reader.h"
#include "ingest/line_source.h"
#include "ingest/utf8.h"

namespace {

bool IsJsonValueLine(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  size_t length = 0;
  if (!dps::SkipJsonValue(line, &length)) return false;
  return line.substr(length).find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// Each line through the parser's two paths (simdjson, and by hand as for
// lines over 1 MiB): the same document, or both refuse; what they accept is
// well-formed JSON.
void CompareWithParseByHand(std::string_view input, const dps::ReaderOptions& options) {
  dps::JsonlParser simd(options), by_hand(options);
  by_hand.ParseByHandAbove(0);
  while (!input.empty()) {
    const size_t end = std::min(input.find('\n'), input.size());
    std::string padded(input.substr(0, end));
    const size_t length = padded.size();
    padded.resize(length + dps::kLinePadding, ' ');
    input.remove_prefix(std::min(end + 1, input.size()));
    dps::RawDocument a, b;
    uint64_t ra = 0, rb = 0;
    auto x = simd.Parse(std::string_view(padded.data(), length), &a, &ra);
    auto y = by_hand.Parse(std::string_view(padded.data(), length), &b, &rb);
    if (x.ok() != y.ok()) std::abort();
    if (x.ok() && *x && !IsJsonValueLine(std::string_view(padded.data(), length))) std::abort();
    if (!x.ok()) continue;
    if (*x != *y) std::abort();
    if (*x && (a.id != b.id || a.title != b.title || a.text != b.text || a.fields != b.fields || ra != rb)) {
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  dps::ReaderOptions options;
  const uint8_t flags = data[0];
  options.skip_bad = flags & 1;
  if (flags & 2) options.max_record_bytes = 32;
  if (flags & 4) {
    options.id_field = "i";
    options.text_field = "t";
    options.title_field = "";
  }
  if (flags & 8) options.fields = {"author", "tags", "t"};
  const size_t declared = options.fields.size();
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  dps::Status s = dps::ParseJsonlBuffer(
      input, options,
      [declared](const dps::RawDocument& doc) {
        if (doc.id.empty() || !dps::IsValidUtf8(doc.id) || !dps::IsValidUtf8(doc.title) ||
            !dps::IsValidUtf8(doc.text) || doc.fields.size() != declared) {
          std::abort();
        }
        for (const auto& values : doc.fields) {
          for (const auto& v : values) {
            if (!dps::IsValidUtf8(v)) std::abort();
          }
        }
      },
      nullptr);
  if (!s.ok() && !s.IsInvalidArgument()) std::abort();
  if (!s.ok() && s.message().find('\n') != std::string::npos) std::abort();  // one line
  CompareWithParseByHand(input, options);
  return 0;
}
