// libFuzzer target for the streaming readers (ingest/document_reader.h):
// the lines reader, and the JSONL reader as ingest runs it (NewJsonlReader
// over LineSource, batched with NextBatch), both over a memory ByteSource.
// Arbitrary bytes must give documents with a non-empty id and valid UTF-8,
// or InvalidArgument; the lines reader with the default limit must give
// exactly the model's documents: one per line that is not blank (spaces,
// tabs, CRs), id its 1-based line number, text the line without its "\n"
// or "\r\n" (a last line without "\n" loses a final "\r" too) and with
// invalid UTF-8 replaced, a leading byte order mark dropped. Input: flags
// (u8; bit 0: JSONL instead of lines; bit 1: skip_bad; bit 2: a 32-byte
// record limit) | the input. Seeds in
// tests/fuzz/corpus/lines_reader_fuzz/ are the golden corpus
// (tests/golden/corpus-a.jsonl) and a few plain text lines, CRLF, blank
// lines and invalid UTF-8 under each flag (tests/fuzz/make_seeds.cc).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/byte_source.h"
#include "ingest/jsonl_reader.h"
#include "ingest/lines_reader.h"
#include "ingest/utf8.h"

namespace {

// The lines format's documents of `input`, by its rules (lines_reader.h).
std::vector<dps::RawDocument> Model(std::string_view input) {
  if (input.substr(0, 3) == "\xEF\xBB\xBF") input.remove_prefix(3);
  std::vector<dps::RawDocument> docs;
  uint64_t number = 0;
  while (!input.empty()) {
    const size_t nl = input.find('\n');
    std::string_view line = input.substr(0, nl);
    input.remove_prefix(nl == std::string_view::npos ? input.size() : nl + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // also ending the last line
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    dps::RawDocument d;
    d.id = std::to_string(number);
    uint64_t replaced = 0;
    d.text = dps::SanitizeUtf8(line, &replaced);
    docs.push_back(std::move(d));
  }
  return docs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  const std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  dps::ReaderOptions options;
  options.skip_bad = flags & 2;
  if (flags & 4) options.max_record_bytes = 32;
  auto source = dps::NewMemorySource(input, "fuzz");
  std::unique_ptr<dps::DocumentReader> reader = (flags & 1) ? dps::NewJsonlReader(std::move(source), options)
                                                            : dps::NewLinesReader(std::move(source), options);
  std::vector<dps::RawDocument> docs, batch;
  dps::Status s;
  for (;;) {
    auto n = reader->NextBatch(&batch, 1 + flags % 97);
    if (!n.ok()) {
      s = n.status();
      break;
    }
    if (n.value() == 0) break;
    for (auto& d : batch) docs.push_back(d);
  }
  if (!s.ok() && !s.IsInvalidArgument()) abort();
  for (const auto& d : docs) {
    if (d.id.empty() || !dps::IsValidUtf8(d.id) || !dps::IsValidUtf8(d.title) || !dps::IsValidUtf8(d.text)) abort();
  }
  if (s.ok() && reader->stats().documents != docs.size()) abort();  // a failed batch's documents are dropped
  if ((flags & 1) || (flags & 4)) return 0;
  // The lines format, no limit in reach: exactly the model's documents.
  const std::vector<dps::RawDocument> want = Model(input);
  if (!s.ok() || docs.size() != want.size()) abort();
  for (size_t i = 0; i < docs.size(); ++i) {
    if (docs[i].id != want[i].id || docs[i].text != want[i].text || !docs[i].title.empty()) abort();
  }
  return 0;
}
