#include "index/entry_cursor.h"

namespace dps {

bool EntryCursor::Fail(const Status& s) {
  status_ = s;
  valid_ = false;
  docs_.reset();
  return false;
}

EntryCursor::EntryCursor(const GlobalIndexReader* global, const Tablet* tablet,
                         uint32_t first_file, bool with_positions)
    : global_(global), tablet_(tablet), first_file_(first_file), with_positions_(with_positions) {
  if (global_ != nullptr) terms_ = std::make_unique<TermDictCursor>(&global_->dict());
}

void EntryCursor::SkipToTermInBin() {
  for (; terms_->Valid(); terms_->Next()) {
    Status s = global_->ParseValue(terms_->value(), &info_);
    if (!s.ok()) {
      Fail(s);
      return;
    }
    refs_.clear();
    for (const TermRef& r : info_.RefsOf(BinId{bin_})) {
      if (r.file < first_file_) continue;
      refs_.push_back(r);
      refs_.back().file -= first_file_;
    }
    if (!refs_.empty()) return;
  }
  if (!terms_->status().ok()) Fail(terms_->status());
}

void EntryCursor::SeekTerms(std::string_view term) {
  if (terms_ == nullptr) return;
  terms_->Seek(term);
  SkipToTermInBin();
}

bool EntryCursor::PickTerm() {
  if (terms_ == nullptr || !status_.ok() || !terms_->Valid()) return false;
  term_.assign(terms_->key());
  return true;
}

void EntryCursor::AdvanceTerm() {
  if (terms_ == nullptr || !terms_->Valid()) return;
  terms_->Next();
  SkipToTermInBin();
}

Status EntryCursor::OpenCurrentTerm() {
  DPS_ASSIGN_OR_RETURN(docs_, tablet_->OpenRefs(BinId{bin_}, refs_, with_positions_));
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
