// dps_index_size: indexes a pre-tokenized JSONL corpus (the peers harness's
// normalized form: tokens separated by single spaces; title + " " + text is
// the one indexed field) without stored text, and reports where the bytes
// go: docids, weights, skip tables, dictionary, doc store. Used to compare
// posting sizes with Lucene's .doc file (bench/RESULTS.md).
//
//   dps_index_size CORPUS.jsonl OUTDIR [bins] [tablets]
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CORPUS.jsonl OUTDIR [bins] [tablets]\n", argv[0]);
    return 2;
  }
  dps::IndexOptions options;
  options.store_text = false;
  options.bins = argc > 3 ? static_cast<uint32_t>(std::stoul(argv[3])) : 16;
  options.tablets = argc > 4 ? static_cast<uint32_t>(std::stoul(argv[4])) : 4;
  std::filesystem::remove_all(argv[2]);

  simdjson::padded_string json;
  if (auto error = simdjson::padded_string::load(argv[1]).get(json)) {
    std::fprintf(stderr, "%s: %s\n", argv[1], simdjson::error_message(error));
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<dps::AnalyzedDocument> docs;
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document_stream stream;
  if (auto error = parser.iterate_many(json).get(stream)) {
    std::fprintf(stderr, "%s: %s\n", argv[1], simdjson::error_message(error));
    return 2;
  }
  uint64_t tokens = 0;
  std::unordered_map<std::string_view, uint32_t> tf;
  for (auto doc : stream) {
    dps::AnalyzedDocument d;
    std::string_view id, title, text;
    if (doc["id"].get_string().get(id) || doc["title"].get_string().get(title) ||
        doc["text"].get_string().get(text)) {
      std::fprintf(stderr, "%s: document %zu: need string id, title, text\n", argv[1], docs.size());
      return 2;
    }
    d.id = std::string(id);
    d.text = std::string(title) + " " + std::string(text);
    tf.clear();
    std::string_view rest = d.text;
    while (!rest.empty()) {
      size_t sp = rest.find(' ');
      std::string_view tok = rest.substr(0, sp);
      if (!tok.empty()) {
        ++tf[tok];
        ++tokens;
      }
      if (sp == std::string_view::npos) break;
      rest.remove_prefix(sp + 1);
    }
    for (const auto& [t, n] : tf) d.terms.emplace_back(std::string(t), n);
    docs.push_back(std::move(d));
  }
  const size_t ndocs = docs.size();
  auto writer = dps::IndexWriter::Open(argv[2], options);
  if (!writer.ok()) {
    std::fprintf(stderr, "%s\n", writer.status().ToString().c_str());
    return 3;
  }
  dps::CommitStats stats;
  dps::Status s = (*writer)->Commit(std::move(docs), &stats);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 3;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  uint64_t docstore = 0, total = 0;
  auto index = dps::IndexReader::Open(argv[2]);
  for (size_t t = 0; t < (*index)->tablet_count(); ++t) {
    for (const auto& f : (*index)->tablet(t).files()) {
      total += f->file_size();
      for (size_t i = 0; i < f->bin_count(); ++i) {
        docstore += f->bin(i).docs_len + f->bin(i).ids_len;  // ids are stored documents too
      }
    }
  }
  uint64_t gix = std::filesystem::file_size(std::string(argv[2]) + "/" + (*index)->manifest().global_index);
  const auto& p = stats.posting_sizes;
  const uint64_t postings = p.postings + stats.inline_postings;
  const uint64_t list_bytes = p.doc_bytes + p.weight_bytes + p.skip_bytes + p.impact_bytes;
  std::printf("corpus            %s\n", argv[1]);
  std::printf("documents         %zu (tokens %llu), bins %u, tablets %u, %.2f s\n", ndocs,
              static_cast<unsigned long long>(tokens), options.bins, options.tablets, seconds);
  std::printf("postings          %llu (%llu in %llu lists in files, %llu inline)\n",
              static_cast<unsigned long long>(postings), static_cast<unsigned long long>(p.postings),
              static_cast<unsigned long long>(p.lists),
              static_cast<unsigned long long>(stats.inline_postings));
  auto bits = [&](uint64_t bytes) { return 8.0 * static_cast<double>(bytes) / static_cast<double>(p.postings); };
  std::printf("doc blocks        %llu bytes  %.2f bits/posting (lists in files)\n",
              static_cast<unsigned long long>(p.doc_bytes), bits(p.doc_bytes));
  std::printf("weight blocks     %llu bytes  %.2f bits/posting (lists in files)\n",
              static_cast<unsigned long long>(p.weight_bytes), bits(p.weight_bytes));
  std::printf("skip tables       %llu bytes  %.2f bits/posting (lists in files)\n",
              static_cast<unsigned long long>(p.skip_bytes), bits(p.skip_bytes));
  std::printf("block impacts     %llu bytes  %.2f bits/posting (lists in files)\n",
              static_cast<unsigned long long>(p.impact_bytes), bits(p.impact_bytes));
  std::printf("posting lists     %llu bytes  %.2f bits/posting (lists in files), %.2f bits/posting (all)\n",
              static_cast<unsigned long long>(list_bytes), bits(list_bytes),
              8.0 * static_cast<double>(list_bytes) / static_cast<double>(postings));
  std::printf("doc store         %llu bytes (ids and titles only)\n", static_cast<unsigned long long>(docstore));
  std::printf("global index      %llu bytes\n", static_cast<unsigned long long>(gix));
  std::printf("tablet files      %llu bytes; index total %llu bytes\n",
              static_cast<unsigned long long>(total), static_cast<unsigned long long>(total + gix));
  return 0;
}
