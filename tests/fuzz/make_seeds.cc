// Writes the seed corpora of the fuzz targets added for issue 21 into
// tests/fuzz/corpus/<target>/: real bytes from our own encoders and from
// the golden index (tests/golden/v11, tests/golden/corpus-a.jsonl), each
// in the layout its target's header comment describes. Deterministic:
// rerunning it rewrites the same files. The seeds of positions, id_column
// and jsonl_reader predate it and are not touched; posting_list's are
// written here since tablet version 11 (every block's weight mark).
// Usage: ninja -C build fuzz_make_seeds && build/tests/fuzz_make_seeds .
// (the repository root).
#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/coding.h"
#include "common/file.h"
#include "common/file_header.h"
#include "index/doc_store.h"
#include "index/global_index.h"
#include "index/inline_postings.h"
#include "index/manifest.h"
#include "index/paged_file.h"
#include "index/posting_codec.h"
#include "index/posting_list.h"
#include "index/term_list.h"
#include "ingest/jsonl_reader.h"
#include "ingest/run_file.h"
#include "shards/protocol.h"
#include "tests/fuzz/fuzz_tablet.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using dps::fuzz::WriteFileOrDie;

std::string root;

void Seed(const std::string& target, const std::string& name, std::string_view bytes) {
  const std::string dir = root + "/tests/fuzz/corpus/" + target;
  std::filesystem::create_directories(dir);
  WriteFileOrDie(dir + "/" + name, bytes);
}

std::string ReadOrDie(const std::string& path) {
  auto s = dps::ReadFileToString(path);
  if (!s.ok()) {
    std::fprintf(stderr, "make_seeds: %s\n", s.status().ToString().c_str());
    exit(1);
  }
  return s.value();
}

template <typename T>
T OrDie(dps::Result<T> r) {
  if (!r.ok()) {
    std::fprintf(stderr, "make_seeds: %s\n", r.status().ToString().c_str());
    exit(1);
  }
  return std::move(r.value());
}

void OrDie(const dps::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "make_seeds: %s\n", s.ToString().c_str());
    exit(1);
  }
}

std::string Byte(uint8_t b) { return std::string(1, static_cast<char>(b)); }
std::string U16(uint64_t v) {
  std::string s;
  dps::PutFixed16(&s, static_cast<uint16_t>(v));
  return s;
}

// A paged file's body (without page table and footer) and its directory.
struct Body {
  std::string bytes;
  uint64_t directory_offset = 0, directory_size = 0;
};
Body BodyOf(const std::string& path) {
  auto f = OrDie(dps::PagedFileReader::Open(path));
  return {std::string(OrDie(f->Read(0, f->body_size()))), f->directory_offset(), f->directory_size()};
}

std::vector<dps::RawDocument> GoldenDocs() {
  std::vector<dps::RawDocument> docs;
  OrDie(dps::ParseJsonlBuffer(ReadOrDie(root + "/tests/golden/corpus-a.jsonl"), dps::ReaderOptions(),
                              [&](const dps::RawDocument& d) { docs.push_back(d); }, nullptr));
  return docs;
}

void PostingBlocks() {
  std::vector<uint32_t> docs, weights, values;
  for (uint32_t i = 0; i < 128; ++i) {
    docs.push_back(1000 + i * 3 + (i == 60 ? 5000 : 0) + (i > 60 ? 5000 : 0));
    weights.push_back(i % 17 == 0 ? 300 + i : 1 + i % 3);
    values.push_back(i % 29 == 0 ? 70000 : i % 5);
  }
  for (size_t n : {size_t{5}, size_t{77}, size_t{128}}) {
    for (uint32_t prev : {UINT32_MAX, 999u}) {
      std::string block;
      dps::EncodeDocBlock(docs.data(), n, prev, &block);
      std::string head = Byte(static_cast<uint8_t>(n - 1));
      dps::PutFixed32(&head, prev);
      Seed("posting_block_fuzz", "docs_" + std::to_string(n) + (prev == UINT32_MAX ? "_first" : "_after"),
           head + block);
    }
    std::string head = Byte(static_cast<uint8_t>(n - 1)) + std::string(4, '\xff');
    std::string block;
    dps::EncodeWeightBlock(weights.data(), n, &block);
    Seed("posting_block_fuzz", "weights_" + std::to_string(n), head + block);
    block.clear();
    dps::EncodeValueBlock(values.data(), n, &block);
    Seed("posting_block_fuzz", "values_" + std::to_string(n), head + block);
  }
}

