// dps_index_anatomy: where the bytes of an existing index go, field by
// field: the global index's keys and refs (heads, file positions, df,
// offsets, lengths, inline singletons), the posting lists' skip tables
// (narrow / wide), doc and weight blocks (and how many have exceptions),
// and the tablet files' doc store, tombstones and page tables.
// Guides format work (bench/RESULTS.md); reads, never writes.
//
//   dps_index_anatomy INDEXDIR [--for]   (--for: also what the doc blocks
//   would take as plain frame of reference, decoding every list)
#include <algorithm>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <string>

#include "common/coding.h"
#include "index/global_index.h"
#include "index/index_reader.h"
#include "index/posting_codec.h"
#include "index/block_impacts.h"
#include "index/posting_list.h"
#include "index/term_dict.h"

namespace {

struct Tally {
  uint64_t count = 0, bytes = 0;
  void Add(uint64_t b) {
    ++count;
    bytes += b;
  }
};

struct Anatomy {
  Tally keys, values, value_len_prefix, ref_head, ref_file, ref_df, ref_offset, ref_len,
      singleton_w1, singleton_w, inline_lists;
  Tally small_df[5];  // one-block lists of df 2, 3, 4, 5-16, 17-128
  Tally lists_one_block, lists_multi, skip_narrow, skip_wide, doc_blocks, doc_with_exceptions,
      weight_blocks, weight_no_exceptions, weight_all_ones, impact_scores, impact_corners;

  bool plain_for = false;
  uint64_t for_doc_bytes = 0;  // doc blocks if coded without exceptions

  // What the gaps of one block would cost as plain FOR (tablet format 3's
  // docid blocks): a width byte and the payload at the widest gap's width.
  static size_t ForCost(const uint32_t* gaps, size_t n) {
    uint32_t all = 0;
    for (size_t i = 0; i < n; ++i) all |= gaps[i];
    return 1 + dps::PayloadSize(n, static_cast<int>(std::bit_width(all)));
  }

  bool AddFor(const uint8_t* p, const uint8_t* end, uint32_t df) {
    dps::PostingCursor c;
    if (!c.Init(p, end - p, df, nullptr, 0).ok()) return false;
    uint32_t gaps[dps::kBlockSize];
    uint32_t prev = UINT32_MAX;
    size_t n = 0;
    for (dps::DocId d = c.doc(); d != dps::kEndDoc; d = c.Next()) {
      gaps[n++] = d - prev - 1;
      prev = d;
      if (n == dps::kBlockSize) {
        for_doc_bytes += ForCost(gaps, n);
        n = 0;
      }
    }
    if (n > 0) for_doc_bytes += ForCost(gaps, n);
    return c.status().ok();
  }

