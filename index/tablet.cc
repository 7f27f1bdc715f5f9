#include "index/tablet.h"

#include <algorithm>

#include "index/term_iterator.h"

namespace dps {

Result<std::unique_ptr<Tablet>> Tablet::Open(const std::string& dir, const TabletEntry& entry) {
  std::unique_ptr<Tablet> t(new Tablet());
  t->first_bin_ = entry.first_bin;
  t->last_bin_ = entry.last_bin;
  t->deleted_.resize(entry.last_bin - entry.first_bin + 1);
  for (const auto& name : entry.files) {
    DPS_ASSIGN_OR_RETURN(auto file, TabletReader::Open(dir + "/" + name));
    for (size_t i = 0; i < file->bin_count(); ++i) {
      const BinInfo& info = file->bin(i);
      if (info.bin < entry.first_bin || info.bin > entry.last_bin) {
        return Status::Corruption(file->path() + ": holds bin " + std::to_string(info.bin) +
                                  " outside its tablet " + std::to_string(entry.first_bin) + "-" +
                                  std::to_string(entry.last_bin));
      }
      auto& del = t->deleted_[info.bin - entry.first_bin];
      del.insert(del.end(), file->tombstones(i).begin(), file->tombstones(i).end());
    }
    t->files_.push_back(std::move(file));
  }
  for (auto& del : t->deleted_) {
    std::sort(del.begin(), del.end());
    del.erase(std::unique(del.begin(), del.end()), del.end());
  }
  return t;
}

std::span<const DocId> Tablet::deleted(BinId bin) const { return deleted_[bin.value - first_bin_]; }

bool Tablet::IsDeleted(BinId bin, DocId docid) const {
  auto del = deleted(bin);
  return std::binary_search(del.begin(), del.end(), docid);
}

Status Tablet::ResolveRef(const TermRef& ref, const TabletReader** file, PostingRef* out) const {
  auto bad = [&](const std::string& what) {
    return Status::Corruption("global index ref (bin " + std::to_string(ref.bin) + ", file " +
                              std::to_string(ref.file) + "): " + what);
  };
  if (!HoldsBin(BinId{ref.bin})) return bad("bin outside tablet");
  if (ref.file >= files_.size()) return bad("tablet has " + std::to_string(files_.size()) + " files");
  const TabletReader* f = files_[ref.file].get();
  const int i = f->FindBin(BinId{ref.bin});
  if (i < 0) return bad(f->path() + " holds no such bin");
  const BinInfo& b = f->bin(static_cast<size_t>(i));
  out->df = ref.df;
  out->inline_doc = ref.inline_doc;
  out->inline_weight = ref.inline_weight;
  out->inline_postings = ref.inline_postings;
  out->inline_weights = ref.inline_weights;
  out->len = ref.len;
  out->max_score = ref.max_score;
  out->offset = 0;
  out->inline_positions = ref.inline_positions;
  out->positions_offset = 0;
  if (ref.in_file()) {
    if (ref.offset > b.postings_len || ref.len > b.postings_len - ref.offset) {
      return bad("postings range outside " + f->path() + "'s bin");
    }
    out->offset = b.postings_offset + ref.offset;
    if (f->positions()) {
      if (ref.positions_offset >= b.positions_len) return bad("positions offset outside " + f->path() + "'s bin");
      out->positions_offset = b.positions_offset + ref.positions_offset;
    }
  }
  *file = f;
  return Status::OK();
}

Result<std::unique_ptr<TermIterator>> Tablet::OpenRefs(BinId bin, std::span<const TermRef> refs,
                                                       bool with_positions) const {
  if (refs.empty()) return std::unique_ptr<TermIterator>();
  std::vector<std::unique_ptr<PostingCursor>> parts;
  std::vector<std::unique_ptr<PostingPositions>> positions;
  for (const TermRef& r : refs) {
    if (r.bin != bin.value) return Status::Corruption("global index ref of another bin");
    const TabletReader* file;
    PostingRef ref;
    DPS_RETURN_IF_ERROR(ResolveRef(r, &file, &ref));
    auto cursor = std::make_unique<PostingCursor>();
    DPS_RETURN_IF_ERROR(file->OpenCursor(ref, cursor.get()));
    parts.push_back(std::move(cursor));
    if (with_positions) {
      positions.push_back(std::make_unique<PostingPositions>());
      DPS_RETURN_IF_ERROR(file->OpenPositions(ref, positions.back().get()));
    }
  }
  auto it = std::make_unique<TermIterator>(std::move(parts), deleted(bin));
  if (with_positions) it->AttachPositions(std::move(positions));
  return it;
}

Status Tablet::GetDocument(BinId bin, DocId docid, StoredDoc* doc, DocBlockCache* cache,
                           bool with_text, bool with_titles) const {
  if (IsDeleted(bin, docid)) return Status::NotFound("docid " + std::to_string(docid) + " deleted");
  for (const auto& file : files_) {
    int i = file->FindBin(bin);
    if (i < 0) continue;
    const BinInfo& info = file->bin(static_cast<size_t>(i));
    if (info.num_docs == 0 || docid < info.min_docid || docid > info.max_docid) continue;
    return file->docs(static_cast<size_t>(i)).Get(docid, doc, cache, with_text, with_titles);
  }
  return Status::NotFound("bin " + std::to_string(bin.value) + " docid " + std::to_string(docid));
}

}  // namespace dps