// Posting lists as a tablet holds them (posting_list_fuzz: df as a u16,
// then the list): one block, two, and 40 (each block's weight mark).
void PostingLists() {
  const struct { const char* name; uint32_t df; } lists[] = {{"seed0", 20}, {"seed1", 200}, {"seed2", 5000}};
  for (const auto& l : lists) {
    std::vector<uint32_t> docs, weights;
    for (uint32_t i = 0; i < l.df; ++i) {
      docs.push_back(7 + i * 5 + (i % 97 == 3 ? 1 : 0) + (i > l.df / 2 ? 40000 : 0));
      weights.push_back(i % 31 == 0 ? 200 + i : 1 + i % 4);
    }
    std::string list;
    dps::EncodePostingList(docs, weights, /*lengths=*/weights, /*score_avgdl=*/1.0, &list);
    Seed("posting_list_fuzz", l.name, U16(l.df) + list);
  }
}

void InlinePostings() {
  for (uint32_t df : {2u, 8u, 128u}) {
    for (bool weighted : {false, true}) {
      std::vector<dps::DocId> docs;
      std::vector<uint32_t> weights;
      for (uint32_t i = 0; i < df; ++i) {
        docs.push_back(5 + i * i * 37);
        weights.push_back(weighted && i % 2 ? 3 + i : 1);
      }
      std::string payload;
      const bool has = dps::EncodeInlinePostings(docs, weights, &payload);
      Seed("inline_postings_fuzz", "df" + std::to_string(df) + (has ? "_weights" : ""),
           Byte(static_cast<uint8_t>((df - 1) | (has ? 128 : 0))) + payload);
    }
  }
}

// The dictionary region of a global index file: its directory's first two fields.
std::string GlobalDictRegion(const std::string& path) {
  const Body b = BodyOf(path);
  const auto* d = reinterpret_cast<const uint8_t*>(b.bytes.data()) + b.directory_offset;
  return b.bytes.substr(dps::DecodeFixed64(d), dps::DecodeFixed64(d + 8));
}

// A global index without positions holding refs of every kind.
std::string WriteRefsGlobal(const std::string& path) {
  auto w = OrDie(dps::GlobalIndexWriter::Create(path, false));
  std::string inline_payload;
  const std::vector<dps::DocId> docs = {3, 9, 10};
  const std::vector<uint32_t> weights = {1, 4, 1};
  const bool has = dps::EncodeInlinePostings(docs, weights, &inline_payload);
  for (int t = 0; t < 40; ++t) {
    dps::GlobalTermInfo info;
    for (uint32_t bin = 0; bin < 3; ++bin) {
      dps::TermRef r;
      r.bin = bin * (t % 4 + 1) + (t % 3 == 0 ? 9 : 0);
      r.file = t % 2;
      switch ((t + bin) % 4) {
        case 0: r.df = 1; r.inline_doc = 7 + t * 1000; r.inline_weight = 1; break;
        case 1: r.df = 1; r.inline_doc = 40000; r.inline_weight = 3; break;
        case 2: r.df = 3; r.inline_postings = inline_payload; r.inline_weights = has; break;
        default: r.df = 200; r.offset = 40 * t; r.len = 300; r.max_score = 1234; break;
      }
      info.df += r.df;
      info.refs.push_back(r);
    }
    char term[16];
    std::snprintf(term, sizeof term, "term%03d", t * 7);
    OrDie(w->Add(term, info));
  }
  OrDie(w->Finish(100));
  return GlobalDictRegion(path);
}

void Dictionaries(const std::string& scratch) {
  const std::string golden = root + "/tests/golden/v11/index/000010.gix";
  Seed("global_index_fuzz", "golden_v11", Byte(1) + GlobalDictRegion(golden));
  const std::string refs = WriteRefsGlobal(scratch + "/refs.gix");
  Seed("global_index_fuzz", "every_ref_kind", Byte(0) + refs);
  Seed("term_dict_fuzz", "golden_v11_global", GlobalDictRegion(golden));
  Seed("term_dict_fuzz", "global_refs", refs);
  for (bool positions : {false, true}) {
    const std::string tab = scratch + (positions ? "/000002.tab" : "/000001.tab");
    dps::fuzz::WriteFuzzTablet(tab, positions);
    const std::string dic = dps::TermListPathFor(tab);
    const Body b = BodyOf(dic);
    if (b.directory_offset + b.directory_size != b.bytes.size()) exit(1);  // the target's layout
    Seed("term_list_fuzz", positions ? "positions" : "no_positions", U16(b.directory_size) + b.bytes);
    auto list = OrDie(dps::TermListReader::Open(dic));
    // One bin's region: the directory's record 0 (bin, reserved, offset, len).
    const auto* rec = reinterpret_cast<const uint8_t*>(b.bytes.data()) + b.directory_offset + 8;
    Seed("term_dict_fuzz", std::string("term_list_bin0") + (positions ? "_positions" : ""),
         b.bytes.substr(dps::DecodeFixed64(rec + 8), dps::DecodeFixed64(rec + 16)));
  }
  for (const char* name : {"000002.tab", "000003.tab", "000009.tab", "000010.gix"}) {
    Seed("paged_file_fuzz", std::string("golden_") + name, ReadOrDie(root + "/tests/golden/v11/index/" + name));
  }
}

