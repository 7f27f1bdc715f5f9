// libFuzzer target for spill runs (docs/FORMAT.md "Spill run",
// ingest/run_file.h): RunReader::Open and Next (header, block lengths and
// checksums, the end block, records ascending by (bin, term) within a
// block), OpenList (each record's posting list or singleton) and
// ReadPositions. Arbitrary bytes must fail with a Corruption or be read
// record by record without a crash or an out-of-bounds read; a list that
// reads whole yields ascending docids, exactly df of them. Round trip: the
// records of a run that reads whole, written again by RunWriter, read back
// the same. Input: mode (u8; bit 0: framed) | in raw mode the file's
// bytes; framed, the blocks' payloads as `len (u16) | payload`, which the
// target frames with the header, lengths, checksums and the end block, so
// the fuzzer reaches the records. Seeds in tests/fuzz/corpus/run_file_fuzz/
// are runs RunWriter wrote (with and without positions, singletons and
// lists of one and several blocks) in both modes (tests/fuzz/make_seeds.cc).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/checksum.h"
#include "common/coding.h"
#include "common/file_header.h"
#include "ingest/run_file.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

struct Record {
  uint32_t bin = 0;
  std::string term;
  std::vector<dps::DocId> docs;
  std::vector<uint32_t> weights, positions;
  bool operator==(const Record&) const = default;
};

void Expect(const dps::Status& s) {
  if (!s.ok() && !s.IsCorruption()) abort();
}

std::string Framed(std::string_view payloads) {
  std::string file;
  dps::EncodeFileHeader({dps::kRunMagic, dps::kRunVersion, 0}, &file);
  auto block = [&](std::string_view payload) {
    dps::PutFixed32(&file, static_cast<uint32_t>(payload.size()));
    dps::PutFixed64(&file, dps::Checksum64(payload));
    file.append(payload);
  };
  while (payloads.size() >= 2) {
    const std::string_view payload = payloads.substr(0, dps::fuzz::TakeLE(&payloads, 2));
    payloads.remove_prefix(payload.size());
    if (!payload.empty()) block(payload);
  }
  block("");  // the end block
  return file;
}

// Reads every record; false when the run does not read whole.
bool ReadRun(const std::string& path, std::vector<Record>* records) {
  auto run = dps::RunReader::Open(path);
  if (!run.ok()) {
    Expect(run.status());
    return false;
  }
  dps::RunReader& r = *run.value();
  bool whole = true;
  while (r.Valid() && records->size() < 2000) {
    Record rec{r.bin(), std::string(r.term()), {}, {}, {}};
    dps::PostingCursor cursor;
    dps::Status s = r.OpenList(&cursor);
    Expect(s);
    for (dps::DocId d = s.ok() ? cursor.doc() : dps::kEndDoc; d != dps::kEndDoc && rec.docs.size() <= cursor.df();
         d = cursor.Next()) {
      if (!rec.docs.empty() && d <= rec.docs.back()) abort();
      rec.docs.push_back(d);
      rec.weights.push_back(cursor.weight());
    }
    Expect(cursor.status());
    if (s.ok() && cursor.status().ok() && rec.docs.size() != cursor.df()) abort();
    whole = whole && s.ok() && cursor.status().ok();
    if (whole) {
      s = r.ReadPositions(rec.weights, &rec.positions);
      Expect(s);
      whole = s.ok();
    }
    // The writer's order holds across blocks too (the reader checks it within one).
    if (!records->empty() && (rec.bin < records->back().bin ||
                              (rec.bin == records->back().bin && rec.term <= records->back().term))) {
      whole = false;
    }
    records->push_back(std::move(rec));
    s = r.Next();
    Expect(s);
    whole = whole && s.ok();
    if (!s.ok()) return false;
  }
  return whole && !r.Valid();
}

void RoundTrip(const std::vector<Record>& records) {
  const std::string path = dps::fuzz::ScratchPath("again.run.tmp");
  auto writer = dps::RunWriter::Create(path);
  if (!writer.ok()) abort();
  for (const Record& rec : records) {
    if (!writer.value()->Add(rec.bin, rec.term, rec.docs, rec.weights, rec.positions).ok()) abort();
  }
  if (!writer.value()->Finish().ok()) abort();
  std::vector<Record> back;
  if (!ReadRun(path, &back) || back != records) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string path = dps::fuzz::ScratchPath("fuzz.run.tmp");
  dps::fuzz::WriteFileOrDie(path, (data[0] & 1) ? Framed(input) : std::string(input));
  std::vector<Record> records;
  if (ReadRun(path, &records)) RoundTrip(records);
  return 0;
}
