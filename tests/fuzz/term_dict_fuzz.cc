// libFuzzer target for the term dictionary (docs/FORMAT.md "Term
// dictionary", index/term_dict.h): front-coded blocks, the sparse index and
// trailer that Open decodes, Find, Locate + FindInBlock, and the cursor's
// SeekToFirst, Next and Seek. Arbitrary bytes as a region must open with a
// Corruption or be walked without a crash or an out-of-bounds read, every
// error a Corruption. When the walk's entries re-encode to exactly the
// input (a region as the writer writes it: keys ascending, whole shared
// prefixes), every lookup must agree with the walk: each key found with its
// value, Seek landing on it, keys between them absent. Round trip: entries
// built from the input, written by TermDictBuilder in blocks of 1 to 64,
// read back exactly. Input: the region's bytes; the target writes them as
// the body of a paged container (valid page checksums, so the fuzzer gets
// past them) in a scratch file on tmpfs. Seeds in
// tests/fuzz/corpus/term_dict_fuzz/ are regions TermDictBuilder wrote: the
// term lists and global index of a small index (tests/fuzz/make_seeds.cc).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "index/paged_file.h"
#include "index/term_dict.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

void Expect(const dps::Status& s) {
  if (!s.ok() && !s.IsCorruption()) abort();
}

// The region TermDictBuilder writes for `entries`, in blocks of `per_block`.
std::string Build(const Entries& entries, size_t per_block, const std::string& path) {
  auto file = dps::PagedFileWriter::Create(path);
  if (!file.ok()) abort();
  dps::TermDictBuilder builder(file.value().get(), per_block);
  for (const auto& [key, value] : entries) {
    if (!builder.Add(key, value).ok()) abort();
  }
  uint64_t offset, len;
  if (!builder.Finish(&offset, &len).ok() || !file.value()->Finish(0, 0, 1).ok()) abort();
  auto reader = dps::PagedFileReader::Open(path);
  if (!reader.ok()) abort();
  auto bytes = reader.value()->Read(offset, len);
  if (!bytes.ok()) abort();
  return std::string(bytes.value());
}

// Walks the whole dictionary; false on an error (then *entries is partial).
bool Walk(const dps::TermDictReader& dict, Entries* entries) {
  dps::TermDictCursor cursor(&dict);
  for (cursor.SeekToFirst(); cursor.Valid() && entries->size() < 100000; cursor.Next()) {
    entries->emplace_back(std::string(cursor.key()), std::string(cursor.value()));
  }
  Expect(cursor.status());
  return cursor.status().ok();
}

// Every lookup of a well-formed dictionary agrees with its walk.
void CheckLookups(const dps::TermDictReader& dict, const Entries& entries) {
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& [key, value] = entries[i];
    bool found = false;
    std::string_view got;
    if (!dict.Find(key, &found, &got).ok() || !found || got != value) abort();
    auto block = dict.Locate(key);
    if (!block.ok() || !dict.FindInBlock(block.value(), key, &found, &got).ok() || !found || got != value) abort();
    dps::TermDictCursor cursor(&dict);
    cursor.Seek(key);
    if (!cursor.Valid() || cursor.key() != key) abort();
    // Just above this key and below the next: absent, and Seek lands on the next.
    const std::string between = key + '\0';
    if (i + 1 < entries.size() && entries[i + 1].first == between) continue;
    if (!dict.Find(between, &found, &got).ok() || found) abort();
    cursor.Seek(between);
    if (i + 1 < entries.size() ? !cursor.Valid() || cursor.key() != entries[i + 1].first : cursor.Valid()) abort();
  }
  bool found = true;
  std::string_view got;
  if (!dict.Find("", &found, &got).ok() || found != (!entries.empty() && entries[0].first.empty())) abort();
}

void Decode(std::string_view region) {
  const std::string path = dps::fuzz::ScratchPath("dict");
  dps::fuzz::WritePagedFileOrDie(path, region, 0, 0, 1);
  auto file = dps::PagedFileReader::Open(path);
  if (!file.ok()) abort();
  dps::TermDictReader dict;
  const dps::Status opened = dict.Open(file.value().get(), 0, region.size());
  Expect(opened);
  if (!opened.ok()) return;
  Entries entries;
  if (!Walk(dict, &entries)) {
    // A broken block: lookups give answers or Corruption, never a crash.
    for (const auto& e : entries) {
      bool found;
      std::string_view value;
      Expect(dict.Find(e.first, &found, &value));
    }
    return;
  }
  if (entries.empty() || dict.block_count() == 0) return;
  for (size_t i = 1; i < entries.size(); ++i) {
    if (entries[i - 1].first >= entries[i].first) return;  // not as written: keys ascend
  }
  const size_t per_block = (entries.size() + dict.block_count() - 1) / dict.block_count();
  if (per_block == 0 || Build(entries, per_block, dps::fuzz::ScratchPath("dict.canonical")) != region) return;
  CheckLookups(dict, entries);
}

void RoundTrip(std::string_view input) {
  if (input.empty()) return;
  // Keys are the input's pieces between 0x00 bytes, values their lengths.
  std::map<std::string, std::string> sorted;
  size_t at = 0;
  while (at <= input.size() && sorted.size() < 300) {
    const size_t next = std::min(input.find('\0', at), input.size());
    std::string key(input.substr(at, next - at));
    sorted.emplace(key, std::string(key.size() % 7, 'v'));
    at = next + 1;
  }
  const Entries entries(sorted.begin(), sorted.end());
  const size_t per_block = 1 + static_cast<uint8_t>(input[0]) % 64;
  const std::string path = dps::fuzz::ScratchPath("dict.built");
  const std::string region = Build(entries, per_block, path);
  auto file = dps::PagedFileReader::Open(path);
  dps::TermDictReader dict;
  if (!file.ok() || !dict.Open(file.value().get(), 0, region.size()).ok()) abort();
  Entries back;
  if (!Walk(dict, &back) || back != entries) abort();
  CheckLookups(dict, entries);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Decode(input);
  RoundTrip(input);
  return 0;
}
