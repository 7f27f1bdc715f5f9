// libFuzzer target for the doc store (docs/FORMAT.md "Doc store", "Id
// column"; index/doc_store.h): DocStoreReader::Open (block index, id
// column), the meta frames (record count, docid gaps, front-coded titles)
// and text frames behind Get, ReadAll and ForEachId. Arbitrary bytes must
// open with a Corruption or be read without a crash or an out-of-bounds
// read; a whole read that succeeds holds num_docs documents with ascending
// docids inside the bin's range and non-empty ids, which Get and ForEachId
// give alike. Round trip: documents built from the input, written by
// DocStoreWriter, read back exactly. Input: mode (u8; bit 0: frames,
// bit 1: the file stores text) | num_docs (u16) | min_docid (u16) |
// max_docid - min_docid (u16) | ids_len (u16) | the id column | then the
// doc store region as it is (mode raw), or (mode frames) its blocks as
// decompressed frames, each `first docid - the previous block's (u16) |
// meta_len (u16) | meta | text_len (u16) | text`, which the target
// compresses with zstd and indexes, so the fuzzer reaches the frames'
// parsers. Seeds in tests/fuzz/corpus/doc_store_fuzz/ are doc stores
// DocStoreWriter wrote for tests/golden/corpus-a.jsonl, in both modes
// (tests/fuzz/make_seeds.cc).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/coding.h"
#include "index/doc_store.h"
#include "index/paged_file.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using dps::fuzz::TakeLE;

void Expect(const dps::Status& s) {
  if (!s.ok() && !s.IsCorruption()) abort();
}

// The doc store region of `frames` (see the header): blocks, index, count.
std::string RegionOfFrames(std::string_view frames, uint32_t min_docid) {
  std::string blocks, index;
  uint32_t count = 0;
  uint64_t first = min_docid;
  while (frames.size() >= 4 && count < 64) {
    if (count > 0) first += TakeLE(&frames, 2);
    std::string_view meta = frames.substr(0, TakeLE(&frames, 2));
    frames.remove_prefix(meta.size());
    std::string_view text = frames.substr(0, TakeLE(&frames, 2));
    frames.remove_prefix(text.size());
    const std::string meta_z = dps::fuzz::Zstd(meta, 1);
    const std::string text_z = text.empty() ? "" : dps::fuzz::Zstd(text, 1);
    dps::PutFixed32(&index, static_cast<uint32_t>(first));
    dps::PutFixed32(&index, static_cast<uint32_t>(blocks.size()));
    dps::PutFixed32(&index, static_cast<uint32_t>(meta_z.size()));
    dps::PutFixed32(&index, static_cast<uint32_t>(meta.size()));
    dps::PutFixed32(&index, static_cast<uint32_t>(text_z.size()));
    dps::PutFixed32(&index, static_cast<uint32_t>(text.size()));
    blocks += meta_z;
    blocks += text_z;
    ++count;
  }
  dps::PutFixed32(&index, count);
  return blocks + index;
}

void Read(const dps::DocStoreReader& store, const dps::DocStoreShape& shape) {
  std::vector<dps::StoredDoc> docs;
  const dps::Status s = store.ReadAll(&docs);
  Expect(s);
  if (s.ok()) {
    if (docs.size() != shape.num_docs) abort();
    dps::DocBlockCache cache;
    for (size_t i = 0; i < docs.size(); ++i) {
      const dps::StoredDoc& d = docs[i];
      if (d.id.empty() || d.docid < shape.min_docid || d.docid > shape.max_docid) abort();
      if ((i > 0 && d.docid <= docs[i - 1].docid) || (!shape.stores_text && !d.text.empty())) abort();
      dps::StoredDoc got;
      if (!store.Get(d.docid, &got, &cache).ok() || got.id != d.id || got.title != d.title || got.text != d.text) {
        abort();
      }
    }
    size_t listed = 0;
    const dps::Status each = store.ForEachId([&](dps::DocId docid, std::string_view id) {
      if (listed >= docs.size() || docs[listed].docid != docid || docs[listed].id != id) abort();
      ++listed;
    });
    if (!each.ok() || listed != docs.size()) abort();
    return;
  }
  // A store that does not read whole: each lookup is an answer or an error.
  dps::DocBlockCache cache;
  for (uint64_t d = shape.min_docid; d <= shape.max_docid && d < uint64_t{shape.min_docid} + 300; ++d) {
    dps::StoredDoc got;
    const dps::Status g = store.Get(static_cast<dps::DocId>(d), &got, d % 2 ? &cache : nullptr, d % 3 != 0);
    if (!g.ok() && !g.IsNotFound()) Expect(g);
  }
}

