#include "index/check.h"

#include "index/entry_cursor.h"
#include "index/index_reader.h"

namespace dps {

Status CheckIndex(const std::string& dir, CheckReport* report) {
  *report = CheckReport();
  DPS_ASSIGN_OR_RETURN(auto index, IndexReader::Open(dir));
  for (size_t t = 0; t < index->tablet_count(); ++t) {
    const Tablet& tablet = index->tablet(t);
    for (const auto& file : tablet.files()) {
      DPS_RETURN_IF_ERROR(file->file().Verify(0, file->file().body_size()));
      ++report->files;
      report->bytes += file->file_size();
      report->pages += file->file().page_count();
      for (size_t i = 0; i < file->bin_count(); ++i) {
        std::vector<StoredDoc> docs;
        DPS_RETURN_IF_ERROR(file->docs(i).ReadAll(&docs));
        if (docs.size() != file->bin(i).num_docs) {
          return Status::Corruption(file->path() + ": bin " + std::to_string(file->bin(i).bin) +
                                    ": directory says " + std::to_string(file->bin(i).num_docs) +
                                    " documents, doc store holds " + std::to_string(docs.size()));
        }
        report->documents += docs.size();
      }
    }
    EntryCursor cursor(&tablet);
    for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next()) ++report->entries;
    DPS_RETURN_IF_ERROR(cursor.status());
  }
  if (const GlobalIndexReader* global = index->global()) {
    // Every ref must be the tablet dictionary's entry for the term, and every
    // tablet dictionary entry must have its ref.
    uint64_t dict_entries = 0, refs = 0;
    for (size_t t = 0; t < index->tablet_count(); ++t) {
      for (const auto& file : index->tablet(t).files()) {
        for (size_t i = 0; i < file->bin_count(); ++i) dict_entries += file->bin(i).num_terms;
      }
    }
    TermDictCursor cursor(&global->dict());
    GlobalTermInfo info;
    for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next()) {
      DPS_RETURN_IF_ERROR(global->ParseValue(cursor.value(), &info));
      for (const TermRef& r : info.refs) {
        auto bad = [&](const std::string& what) {
          return Status::Corruption(global->path() + ": term '" + std::string(cursor.key()) +
                                    "' bin " + std::to_string(r.bin) + ": " + what);
        };
        if (r.bin >= index->bins()) return bad("no such bin");
        const TabletReader* file;
        PostingRef got, want;
        DPS_RETURN_IF_ERROR(index->TabletOf(BinId{r.bin}).ResolveRef(r, &file, &got));
        bool found = false;
        DPS_RETURN_IF_ERROR(file->FindTerm(static_cast<size_t>(file->FindBin(BinId{r.bin})),
                                           cursor.key(), &found, &want));
        if (!found) return bad("absent from " + file->path());
        if (got.df != want.df || got.offset != want.offset || got.len != want.len ||
            got.inline_doc != want.inline_doc || got.inline_weight != want.inline_weight) {
          return bad("disagrees with " + file->path() + "'s dictionary");
        }
        ++refs;
      }
      ++report->terms;
    }
    DPS_RETURN_IF_ERROR(cursor.status());
    if (refs != dict_entries) {
      return Status::Corruption(global->path() + ": " + std::to_string(refs) +
                                " postings refs for " + std::to_string(dict_entries) +
                                " tablet dictionary entries");
    }
    if (report->terms != global->num_terms()) {
      return Status::Corruption(dir + "/" + index->manifest().global_index + ": directory says " +
                                std::to_string(global->num_terms()) + " terms, found " +
                                std::to_string(report->terms));
    }
  }
  return Status::OK();
}

}  // namespace dps
