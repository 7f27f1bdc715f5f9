#include "ingest/tablet_build.h"

#include "index/term_dict.h"

namespace dps {

Status RunSet::Add(const std::string& path) {
  DPS_ASSIGN_OR_RETURN(auto reader, TabletReader::Open(path));
  runs_.push_back(std::move(reader));
  return Status::OK();
}

Status RunSet::ForEachList(uint32_t bin, const IngestBuffer::ListSink& emit) const {
  struct Source {
    const TabletReader* run;
    size_t bin_index;
    std::unique_ptr<TermDictCursor> cursor;
  };
  std::vector<Source> sources;
  for (const auto& run : runs_) {
    int i = run->FindBin(BinId{bin});
    if (i < 0 || run->dict(static_cast<size_t>(i)).empty()) continue;
    auto cursor = std::make_unique<TermDictCursor>(&run->dict(static_cast<size_t>(i)));
    cursor->SeekToFirst();
    DPS_RETURN_IF_ERROR(cursor->status());
    sources.push_back(Source{run.get(), static_cast<size_t>(i), std::move(cursor)});
  }
  std::vector<DocId> docs;
  std::vector<uint32_t> weights;
  std::string term;
  PostingCursor cursor;
  for (;;) {
    // Smallest current term; runs are few, so a linear scan beats a heap.
    const TermDictCursor* best = nullptr;
    for (const auto& s : sources) {
      if (s.cursor->Valid() && (best == nullptr || s.cursor->key() < best->key())) {
        best = s.cursor.get();
      }
    }
    if (best == nullptr) {
      // The bin is merged: let go of the runs' pages read for it.
      for (const auto& run : runs_) run->file().DropResidentPages();
      return Status::OK();
    }
    term.assign(best->key());
    docs.clear();
    weights.clear();
    for (auto& s : sources) {  // oldest run first: docids ascend
      if (!s.cursor->Valid() || s.cursor->key() != term) continue;
      PostingRef ref;
      DPS_RETURN_IF_ERROR(s.run->ParsePostingRef(s.bin_index, s.cursor->value(), &ref));
      DPS_RETURN_IF_ERROR(s.run->OpenCursor(ref, &cursor));
      for (DocId d = cursor.doc(); d != kEndDoc; d = cursor.Next()) {
        docs.push_back(d);
        weights.push_back(cursor.weight());
      }
      DPS_RETURN_IF_ERROR(cursor.status());
      s.cursor->Next();
      DPS_RETURN_IF_ERROR(s.cursor->status());
    }
    if (!emit(term, docs, weights)) return Status::OK();
  }
}

Status BuildTabletFile(const TabletBuild& build, const std::vector<uint8_t>& bin_has_data,
                       TabletBuildResult* result) {
  *result = TabletBuildResult();
  bool any = false;
  for (uint32_t bin = build.first_bin; bin <= build.last_bin; ++bin) any |= bin_has_data[bin];
  if (!any) return Status::OK();
  DPS_ASSIGN_OR_RETURN(auto writer, TabletWriter::Create(build.path, build.options));
  for (uint32_t bin = build.first_bin; bin <= build.last_bin; ++bin) {
    if (!bin_has_data[bin]) continue;
    DPS_RETURN_IF_ERROR(writer->StartBin(BinId{bin}));
    Status list_status;
    DPS_RETURN_IF_ERROR(build.lists(bin, [&](std::string_view term, std::span<const DocId> docs,
                                             std::span<const uint32_t> weights) {
      list_status = writer->AddPostingList(term, docs, weights);
      result->postings += docs.size();
      return list_status.ok();
    }));
    DPS_RETURN_IF_ERROR(list_status);
    if (build.docs != nullptr) {
      DPS_RETURN_IF_ERROR(build.docs->ReadBin(
          bin, [&](DocId docid, std::string_view id, std::string_view title, std::string_view text) {
            return writer->AddDocument(docid, id, title, text);
          }));
    }
    if (build.tombstones != nullptr) {
      DPS_RETURN_IF_ERROR(writer->AddTombstones((*build.tombstones)[bin]));
    }
    DPS_RETURN_IF_ERROR(writer->FinishBin());
  }
  DPS_RETURN_IF_ERROR(writer->Finish());
  result->written = true;
  result->bytes = writer->bytes_written();
  result->sizes = writer->posting_sizes();
  result->inline_postings = writer->inline_postings();
  return Status::OK();
}

}  // namespace dps
