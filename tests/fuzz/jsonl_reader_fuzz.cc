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
// followed by JSONL.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ingest/jsonl_reader.h"
#include "ingest/utf8.h"

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
  return 0;
}
