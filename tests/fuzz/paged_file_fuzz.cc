// libFuzzer target for the paged container (docs/FORMAT.md "Paged
// container", index/paged_file.h): PagedFileReader::Open (footer magic and
// checksum, sizes, directory bounds, page table checksum) and Read/Verify
// of every page. Arbitrary bytes as a whole file must open with a
// Corruption or be read page by page without a crash or an out-of-bounds
// read, each read either the body's bytes or a Corruption. Round trip: the
// input written by PagedFileWriter as a body (its directory the last
// quarter) opens with the same sizes, directory and version and reads back
// exactly. Input: the file's bytes; the target writes them to a scratch
// file on tmpfs. Seeds in tests/fuzz/corpus/paged_file_fuzz/ are the
// golden index's tablet files and global index (tests/golden/v11, written
// by PagedFileWriter), copied by tests/fuzz/make_seeds.cc.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "index/paged_file.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

void Expect(const dps::Status& s) {
  if (!s.ok() && !s.IsCorruption()) abort();
}

void ReadAll(const dps::PagedFileReader& f, std::string_view file_bytes) {
  if (f.body_size() + 8 * f.page_count() + dps::kFooterSize != file_bytes.size()) abort();
  if (f.directory_offset() + f.directory_size() > f.body_size()) abort();
  for (uint64_t page = 0; page < f.page_count(); ++page) {
    const uint64_t at = page * dps::kPageSize;
    auto bytes = f.Read(at, std::min<uint64_t>(dps::kPageSize, f.body_size() - at));
    Expect(bytes.status());
    if (bytes.ok() && bytes.value() != file_bytes.substr(at, bytes.value().size())) abort();
  }
  Expect(f.Verify(f.directory_offset(), f.directory_size()));
  if (f.Read(f.body_size(), 1).ok() || f.Verify(0, f.body_size() + 1).ok()) abort();  // past the body
}

void RoundTrip(std::string_view body) {
  const std::string path = dps::fuzz::ScratchPath("paged.written");
  const uint64_t directory = body.size() - body.size() / 4;
  dps::fuzz::WritePagedFileOrDie(path, body, directory, body.size() / 4, 7);
  auto f = dps::PagedFileReader::Open(path);
  if (!f.ok()) abort();
  const dps::PagedFileReader& r = *f.value();
  if (r.body_size() != body.size() || r.directory_offset() != directory || r.directory_size() != body.size() / 4 ||
      r.format_version() != 7 || r.page_count() != (body.size() + dps::kPageSize - 1) / dps::kPageSize) {
    abort();
  }
  auto all = r.Read(0, body.size());
  if (!all.ok() || all.value() != body || r.verified_pages() != r.page_count()) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string path = dps::fuzz::ScratchPath("paged");
  dps::fuzz::WriteFileOrDie(path, input);
  auto f = dps::PagedFileReader::Open(path);
  if (f.ok()) {
    ReadAll(*f.value(), input);
  } else {
    Expect(f.status());
  }
  RoundTrip(input);
  return 0;
}