std::string Decompressed(std::string_view frame, size_t raw) {
  std::string out(raw, '\0');
  if (ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size()) != raw) exit(1);
  return out;
}

void DocStores() {
  const std::vector<dps::RawDocument> golden = GoldenDocs();
  for (bool text : {false, true}) {
    std::string region, ids;
    dps::DocStoreWriter writer(3, [&](std::string_view bytes) {
      region.append(bytes);
      return dps::Status::OK();
    });
    dps::DocId docid = 2, last = 2;
    for (const auto& d : golden) {
      OrDie(writer.Add(docid, d.id, d.title, text ? d.text : ""));
      last = docid;
      docid += 1 + docid % 3;
    }
    OrDie(writer.Finish(&ids));
    std::string head = Byte(text ? 2 : 0) + U16(golden.size()) + U16(2) + U16(last - 2) + U16(ids.size()) + ids;
    Seed("doc_store_fuzz", std::string("golden_raw") + (text ? "_text" : ""), head + region);
    // The same blocks as decompressed frames (mode frames).
    const auto* r = reinterpret_cast<const uint8_t*>(region.data());
    const uint32_t blocks = dps::DecodeFixed32(r + region.size() - 4);
    std::string frames;
    uint32_t prev_first = 2;
    for (uint32_t b = 0; b < blocks; ++b) {
      const uint8_t* e = r + region.size() - 4 - (blocks - b) * dps::kDocBlockIndexEntrySize;
      const uint32_t first = dps::DecodeFixed32(e), off = dps::DecodeFixed32(e + 4);
      const uint32_t meta_comp = dps::DecodeFixed32(e + 8), meta_raw = dps::DecodeFixed32(e + 12);
      const uint32_t text_comp = dps::DecodeFixed32(e + 16), text_raw = dps::DecodeFixed32(e + 20);
      const std::string meta = Decompressed(std::string_view(region).substr(off, meta_comp), meta_raw);
      const std::string texts =
          text_comp == 0 ? "" : Decompressed(std::string_view(region).substr(off + meta_comp, text_comp), text_raw);
      if (b > 0) frames += U16(first - prev_first);
      frames += U16(meta.size()) + meta + U16(texts.size()) + texts;
      prev_first = first;
    }
    head[0] = static_cast<char>(text ? 3 : 1);
    Seed("doc_store_fuzz", std::string("golden_frames") + (text ? "_text" : ""), head + frames);
  }
}

void Manifests() {
  const std::string golden = ReadOrDie(root + "/tests/golden/v11/index/MANIFEST");
  Seed("manifest_fuzz", "golden_v11", Byte(0) + golden);
  Seed("manifest_fuzz", "golden_v11_unchecked", Byte(1) + golden.substr(0, golden.rfind("checksum ")));
  dps::Manifest m;
  m.index_id = "0123456789abcdef0123456789abcdef";
  m.generation = 0;
  m.bins = 7;
  m.store_text = false;
  m.analyzer = OrDie(dps::AnalyzerSpec::Parse("whitespace"));
  m.positions = false;
  m.fields = dps::FieldSet({"title"});
  m.tablets = dps::SplitBins(7, 3);
  const std::string fresh = m.Encode();
  Seed("manifest_fuzz", "fresh_unchecked", Byte(1) + fresh.substr(0, fresh.rfind("checksum ")));
  m.analyzer = OrDie(dps::AnalyzerSpec::Parse("icu fold-accents stem=english"));
  m.fields = dps::FieldSet({"title", "author", "tags"});
  m.global_index = "000012.gix";
  m.next_file_number = 13;
  m.tablets[1].files = {"000004.tab", "000011.tab"};
  Seed("manifest_fuzz", "fields_stem", Byte(0) + m.Encode());
}

