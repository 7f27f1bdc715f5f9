#include "index/index_reader.h"

namespace dps {

Result<std::unique_ptr<IndexReader>> IndexReader::Open(const std::string& dir) {
  std::unique_ptr<IndexReader> r(new IndexReader());
  r->dir_ = dir;
  DPS_ASSIGN_OR_RETURN(r->manifest_, ReadManifest(dir));
  const FieldSet& fields = r->manifest_.fields;
  r->stats_.fields = fields;
  r->stats_.field_totals.resize(fields.names().size());
  for (const auto& entry : r->manifest_.tablets) {
    DPS_ASSIGN_OR_RETURN(auto tablet, Tablet::Open(dir, entry));
    for (const auto& file : tablet->files()) {
      for (size_t i = 0; i < file->bin_count(); ++i) {
        if (file->bin(i).num_docs == 0) continue;
        r->stats_.documents += file->bin(i).num_docs;
        r->stats_.tokens += file->lengths(i).total_tokens();
        const auto& columns = file->field_columns(i);
        if (columns.size() != fields.names().size()) {
          return Status::Corruption(file->path() + ": bin " + std::to_string(file->bin(i).bin) + " has " +
                                    std::to_string(columns.size()) + " field length columns, the index " +
                                    std::to_string(fields.names().size()) + " fields (" + fields.List() + ")");
        }
        for (size_t f = 0; f < columns.size(); ++f) {
          r->stats_.field_totals[f].documents += columns[f].docs;
          r->stats_.field_totals[f].tokens += columns[f].lengths.total_tokens();
        }
      }
    }
    r->tablets_.push_back(std::move(tablet));
  }
  if (!r->manifest_.global_index.empty()) {
    DPS_ASSIGN_OR_RETURN(r->global_,
                         GlobalIndexReader::Open(dir + "/" + r->manifest_.global_index));
  }
  return r;
}

Result<std::unique_ptr<TermIterator>> IndexReader::OpenTerm(BinId bin,
                                                            std::string_view term) const {
  if (global_ == nullptr) return std::unique_ptr<TermIterator>();
  bool found = false;
  GlobalTermInfo info;
  DPS_RETURN_IF_ERROR(global_->Lookup(term, &found, &info));
  if (!found) return std::unique_ptr<TermIterator>();
  return TabletOf(bin).OpenRefs(bin, info.RefsOf(bin));
}

}  // namespace dps
