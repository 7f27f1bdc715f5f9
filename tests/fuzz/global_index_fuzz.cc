// libFuzzer target for the global index (docs/FORMAT.md "Global index",
// index/global_index.h): GlobalIndexReader::Open, Lookup, ParseValue (the
// refs of every kind, with and without positions) and TermTable::AddAll
// (the planner's batched lookups). Arbitrary dictionary bytes must open
// with a Corruption or be looked up without a crash or an out-of-bounds
// read; refs that parse ascend by (bin, file), add up to the term's df and
// have the fields their kind promises. Round trip: every term's parsed refs,
// written again by GlobalIndexWriter, look up to the same refs (and the
// batched lookups to the single ones). Input: flags (u8; bit 0: positions)
// | the dictionary region. The target writes the 16-byte header, the region
// and the directory as a paged container (valid checksums) in a scratch
// file on tmpfs. Seeds in tests/fuzz/corpus/global_index_fuzz/ are the
// dictionary regions of global indexes our writer made: the golden index
// tests/golden/v11 and a small index without positions
// (tests/fuzz/make_seeds.cc).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/coding.h"
#include "common/file_header.h"
#include "index/global_index.h"
#include "index/posting_codec.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

void Expect(const dps::Status& s) {
  if (!s.ok() && !s.IsCorruption()) abort();
}

bool SameRef(const dps::TermRef& a, const dps::TermRef& b) {
  return a.bin == b.bin && a.file == b.file && a.df == b.df && a.inline_doc == b.inline_doc &&
         a.inline_weight == b.inline_weight && a.inline_postings == b.inline_postings &&
         a.inline_weights == b.inline_weights && a.offset == b.offset && a.len == b.len &&
         a.max_score == b.max_score && a.inline_positions == b.inline_positions &&
         a.positions_offset == b.positions_offset;
}

bool SameInfo(const dps::GlobalTermInfo& a, const dps::GlobalTermInfo& b) {
  if (a.df != b.df || a.refs.size() != b.refs.size()) return false;
  for (size_t i = 0; i < a.refs.size(); ++i) {
    if (!SameRef(a.refs[i], b.refs[i])) return false;
  }
  return true;
}

void CheckRefs(const dps::GlobalTermInfo& info, bool positions) {
  uint64_t df = 0;
  for (size_t i = 0; i < info.refs.size(); ++i) {
    const dps::TermRef& r = info.refs[i];
    if (i > 0) {
      const dps::TermRef& prev = info.refs[i - 1];
      if (r.bin < prev.bin || (r.bin == prev.bin && r.file <= prev.file)) abort();
    }
    if (r.df == 0) abort();
    if (r.df == 1 && (r.inline_weight == 0 || r.inline_doc > dps::kMaxDocId || !r.inline_postings.empty())) abort();
    if (r.in_file() && (r.len == 0 || (r.max_score != 0) != (r.df > dps::kBlockSize))) abort();
    if (positions && !r.in_file() && r.inline_positions.empty()) abort();
    if (!positions && (!r.inline_positions.empty() || r.positions_offset != 0)) abort();
    df += r.df;
  }
  if (info.refs.empty() || df != info.df) abort();
}

// header | region | directory, as GlobalIndexWriter lays them out.
void WriteGlobal(const std::string& path, bool positions, std::string_view region) {
  std::string body;
  dps::EncodeFileHeader({dps::kGlobalIndexMagic, dps::kGlobalIndexVersion,
                         positions ? dps::kGlobalFlagPositions : 0u},
                        &body);
  body.append(region);
  const uint64_t directory = body.size();
  dps::PutFixed64(&body, dps::kFileHeaderSize);
  dps::PutFixed64(&body, region.size());
  dps::PutFixed64(&body, 0);  // term count and documents: not checked against the dictionary
  dps::PutFixed64(&body, 0);
  dps::fuzz::WritePagedFileOrDie(path, body, directory, 32, dps::kGlobalIndexVersion);
}

void RoundTrip(const std::vector<std::pair<std::string, dps::GlobalTermInfo>>& terms, bool positions) {
  const std::string path = dps::fuzz::ScratchPath("global.again");
  auto writer = dps::GlobalIndexWriter::Create(path, positions);
  if (!writer.ok()) abort();
  for (const auto& [term, info] : terms) {
    if (!writer.value()->Add(term, info).ok()) abort();  // refs it parsed, terms ascending
  }
  if (!writer.value()->Finish(0).ok()) abort();
  auto again = dps::GlobalIndexReader::Open(path);
  if (!again.ok()) abort();
  for (const auto& [term, info] : terms) {
    bool found = false;
    dps::GlobalTermInfo back;
    if (!again.value()->Lookup(term, &found, &back).ok() || !found || !SameInfo(back, info)) abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool positions = data[0] & 1;
  const std::string path = dps::fuzz::ScratchPath("global");
  WriteGlobal(path, positions, std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  auto global = dps::GlobalIndexReader::Open(path);
  if (!global.ok()) {
    Expect(global.status());
    return 0;
  }
  const dps::GlobalIndexReader& g = *global.value();
  if (g.positions() != positions) abort();
  // Every term the walk lists, looked up one at a time.
  std::vector<std::pair<std::string, dps::GlobalTermInfo>> terms;
  std::vector<std::string> keys;
  bool ascending = true, all_parsed = true;
  dps::TermDictCursor cursor(&g.dict());
  for (cursor.SeekToFirst(); cursor.Valid() && keys.size() < 5000; cursor.Next()) {
    const std::string key(cursor.key());
    ascending = ascending && (keys.empty() || keys.back() < key);
    keys.push_back(key);
    dps::GlobalTermInfo info;
    const dps::Status parsed = g.ParseValue(cursor.value(), &info);
    Expect(parsed);
    all_parsed = all_parsed && parsed.ok();
    if (!parsed.ok()) continue;
    CheckRefs(info, positions);
    bool found = false;
    dps::GlobalTermInfo looked_up;
    const dps::Status s = g.Lookup(key, &found, &looked_up);
    Expect(s);
    if (s.ok() && found) CheckRefs(looked_up, positions);
    terms.emplace_back(key, std::move(info));
  }
  Expect(cursor.status());
  // The planner's batched lookups give what single lookups give.
  dps::TermTable table;
  const dps::Status batched = table.AddAll(&g, keys);
  Expect(batched);
  if (batched.ok()) {
    for (const std::string& key : keys) {
      bool found = false;
      dps::GlobalTermInfo single;
      const dps::GlobalTermInfo* entry = table.Find(key);
      if (entry == nullptr || !g.Lookup(key, &found, &single).ok()) abort();
      if (found ? !SameInfo(*entry, single) : !entry->refs.empty()) abort();
    }
  }
  if (cursor.status().ok() && ascending && all_parsed) RoundTrip(terms, positions);
  return 0;
}