void Runs(const std::string& scratch) {
  for (bool positions : {false, true}) {
    const std::string path = scratch + "/seed.run.tmp";
    auto w = OrDie(dps::RunWriter::Create(path));
    for (uint32_t bin = 0; bin < 3; ++bin) {
      for (uint32_t df : {1u, 2u, 130u}) {
        std::vector<dps::DocId> docs;
        std::vector<uint32_t> weights, where;
        for (uint32_t i = 0; i < df; ++i) {
          docs.push_back(4 + i * 5);
          weights.push_back(1 + i % 3);
          for (uint32_t k = 0; k < weights.back(); ++k) where.push_back(k * 2);
        }
        std::string term = std::to_string(df);
        term.insert(term.begin(), 'w');  // (not "w" + ...: GCC 12 -Wrestrict false positive)
        OrDie(w->Add(bin, term, docs, weights, positions ? where : std::vector<uint32_t>()));
      }
    }
    OrDie(w->Finish());
    const std::string file = ReadOrDie(path);
    const std::string suffix = positions ? "_positions" : "";
    Seed("run_file_fuzz", "raw" + suffix, Byte(0) + file);
    // Framed: each block's payload after a u16 length (the end block dropped).
    std::string framed = Byte(1);
    for (size_t at = dps::kFileHeaderSize; at + 12 <= file.size();) {
      const uint32_t len = dps::DecodeFixed32(reinterpret_cast<const uint8_t*>(file.data()) + at);
      if (len == 0 || len > UINT16_MAX) break;
      framed += U16(len) + file.substr(at + 12, len);
      at += 12 + len;
    }
    Seed("run_file_fuzz", "framed" + suffix, framed);
  }
}

void Frames() {
  struct Named {
    const char* name;
    uint8_t selector;
    std::string frame;
  };
  std::vector<Named> frames;
  auto add = [&](const char* name, uint8_t selector, auto encode, const auto& m) {
    std::string f;
    encode(m, &f);
    frames.push_back({name, selector, f});
  };
  dps::Hello hello;
  hello.token = "secret";
  add("hello", 0, dps::EncodeHello, hello);
  dps::Welcome welcome;
  welcome.index_id = "3f02a8964f0796cc6ccb8cc29831b35f";
  welcome.generation = 3;
  welcome.bins = 4;
  welcome.tablets = 2;
  welcome.last_tablet = 1;
  welcome.analyzer = OrDie(dps::AnalyzerSpec::Parse("icu stem=english"));
  welcome.fields = dps::FieldSet({"title", "author"});
  add("welcome", 1, dps::EncodeWelcome, welcome);
  dps::QueryRequest q;
  q.request_id = 77;
  q.limit = 10;
  q.deadline_ms = 500;
  q.last_tablet = 1;
  q.tied = true;
  q.root = dps::QueryNode::And({dps::QueryNode::Term("white"), dps::QueryNode::Prefix("hou"),
                                dps::QueryNode::Or({dps::QueryNode::Term("a"), dps::QueryNode::Term("\xfftitle:b")}),
                                dps::QueryNode::Phrase({"new", "york"}, true, 2)});
  add("query", 2, dps::EncodeQuery, q);
  q.limit = 0;
  q.top_k = 10;
  q.tied = false;
  q.snippets = true;
  q.generation = 12;  // version 8: at a generation
  add("query_ranked", 2, dps::EncodeQuery, q);
  add("cancel", 3, dps::EncodeCancel, dps::Cancel{77});
  dps::ResultBatch results;
  results.request_id = 77;
  results.bin = 3;
  results.tablet = 1;
  results.snippets = true;
  results.docs = {{5, "g1", "Apple orchard", "\x01" "apple\x02 banana", 0}, {9, "4", "Fig", "", 0}};
  add("results", 4, dps::EncodeResults, results);
  results.scored = true;
  results.docs[0].score = 2.5;
  results.docs[1].score = 1.25;
  add("results_scored", 4, dps::EncodeResults, results);
  dps::BinStats stats;
  stats.request_id = 77;
  stats.bin = 3;
  stats.results = 2;
  stats.queue_wait_us = 120;
  stats.service_us = 900;
  stats.bytes = 88;
  stats.fast_path = stats.tablet_complete = true;
  add("binstats", 5, dps::EncodeBinStats, stats);
  add("done", 6, dps::EncodeDone, dps::Done{77, dps::DoneCode::kInvalidQuery, "prefix 'a*' expands to 9 terms", 12});
  add("done_not_at_generation", 6, dps::EncodeDone,
      dps::Done{78, dps::DoneCode::kNotAtGeneration, "not at generation 13 (serving 12)", 12});
  add("started", 7, dps::EncodeStarted, dps::Started{77});
  for (const Named& f : frames) {
    Seed("protocol_fuzz", f.name, Byte(f.selector) + f.frame.substr(dps::kFrameHeaderSize));
    Seed("protocol_fuzz", std::string(f.name) + "_frame", Byte(f.selector | 8) + f.frame);
  }
}

