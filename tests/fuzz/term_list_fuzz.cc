// libFuzzer target for term lists (docs/FORMAT.md "Term list", "Tablet
// dictionary value"; index/term_list.h): TermListReader::Open (header,
// directory, each bin's dictionary), the walk of each dictionary, and each
// value through TabletReader::ParsePostingRef, OpenCursor and OpenPositions
// as the commit reads them, against a fixed tablet file (the one
// tests/fuzz/fuzz_tablet.cc writes, with or without positions as the term
// list's flag says). Arbitrary bytes must open with a Corruption or be read
// without a crash or an out-of-bounds read; a value that parses opens a
// cursor that yields ascending docids, exactly df of them when it reports
// no error. Round trip: the bins and entries of a term list that reads
// whole, written again by TermListWriter, read back the same. Input:
// directory size (u16) | the container's body, whose last `directory
// size` bytes are the directory; the target writes it as a paged container
// (valid checksums) in a scratch file on tmpfs. Seeds in
// tests/fuzz/corpus/term_list_fuzz/ are the term lists TabletWriter wrote
// beside the fixed tablet files (tests/fuzz/make_seeds.cc).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "index/positions.h"
#include "index/tablet_reader.h"
#include "index/term_list.h"
#include "tests/fuzz/fuzz_tablet.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

struct Bin {
  uint32_t bin = 0;
  std::vector<std::pair<std::string, std::string>> entries;
};

void Expect(const dps::Status& s) {
  if (!s.ok() && !s.IsCorruption()) abort();
}

// The fixed tablet files, with and without positions, written once.
const dps::TabletReader& Tablet(bool positions) {
  static std::unique_ptr<dps::TabletReader> tablets[2];
  auto& t = tablets[positions];
  if (t == nullptr) {
    const std::string path = dps::fuzz::ScratchPath(positions ? "000002.tab" : "000001.tab");
    dps::fuzz::WriteFuzzTablet(path, positions);
    auto opened = dps::TabletReader::Open(path);
    if (!opened.ok()) abort();
    t = std::move(opened.value());
  }
  return *t;
}

// Parses and opens one value as the commit does.
void ReadValue(const dps::TabletReader& tablet, size_t i, std::string_view value) {
  dps::PostingRef ref;
  const dps::Status parsed = tablet.ParsePostingRef(i, value, &ref);
  Expect(parsed);
  if (!parsed.ok()) return;
  const dps::BinInfo& b = tablet.bin(i);
  if (ref.df == 0 || (ref.df >= 2 && ref.in_file() == !ref.inline_postings.empty())) abort();
  if (ref.in_file() && (ref.offset < b.postings_offset || ref.offset + ref.len > b.postings_offset + b.postings_len)) {
    abort();
  }
  dps::PostingCursor cursor;
  const dps::Status opened = tablet.OpenCursor(ref, &cursor);
  Expect(opened);
  if (!opened.ok()) return;
  std::vector<uint32_t> weights;
  dps::DocId last = 0;
  for (dps::DocId d = cursor.doc(); d != dps::kEndDoc && weights.size() <= ref.df; d = cursor.Next()) {
    if (!weights.empty() && d <= last) abort();
    last = d;
    weights.push_back(cursor.weight());
  }
  Expect(cursor.status());
  if (cursor.status().ok() && weights.size() != ref.df) abort();
  if (!tablet.positions()) return;
  dps::PostingPositions positions;
  const dps::Status p = tablet.OpenPositions(ref, &positions);
  Expect(p);
  if (p.ok() && cursor.status().ok()) Expect(positions.CheckWhole(weights));
}

// Writes `bins` with TermListWriter and reads them back.
void RoundTrip(const std::vector<Bin>& bins, bool positions) {
  const std::string path = dps::fuzz::ScratchPath("again.dic");
  auto writer = dps::TermListWriter::Create(path, positions);
  if (!writer.ok()) abort();
  for (const Bin& b : bins) {
    if (!writer.value()->BeginBin(b.bin).ok()) abort();
    for (const auto& [key, value] : b.entries) {
      if (!writer.value()->Add(key, value).ok()) abort();
    }
    if (!writer.value()->EndBin().ok()) abort();
  }
  if (!writer.value()->Finish().ok()) abort();
  auto list = dps::TermListReader::Open(path);
  if (!list.ok() || list.value()->positions() != positions) abort();
  std::vector<Bin> back;
  for (size_t k = 0; k < list.value()->bin_count(); ++k) {
    back.push_back({list.value()->bin(k), {}});
    dps::TermDictCursor cursor(&list.value()->dict(k));
    for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next()) {
      back.back().entries.emplace_back(std::string(cursor.key()), std::string(cursor.value()));
    }
    if (!cursor.status().ok()) abort();
  }
  // The writer leaves out a bin without terms.
  std::vector<Bin> want;
  for (const Bin& b : bins) {
    if (!b.entries.empty()) want.push_back(b);
  }
  if (back.size() != want.size()) abort();
  for (size_t k = 0; k < back.size(); ++k) {
    if (back[k].bin != want[k].bin || back[k].entries != want[k].entries) abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const uint64_t directory_size = dps::fuzz::TakeLE(&input, 2);
  const uint64_t directory = directory_size <= input.size() ? input.size() - directory_size : 0;
  const std::string path = dps::fuzz::ScratchPath("fuzz.dic");
  dps::fuzz::WritePagedFileOrDie(path, input, directory, directory_size <= input.size() ? directory_size : 0,
                                 dps::kTermListVersion);
  auto list = dps::TermListReader::Open(path);
  if (!list.ok()) {
    Expect(list.status());
    return 0;
  }
  const dps::TermListReader& l = *list.value();
  const dps::TabletReader& tablet = Tablet(l.positions());
  std::vector<Bin> bins;
  bool whole = true;
  size_t values = 0;
  for (size_t k = 0; k < l.bin_count(); ++k) {
    bins.push_back({l.bin(k), {}});
    const int i = tablet.FindBin(dps::BinId{l.bin(k)});
    dps::TermDictCursor cursor(&l.dict(k));
    for (cursor.SeekToFirst(); cursor.Valid() && values < 2000; cursor.Next(), ++values) {
      auto& entries = bins.back().entries;
      if (!entries.empty() && entries.back().first >= cursor.key()) whole = false;  // the writer's keys ascend
      entries.emplace_back(std::string(cursor.key()), std::string(cursor.value()));
      if (i >= 0) ReadValue(tablet, static_cast<size_t>(i), cursor.value());
    }
    Expect(cursor.status());
    whole = whole && cursor.status().ok() && values < 2000;
  }
  if (whole) RoundTrip(bins, l.positions());
  return 0;
}