  // Walks one encoded list: its skip table, doc blocks and weight blocks.
  bool AddList(const uint8_t* p, const uint8_t* end, uint32_t df) {
    if (plain_for && !AddFor(p, end, df)) return false;
    const size_t blocks = (df + dps::kBlockSize - 1) / dps::kBlockSize;
    const uint8_t* docs = p;
    if (blocks > 1) {
      const bool narrow = p[0] & dps::kSkipNarrowParts;
      const size_t table = dps::SkipTableSize(blocks, p[0]);
      (narrow ? skip_narrow : skip_wide).Add(table);
      lists_multi.Add(end - p);
      // FORMAT.md "Posting list": impacts_len, the scores, the corners.
      uint32_t impacts_len;
      const uint8_t* scores = dps::GetVarint32(p + table, end, &impacts_len);
      if (scores == nullptr || impacts_len < 2 * blocks || impacts_len > static_cast<size_t>(end - scores)) return false;
      impact_scores.Add(scores - (p + table) + 2 * blocks);
      impact_corners.Add(impacts_len - 2 * blocks);
      docs = scores + impacts_len;
    } else {
      lists_one_block.Add(end - p);
      small_df[df == 2 ? 0 : df == 3 ? 1 : df == 4 ? 2 : df <= 16 ? 3 : 4].Add(end - p);
      dps::Impact corner;
      docs = end - p < 2 ? nullptr : dps::DecodeCorner(p + 2, end, &corner);
      if (docs == nullptr) return false;
      impact_scores.Add(2);
      impact_corners.Add(docs - (p + 2));
    }
    const uint8_t* q = docs;
    for (size_t b = 0; b < blocks; ++b) {
      const size_t n = std::min<size_t>(dps::kBlockSize, df - b * dps::kBlockSize);
      const uint8_t* next = dps::SkipBlock(q, end, n);
      if (next == nullptr) return false;
      doc_blocks.Add(next - q);
      if (q[0] & 0x80) doc_with_exceptions.Add(next - q);  // FORMAT.md "Block layout"
      q = next;
    }
    for (size_t b = 0; b < blocks; ++b) {
      const size_t n = std::min<size_t>(dps::kBlockSize, df - b * dps::kBlockSize);
      const uint8_t* next = dps::SkipBlock(q, end, n);
      if (next == nullptr) return false;
      weight_blocks.Add(next - q);
      if ((q[0] & 0x80) == 0) weight_no_exceptions.Add(next - q);
      if (q[0] == 0) weight_all_ones.Add(next - q);
      q = next;
    }
    return q == end;
  }
};

void Print(const char* name, const Tally& t, uint64_t total) {
  std::printf("%-34s %12llu %14llu  %5.1f%%\n", name, static_cast<unsigned long long>(t.count),
              static_cast<unsigned long long>(t.bytes),
              total ? 100.0 * static_cast<double>(t.bytes) / static_cast<double>(total) : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s INDEXDIR [--for]\n", argv[0]);
    return 2;
  }
  auto index = dps::IndexReader::Open(argv[1]);
  if (!index.ok()) {
    std::fprintf(stderr, "%s\n", index.status().ToString().c_str());
    return 1;
  }
  const dps::IndexReader& reader = **index;
  const dps::GlobalIndexReader* global = reader.global();
  Anatomy a;
  a.plain_for = argc == 3 && std::string(argv[2]) == "--for";
  uint64_t total = 0, docstore = 0, tombstones = 0, page_tables = 0, postings_regions = 0;
  for (size_t t = 0; t < reader.tablet_count(); ++t) {
    for (const auto& f : reader.tablet(t).files()) {
      total += f->file_size();
      page_tables += 8 * ((f->file().body_size() + 32767) / 32768) + 56;
      for (size_t i = 0; i < f->bin_count(); ++i) {
        docstore += f->bin(i).docs_len + f->bin(i).ids_len;  // ids are stored documents too
        tombstones += f->bin(i).tombstones_len;
        postings_regions += f->bin(i).postings_len;
      }
    }
  }
  dps::TermDictCursor cursor(&global->dict());
  dps::GlobalTermInfo info;
  std::string previous;
  for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next()) {
    const std::string_view key = cursor.key(), value = cursor.value();
    const size_t shared = dps::SharedPrefixLength(previous, key);
    a.keys.Add(1 + key.size() - shared);  // head byte + suffix (approximate for block starts)
    previous.assign(key);
    a.values.Add(value.size());
    a.value_len_prefix.Add(dps::VarintLength(value.size()));
    if (dps::Status s = global->ParseValue(value, &info); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
    uint32_t last_bin = 0;
    for (size_t r = 0; r < info.refs.size(); ++r) {
      const dps::TermRef& ref = info.refs[r];
      const uint64_t gap = r == 0 ? ref.bin : ref.bin - last_bin;
      last_bin = ref.bin;
      if (ref.file != 0) a.ref_file.Add(dps::VarintLength(ref.file));
      if (ref.df == 1) {  // the head holds the docid (and a gap code of 3 bits)
        const size_t head = dps::VarintLength(uint64_t{ref.inline_doc} << 6 | 63) + (gap >= 7 ? dps::VarintLength(gap - 7) : 0);
        if (ref.inline_weight == 1) {
          a.singleton_w1.Add(head);
        } else {
          a.singleton_w.Add(head + dps::VarintLength(ref.inline_weight));
        }
        continue;
      }
      a.ref_head.Add(dps::VarintLength(gap * 8 + 7));
      if (!ref.inline_postings.empty()) {
        a.inline_lists.Add(dps::VarintLength(uint64_t{ref.df} << 1) + ref.inline_postings.size());
        continue;
      }
      a.ref_df.Add(dps::VarintLength(ref.df));
      a.ref_offset.Add(dps::VarintLength(ref.offset));
      a.ref_len.Add(dps::VarintLength(ref.len));
      const dps::Tablet& tablet = reader.TabletOf(dps::BinId{ref.bin});
      const auto& file = tablet.files()[ref.file];
      const int i = file->FindBin(dps::BinId{ref.bin});
      auto bytes = file->file().Read(file->bin(static_cast<size_t>(i)).postings_offset + ref.offset,
                                     ref.len);
      if (!bytes.ok()) {
        std::fprintf(stderr, "%s\n", bytes.status().ToString().c_str());
        return 1;
      }
      const auto* p = reinterpret_cast<const uint8_t*>(bytes->data());
      if (!a.AddList(p, p + bytes->size(), ref.df)) {
        std::fprintf(stderr, "term %.*s bin %u: list does not parse\n", static_cast<int>(key.size()),
                     key.data(), ref.bin);
        return 1;
      }
    }
  }
  if (!cursor.status().ok()) {
    std::fprintf(stderr, "%s\n", cursor.status().ToString().c_str());
    return 1;
  }
  const uint64_t gix = std::filesystem::file_size(global->path());
  total += gix;
  std::printf("%s: %llu bytes (%llu terms)\n\n%-34s %12s %14s  %6s\n", argv[1],
              static_cast<unsigned long long>(total),
              static_cast<unsigned long long>(global->num_terms()), "part", "count", "bytes", "share");
  std::printf("global index file: %llu bytes\n", static_cast<unsigned long long>(gix));
  Print("  keys (head + suffix, approx.)", a.keys, total);
  Print("  values", a.values, total);
  Print("    value length prefixes", a.value_len_prefix, total);
  Print("    list ref heads", a.ref_head, total);
  Print("    ref file positions", a.ref_file, total);
  Print("    list refs: df", a.ref_df, total);
  Print("    list refs: offset", a.ref_offset, total);
  Print("    list refs: len", a.ref_len, total);
  Print("    singletons, weight 1 (with head)", a.singleton_w1, total);
  Print("    singletons, weight >= 2 (with head)", a.singleton_w, total);
  Print("    inline lists (df 2-8)", a.inline_lists, total);
  std::printf("posting regions: %llu bytes\n", static_cast<unsigned long long>(postings_regions));
  Print("  one-block lists", a.lists_one_block, total);
  const char* small_names[] = {"    df 2", "    df 3", "    df 4", "    df 5-16", "    df 17-128"};
  for (size_t i = 0; i < 5; ++i) Print(small_names[i], a.small_df[i], total);
  Print("  multi-block lists", a.lists_multi, total);
  Print("    skip tables, narrow", a.skip_narrow, total);
  Print("    skip tables, wide", a.skip_wide, total);
  Print("  block scores (with impacts_len)", a.impact_scores, total);
  Print("  block corners", a.impact_corners, total);
  Print("  doc blocks", a.doc_blocks, total);
  Print("    of which with exceptions", a.doc_with_exceptions, total);
  if (a.plain_for) Print("    as plain FOR (estimate)", Tally{0, a.for_doc_bytes}, total);
  Print("  weight blocks", a.weight_blocks, total);
  Print("    of which without exceptions", a.weight_no_exceptions, total);
  Print("    of which all ones", a.weight_all_ones, total);
  std::printf("tablet files, besides postings:\n");
  Print("  doc store", Tally{0, docstore}, total);
  Print("  tombstones", Tally{0, tombstones}, total);
  Print("  page tables + footers", Tally{0, page_tables}, total);
  return 0;
}