void Open(const std::string& ids, const std::string& region, const dps::DocStoreShape& shape) {
  const std::string path = dps::fuzz::ScratchPath("docs");
  dps::fuzz::WritePagedFileOrDie(path, ids + region, 0, 0, 1);
  auto file = dps::PagedFileReader::Open(path);
  if (!file.ok()) abort();
  dps::DocStoreReader store;
  const dps::DocStoreRegions regions{ids.size(), region.size(), 0, ids.size()};
  const dps::Status s = store.Open(file.value().get(), regions, shape);
  Expect(s);
  if (s.ok()) Read(store, shape);
}

// Documents from the input's bytes, written and read back.
void RoundTrip(std::string_view input, bool stores_text) {
  std::vector<dps::StoredDoc> docs;
  dps::DocId docid = 5;
  while (!input.empty() && docs.size() < 200) {
    const uint8_t b = static_cast<uint8_t>(input[0]);
    dps::StoredDoc d;
    d.docid = docid;
    docid += 1 + b % 200;
    d.id = b % 3 == 0 ? std::to_string(b * 1000003u) : std::string(input.substr(0, 1 + b % 5));
    d.title = std::string(input.substr(0, b % 11));
    d.text = stores_text ? std::string(input.substr(0, b % 37)) : "";
    input.remove_prefix(std::min<size_t>(input.size(), 1 + b % 7));
    docs.push_back(d);
  }
  if (docs.empty()) return;
  std::string region, ids;
  dps::DocStoreWriter writer(1, [&](std::string_view bytes) {
    region.append(bytes);
    return dps::Status::OK();
  });
  for (const auto& d : docs) {
    if (!writer.Add(d.docid, d.id, d.title, d.text).ok()) abort();
  }
  if (!writer.Finish(&ids).ok()) abort();
  const std::string path = dps::fuzz::ScratchPath("docs.written");
  dps::fuzz::WritePagedFileOrDie(path, ids + region, 0, 0, 1);
  auto file = dps::PagedFileReader::Open(path);
  dps::DocStoreReader store;
  const dps::DocStoreShape shape{static_cast<uint32_t>(docs.size()), docs.front().docid, docs.back().docid, stores_text};
  if (!file.ok() || !store.Open(file.value().get(), {ids.size(), region.size(), 0, ids.size()}, shape).ok()) abort();
  std::vector<dps::StoredDoc> back;
  if (!store.ReadAll(&back).ok() || back.size() != docs.size()) abort();
  for (size_t i = 0; i < docs.size(); ++i) {
    const auto &a = docs[i], &b = back[i];
    if (a.docid != b.docid || a.id != b.id || a.title != b.title || a.text != b.text) abort();
  }
  Read(store, shape);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.size() < 9) return 0;
  const uint64_t mode = TakeLE(&input, 1);
  dps::DocStoreShape shape;
  shape.stores_text = mode & 2;
  shape.num_docs = static_cast<uint32_t>(TakeLE(&input, 2));
  shape.min_docid = static_cast<dps::DocId>(TakeLE(&input, 2));
  shape.max_docid = shape.min_docid + static_cast<dps::DocId>(TakeLE(&input, 2));
  const std::string ids(input.substr(0, TakeLE(&input, 2)));
  input.remove_prefix(ids.size());
  Open(ids, (mode & 1) ? RegionOfFrames(input, shape.min_docid) : std::string(input), shape);
  RoundTrip(input, shape.stores_text);
  return 0;
}
