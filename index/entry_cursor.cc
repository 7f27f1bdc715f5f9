#include "index/entry_cursor.h"

namespace dps {

bool EntryCursor::Fail(const Status& s) {
  status_ = s;
  valid_ = false;
  docs_.reset();
  return false;
}

void EntryCursor::SeekTerms(std::string_view term) {
  dicts_.clear();
  for (const auto& file : tablet_->files()) {
    int i = file->FindBin(BinId{bin_});
    if (i < 0 || file->dict(static_cast<size_t>(i)).empty()) continue;
    auto cursor = std::make_unique<TermDictCursor>(&file->dict(static_cast<size_t>(i)));
    cursor->Seek(term);
    if (!cursor->status().ok()) {
      Fail(cursor->status());
      return;
    }
    dicts_.push_back(Dict{file.get(), static_cast<size_t>(i), std::move(cursor)});
  }
}

bool EntryCursor::PickTerm() {
  const TermDictCursor* best = nullptr;
  for (const auto& d : dicts_) {
    if (d.cursor->Valid() && (best == nullptr || d.cursor->key() < best->key())) {
      best = d.cursor.get();
    }
  }
  if (best == nullptr) return false;
  term_.assign(best->key());
  return true;
}

void EntryCursor::AdvanceTerm() {
  for (auto& d : dicts_) {
    if (d.cursor->Valid() && d.cursor->key() == term_) {
      d.cursor->Next();
      if (!d.cursor->status().ok()) {
        Fail(d.cursor->status());
        return;
      }
    }
  }
}

Status EntryCursor::OpenCurrentTerm() {
  std::vector<std::unique_ptr<PostingCursor>> parts;
  for (const auto& d : dicts_) {
    if (!d.cursor->Valid() || d.cursor->key() != term_) continue;
    PostingRef ref;
    DPS_RETURN_IF_ERROR(d.file->ParsePostingRef(d.bin_index, d.cursor->value(), &ref));
    auto cursor = std::make_unique<PostingCursor>();
    DPS_RETURN_IF_ERROR(d.file->OpenCursor(ref, cursor.get()));
    parts.push_back(std::move(cursor));
  }
  docs_ = parts.empty() ? nullptr
                        : std::make_unique<TermIterator>(std::move(parts), tablet_->deleted(BinId{bin_}));
  return Status::OK();
}

void EntryCursor::Settle(DocId docid) {
  for (;;) {
    if (!status_.ok()) return;
    if (!PickTerm()) {
      if (bin_ >= tablet_->last_bin()) {
        valid_ = false;
        return;
      }
      ++bin_;
      SeekTerms("");
      docid = 0;
      continue;
    }
    Status opened = OpenCurrentTerm();
    if (!opened.ok()) {
      Fail(opened);
      return;
    }
    if (docs_ != nullptr && docs_->Seek(docid) != kEndDoc) {
      weight_ = docs_->weight();
      if (!docs_->status().ok()) {
        Fail(docs_->status());
        return;
      }
      valid_ = true;
      return;
    }
    if (docs_ != nullptr && !docs_->status().ok()) {
      Fail(docs_->status());
      return;
    }
    AdvanceTerm();
    docid = 0;
  }
}

void EntryCursor::Seek(uint32_t bin, std::string_view term, DocId docid) {
  status_ = Status::OK();
  valid_ = false;
  if (bin > tablet_->last_bin()) return;
  if (bin < tablet_->first_bin()) {
    bin = tablet_->first_bin();
    term = "";
    docid = 0;
  }
  bin_ = bin;
  const std::string target(term);  // `term` may view term_, which SeekTerms changes
  SeekTerms(target);
  Settle(PickTerm() && term_ == target ? docid : 0);
}

void EntryCursor::Next() {
  if (!valid_) return;
  if (docs_->Next() != kEndDoc) {
    weight_ = docs_->weight();
    if (!docs_->status().ok()) Fail(docs_->status());
    return;
  }
  if (!docs_->status().ok()) {
    Fail(docs_->status());
    return;
  }
  AdvanceTerm();
  Settle(0);
}

}  // namespace dps
