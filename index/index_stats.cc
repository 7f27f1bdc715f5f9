#include "index/index_stats.h"

#include <algorithm>
#include <filesystem>
#include <queue>

namespace dps {

Status ComputeIndexStats(const IndexReader& index, size_t top_terms, IndexStats* stats) {
  *stats = IndexStats();
  stats->bin_documents.assign(index.bins(), 0);
  for (size_t t = 0; t < index.tablet_count(); ++t) {
    const Tablet& tablet = index.tablet(t);
    TabletStats ts;
    ts.first_bin = tablet.first_bin();
    ts.last_bin = tablet.last_bin();
    for (size_t f = 0; f < tablet.files().size(); ++f) {
      const TabletReader& file = *tablet.files()[f];
      FileStats fs;
      fs.name = index.manifest().tablets[t].files[f];
      fs.bytes = file.file_size();
      for (size_t i = 0; i < file.bin_count(); ++i) {
        const BinInfo& b = file.bin(i);
        fs.documents += b.num_docs;
        fs.postings += b.num_postings;
        fs.tombstones += file.tombstones(i).size();
        stats->bin_documents[b.bin] += b.num_docs;
      }
      ts.bytes += fs.bytes;
      stats->stored_documents += fs.documents;
      stats->postings += fs.postings;
      ts.files.push_back(std::move(fs));
    }
    for (uint32_t bin = tablet.first_bin(); bin <= tablet.last_bin(); ++bin) {
      stats->bin_documents[bin] -= tablet.deleted(BinId{bin}).size();
      ts.live_documents += stats->bin_documents[bin];
    }
    stats->live_documents += ts.live_documents;
    stats->bytes += ts.bytes;
    stats->tablets.push_back(std::move(ts));
  }
  if (!index.manifest().global_index.empty()) {
    std::error_code ec;
    stats->global_index_bytes =
        std::filesystem::file_size(index.dir() + "/" + index.manifest().global_index, ec);
    stats->bytes += stats->global_index_bytes;
  }
  std::vector<uint64_t> sorted = stats->bin_documents;
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty() && sorted[sorted.size() / 2] > 0) {
    stats->bin_skew = static_cast<double>(sorted.back()) / static_cast<double>(sorted[sorted.size() / 2]);
  }
  const FieldSet& fields = index.manifest().fields;
  const CollectionStats& collection = index.collection_stats();
  for (size_t f = 0; f < fields.names().size(); ++f) {
    IndexStats::FieldStats fs;
    fs.name = fields.names()[f];
    fs.documents = collection.field_totals[f].documents;
    fs.tokens = collection.field_totals[f].tokens;
    stats->fields.push_back(std::move(fs));
  }
  if (const GlobalIndexReader* global = index.global()) {
    stats->terms = global->num_terms();
    using Entry = std::pair<uint64_t, std::string>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;  // min-heap
    TermDictCursor cursor(&global->dict());
    GlobalTermInfo info;
    // Every term: fields' postings are counted, the top bare terms kept.
    for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next()) {
      DPS_RETURN_IF_ERROR(global->ParseValue(cursor.value(), &info));
      if (IsFieldKey(cursor.key())) {
        const int column = fields.ColumnOf(cursor.key());
        if (column > 0) {
          ++stats->fields[static_cast<size_t>(column - 1)].terms;
          stats->fields[static_cast<size_t>(column - 1)].postings += info.df;
        }
        continue;
      }
      if (top_terms == 0) continue;
      if (heap.size() < top_terms) {
        heap.emplace(info.df, std::string(cursor.key()));
      } else if (info.df > heap.top().first) {
        heap.pop();
        heap.emplace(info.df, std::string(cursor.key()));
      }
    }
    DPS_RETURN_IF_ERROR(cursor.status());
    while (!heap.empty()) {
      stats->top_terms.emplace_back(heap.top().second, heap.top().first);
      heap.pop();
    }
    std::reverse(stats->top_terms.begin(), stats->top_terms.end());
  }
  return Status::OK();
}

}  // namespace dps
