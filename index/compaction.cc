#include "index/compaction.h"

#include <algorithm>

#include "index/entry_cursor.h"
#include "index/tablet_writer.h"

namespace dps {

size_t FilesToCompact(const Tablet& tablet) {
  const auto& files = tablet.files();
  const size_t n = files.size();
  uint64_t docs = 0, deleted = 0;
  for (const auto& f : files) {
    for (size_t i = 0; i < f->bin_count(); ++i) docs += f->bin(i).num_docs;
  }
  for (uint32_t bin = tablet.first_bin(); bin <= tablet.last_bin(); ++bin) {
    deleted += tablet.deleted(BinId{bin}).size();
  }
  if (n > kMaxFilesPerTablet || (deleted > 0 && deleted * 4 > docs)) return 0;
  size_t first = n;
  uint64_t total = 0, largest = 0;
  for (size_t k = n; k-- > 0;) {  // suffixes, shortest first
    total += files[k]->file_size();
    largest = std::max(largest, files[k]->file_size());
    if (n - k >= 2 && static_cast<double>(largest) * kCompactionRatio <= static_cast<double>(total)) {
      first = k;
    }
  }
  return first;
}

Status CompactTablet(IndexWriter* writer, size_t t, CompactionStats* stats) {
  const Tablet& tablet = writer->current().tablet(t);
  bool has_tombstones = false;
  for (uint32_t bin = tablet.first_bin(); bin <= tablet.last_bin(); ++bin) {
    has_tombstones |= !tablet.deleted(BinId{bin}).empty();
  }
  if (tablet.files().size() <= 1 && !has_tombstones) return Status::OK();
  return CompactTabletSuffix(writer, t, 0, stats);
}

Status CompactTabletSuffix(IndexWriter* writer, size_t t, size_t first, CompactionStats* stats) {
  const TabletEntry& entry = writer->manifest().tablets[t];
  if (first >= entry.files.size()) return Status::OK();
  // The run of files as a tablet of its own: its deleted set is exactly the
  // tombstones that can hit its documents (older files cannot delete newer
  // docids, and all newer files are in the run).
  TabletEntry run_entry = entry;
  run_entry.files.erase(run_entry.files.begin(), run_entry.files.begin() + static_cast<ptrdiff_t>(first));
  DPS_ASSIGN_OR_RETURN(auto run, Tablet::Open(writer->dir(), run_entry));

  const std::string name = writer->AllocateFileName(".tab");
  TabletWriterOptions options;
  options.store_text = writer->manifest().store_text;
  options.positions = writer->manifest().positions;
  options.fields = writer->manifest().fields;
  const size_t columns = options.fields.columns();
  DPS_ASSIGN_OR_RETURN(auto out, TabletWriter::Create(writer->dir() + "/" + name, options));
  EntryCursor cursor(writer->current().global(), run.get(), static_cast<uint32_t>(first), options.positions);
  cursor.SeekToFirst();
  std::vector<DocId> docs, carried;
  std::vector<uint32_t> weights, positions, one;
  std::vector<BinLengthTable> lengths(columns);
  for (uint32_t bin = run->first_bin(); bin <= run->last_bin(); ++bin) {
    // Live stored documents of the bin, in docid order across files.
    std::vector<StoredDoc> stored;
    std::vector<DocId> all_docids;
    // Of the live documents, from their files: docid, then each column's length.
    std::vector<std::vector<uint32_t>> kept_lengths;
    for (const auto& file : run->files()) {
      int i = file->FindBin(BinId{bin});
      if (i < 0) continue;
      std::vector<StoredDoc> part;
      DPS_RETURN_IF_ERROR(file->docs(static_cast<size_t>(i)).ReadAll(&part));
      for (auto& d : part) {
        all_docids.push_back(d.docid);
        if (run->IsDeleted(BinId{bin}, d.docid)) {
          ++stats->documents_dropped;
        } else {
          auto& kept = kept_lengths.emplace_back(1 + columns);
          kept[0] = d.docid;
          for (size_t c = 0; c < columns; ++c) kept[1 + c] = file->lengths(static_cast<size_t>(i), c).Get(d.docid);
          stored.push_back(std::move(d));
        }
      }
    }
    std::sort(stored.begin(), stored.end(),
              [](const StoredDoc& a, const StoredDoc& b) { return a.docid < b.docid; });
    std::sort(all_docids.begin(), all_docids.end());
    // Tombstones aimed at documents of older files stay in force.
    carried.clear();
    for (DocId d : run->deleted(BinId{bin})) {
      if (!std::binary_search(all_docids.begin(), all_docids.end(), d)) carried.push_back(d);
    }
    const bool has_postings = cursor.Valid() && cursor.key().bin == bin;
    if (stored.empty() && !has_postings && carried.empty()) continue;
    std::sort(kept_lengths.begin(), kept_lengths.end());
    for (size_t c = 0; c < columns; ++c) {
      lengths[c].Clear();
      for (const auto& kept : kept_lengths) lengths[c].Set(kept[0], kept[1 + c]);
    }
    DPS_RETURN_IF_ERROR(out->StartBin(BinId{bin}));
    for (size_t c = 0; c < columns; ++c) out->SetDocLengths(&lengths[c], c);
    while (cursor.Valid() && cursor.key().bin == bin) {
      const std::string term(cursor.key().term);
      docs.clear();
      weights.clear();
      positions.clear();
      for (; cursor.Valid() && cursor.key().bin == bin && cursor.key().term == term; cursor.Next()) {
        docs.push_back(cursor.key().docid);
        weights.push_back(cursor.weight());
        if (options.positions) {
          DPS_RETURN_IF_ERROR(cursor.positions(&one));
          positions.insert(positions.end(), one.begin(), one.end());
        }
      }
      DPS_RETURN_IF_ERROR(cursor.status());
      DPS_RETURN_IF_ERROR(out->AddPostingList(term, docs, weights, positions));
    }
    for (const auto& d : stored) {
      DPS_RETURN_IF_ERROR(out->AddDocument(d.docid, d.id, d.title, d.text));
    }
    DPS_RETURN_IF_ERROR(out->AddTombstones(carried));
    DPS_RETURN_IF_ERROR(out->FinishBin());
  }
  DPS_RETURN_IF_ERROR(cursor.status());
  DPS_RETURN_IF_ERROR(out->Finish());
  ++stats->tablets;
  stats->files_in += run->files().size();
  for (const auto& f : run->files()) stats->bytes_in += f->file_size();
  stats->bytes_out += out->bytes_written();
  run.reset();
  return writer->ReplaceTabletFiles(t, first, name);
}

Status CompactWhereNeeded(IndexWriter* writer, CompactionStats* stats) {
  for (size_t t = 0; t < writer->manifest().tablets.size(); ++t) {
    const Tablet& tablet = writer->current().tablet(t);
    const size_t first = FilesToCompact(tablet);
    if (first < tablet.files().size()) DPS_RETURN_IF_ERROR(CompactTabletSuffix(writer, t, first, stats));
  }
  return Status::OK();
}

}  // namespace dps