void Texts() {
  Seed("cluster_file_fuzz", "ranges", "# two ranges, two replicas each\n0-1 a:7000 b:7000\n2-3 c:7000 d:7000\n");
  Seed("cluster_file_fuzz", "single", "0 127.0.0.1:7100   # one tablet\n\n1 [::1]:7101 localhost:7102\n");
  const char* queries[] = {"white house -senate", "(a OR b) c", "netw* AND NOT kernel", "\"new york\"~2 city",
                           "title:apple OR author:(ann lee)", "title:\"banana boat\"", "白宫 新闻", "café -Été",
                           "a b OR c NOT d", "-a", "apple^2", "running runs ran"};
  Seed("query_parser_fuzz", "deep_groups", Byte(0) + std::string(70, '(') + "a" + std::string(70, ')'));
  for (size_t i = 0; i < sizeof queries / sizeof *queries; ++i) {
    std::string name = std::to_string(i);
    name.insert(name.begin(), 'q');  // (not "q" + ...: GCC 12 -Wrestrict false positive)
    Seed("query_parser_fuzz", name, Byte(static_cast<uint8_t>(i % 8)) + queries[i]);
  }
  const std::string corpus = ReadOrDie(root + "/tests/golden/corpus-a.jsonl");
  Seed("lines_reader_fuzz", "golden_jsonl", Byte(1) + corpus);
  Seed("lines_reader_fuzz", "golden_jsonl_skip_limit", Byte(7) + corpus);
  Seed("lines_reader_fuzz", "lines", Byte(0) + "\xEF\xBB\xBF" "first line\r\n\n  \t\nthird \xff line\nno newline");
  Seed("lines_reader_fuzz", "lines_limit", Byte(6) + "short\na line longer than thirty-two bytes here\nend\n");
  auto file = [](std::string_view name, std::string_view content) {
    return Byte(0) + Byte(static_cast<uint8_t>(name.size())) + std::string(name) + U16(content.size()) +
           std::string(content);
  };
  auto dir = [](std::string_view name) { return Byte(1) + Byte(static_cast<uint8_t>(name.size())) + std::string(name); };
  const std::string leave = Byte(2) + Byte(0);
  auto link = [](std::string_view name, std::string_view target) {
    return Byte(3) + Byte(static_cast<uint8_t>(name.size())) + std::string(name) +
           Byte(static_cast<uint8_t>(target.size())) + std::string(target);
  };
  const std::string cycle = Byte(4) + Byte(4) + "up";
  Seed("dir_reader_fuzz", "tree", Byte(0) + file("a.txt", "apple banana") + dir("sub") + file("b.txt", "cherry") +
                                      file("bin", std::string("\x00\x01\x02", 3)) + leave + file("c.txt", "date"));
  Seed("dir_reader_fuzz", "links", Byte(1) + dir("d") + file("x", "x y z") + cycle + leave + link("ld", "d") +
                                       link("lx", "a") + link("dangling", "nowhere") + file("a", "words"));
  const std::string gz = dps::fuzz::Gzip("compressed words", 6);
  const std::string zst = dps::fuzz::Zstd(corpus, 3);
  Seed("dir_reader_fuzz", "compressed", Byte(4) + file("a.gz", gz) + file("b.zst", zst) + file("c.gz", "not gzip"));
  Seed("decompress_fuzz", "gzip", Byte(0x20) + gz);
  Seed("decompress_fuzz", "gzip_twice", Byte(0x0e) + gz + gz);
  Seed("decompress_fuzz", "zstd", Byte(0x41) + zst);
  Seed("decompress_fuzz", "zstd_twice", Byte(0x03) + zst + zst);
  Seed("decompress_fuzz", "empty_zstd", Byte(1));
  Seed("decompress_fuzz", "plain", Byte(0x10) + corpus.substr(0, 200));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_seeds REPOSITORY_ROOT\n");
    return 2;
  }
  root = argv[1];
  const std::string scratch = dps::fuzz::ScratchPath("seeds");
  std::filesystem::create_directories(scratch);
  PostingBlocks();
  PostingLists();
  InlinePostings();
  Dictionaries(scratch);
  DocStores();
  Manifests();
  Runs(scratch);
  Frames();
  Texts();
  return 0;
}
