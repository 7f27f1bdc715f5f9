#include "index/scan.h"

#include "index/entry_cursor.h"

namespace dps {

Status ScanEntries(const IndexReader& index, const ScanOptions& options, const EntrySink& emit) {
  if (options.bin && *options.bin >= index.bins()) {
    return Status::InvalidArgument("bin " + std::to_string(*options.bin) + " out of range (index has " +
                                   std::to_string(index.bins()) + " bins)");
  }
  const uint32_t first = options.bin.value_or(0);
  const uint32_t last = options.bin.value_or(index.bins() - 1);
  for (uint32_t bin = first; bin <= last; ++bin) {
    const Tablet& tablet = index.TabletOf(BinId{bin});
    if (options.term) {
      DPS_ASSIGN_OR_RETURN(auto it, index.OpenTerm(BinId{bin}, *options.term));
      if (it == nullptr) continue;
      for (DocId d = it->doc(); d != kEndDoc; d = it->Next()) {
        uint32_t w = it->weight();
        DPS_RETURN_IF_ERROR(it->status());
        if (!emit(bin, *options.term, d, w)) return Status::OK();
      }
      DPS_RETURN_IF_ERROR(it->status());
      continue;
    }
    // Whole bins: one cursor walk per tablet-bin range.
    EntryCursor cursor(index.global(), &tablet);
    for (cursor.Seek(bin, "", 0); cursor.Valid() && cursor.key().bin == bin; cursor.Next()) {
      const EntryKey k = cursor.key();
      if (!emit(k.bin, k.term, k.docid, cursor.weight())) return Status::OK();
    }
    DPS_RETURN_IF_ERROR(cursor.status());
  }
  return Status::OK();
}

Status ScanDocuments(const IndexReader& index, std::optional<uint32_t> bin, const DocSink& emit) {
  for (uint32_t b = bin.value_or(0); b <= bin.value_or(index.bins() - 1) && b < index.bins(); ++b) {
    const Tablet& tablet = index.TabletOf(BinId{b});
    for (const auto& file : tablet.files()) {
      int i = file->FindBin(BinId{b});
      if (i < 0) continue;
      std::vector<StoredDoc> docs;
      DPS_RETURN_IF_ERROR(file->docs(static_cast<size_t>(i)).ReadAll(&docs));
      for (const auto& d : docs) {
        if (tablet.IsDeleted(BinId{b}, d.docid)) continue;
        if (!emit(b, d)) return Status::OK();
      }
    }
  }
  return Status::OK();
}

}  // namespace dps
