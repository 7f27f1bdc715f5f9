#include "index/tablet_writer.h"

#include "index/positions.h"

#include <algorithm>

#include "common/file_header.h"
#include "common/coding.h"
#include "index/block_impacts.h"
#include "index/field_lengths.h"
#include "index/inline_postings.h"
#include "index/posting_list.h"

namespace dps {

TabletWriter::TabletWriter(std::unique_ptr<PagedFileWriter> file, const std::string& path,
                           const TabletWriterOptions& options)
    : file_(std::move(file)),
      options_(options),
      docs_(options.zstd_level, [this](std::string_view bytes) { return Append(bytes); }),
      lengths_(options.fields.columns()),
      doc_lengths_(options.fields.columns()),
      given_lengths_(options.fields.columns(), nullptr),
      field_score_avgdl_(options.fields.columns(), 0),
      positions_region_(path + ".pos.tmp") {}

Result<std::unique_ptr<TabletWriter>> TabletWriter::Create(const std::string& path,
                                                           const TabletWriterOptions& options) {
  DPS_ASSIGN_OR_RETURN(auto file, PagedFileWriter::Create(path));
  std::unique_ptr<TabletWriter> w(new TabletWriter(std::move(file), path, options));
  DPS_ASSIGN_OR_RETURN(w->term_list_, TermListWriter::Create(TermListPathFor(path), options.positions));
  std::string header;
  const uint32_t flags = (options.store_text ? kTabletFlagStoredText : 0) | (options.positions ? kTabletFlagPositions : 0);
  EncodeFileHeader({kTabletMagic, kTabletFormatVersion, flags}, &header);
  DPS_RETURN_IF_ERROR(w->Append(header));
  return w;
}

Status TabletWriter::StartBin(BinId bin) {
  if (in_bin_) return Status::InvalidArgument("StartBin: previous bin not finished");
  if (have_bin_ && bin.value <= bin_.bin) {
    return Status::InvalidArgument("StartBin: bins must ascend (" + std::to_string(bin.value) +
                                   " after " + std::to_string(bin_.bin) + ")");
  }
  bin_ = BinInfo();
  bin_.bin = bin.value;
  bin_.postings_offset = file_->offset();
  in_bin_ = have_bin_ = true;
  last_term_.clear();
  docs_started_ = false;
  std::fill(given_lengths_.begin(), given_lengths_.end(), nullptr);
  std::fill(field_score_avgdl_.begin(), field_score_avgdl_.end(), 0);
  tombstones_.clear();
  return term_list_->BeginBin(bin.value);
}

Status TabletWriter::AddPostingList(std::string_view term, std::span<const DocId> docs,
                                    std::span<const uint32_t> weights, std::span<const uint32_t> positions) {
  if (!in_bin_ || docs_started_) {
    return Status::InvalidArgument("AddPostingList: not inside a bin, or after documents");
  }
  DPS_RETURN_IF_ERROR(EncodeList(term, docs, weights, positions, &encoded_));
  return AddEncodedList(encoded_, docs, weights);
}

Status TabletWriter::EncodeList(std::string_view term, std::span<const DocId> docs, std::span<const uint32_t> weights,
                                std::span<const uint32_t> positions, EncodedList* out) const {
  if (docs.empty() || docs.size() != weights.size()) {
    return Status::InvalidArgument("AddPostingList: empty list or size mismatch");
  }
  const int column = options_.fields.ColumnOf(term);
  if (column < 0) {
    return Status::InvalidArgument("AddPostingList: term '" + DisplayKey(term) + "' names no field of the index (" +
                                   options_.fields.List() + ")");
  }
  for (size_t i = 0; i < docs.size(); ++i) {
    if ((i > 0 && docs[i] <= docs[i - 1]) || docs[i] > kMaxDocId || weights[i] == 0) {
      return Status::InvalidArgument("AddPostingList: term '" + std::string(term) +
                                     "': docids must ascend and be <= 2^32-2, weights >= 1");
    }
  }
  if (options_.positions) DPS_RETURN_IF_ERROR(CheckPositions(term, weights, positions));
  out->term.assign(term);
  out->column = static_cast<size_t>(column);
  out->df = static_cast<uint32_t>(docs.size());
  out->inline_value.clear();
  out->postings.clear();
  out->positions.clear();
  out->sizes = PostingSizes();
  // Short lists live inline in the dictionary: most terms of a natural
  // corpus occur once or a few times per bin.
  out->is_inline = docs.size() <= kMaxInlineDf;
  if (out->is_inline) {
    thread_local std::string payload;  // scratch: EncodeList runs on several threads
    payload.clear();
    const bool has_weights = EncodeInlinePostings(docs, weights, &payload);
    PutVarint64(&out->inline_value, uint64_t{docs.size()} << 2 | (has_weights ? 2 : 1));
    out->inline_value.append(payload);
    if (options_.positions) AppendInlinePositions(weights, positions, &out->inline_value);
    return Status::OK();
  }
  const BinLengthTable* given = given_lengths_[out->column];
  thread_local std::vector<uint32_t> lengths;
  lengths.resize(docs.size());
  for (size_t i = 0; i < docs.size(); ++i) {
    lengths[i] = given == nullptr ? 0 : given->Of(docs[i]);
    if (lengths[i] < weights[i]) {
      return Status::InvalidArgument("AddPostingList: term '" + std::string(term) + "': docid " +
                                     std::to_string(docs[i]) + " has no document length of at least its weight " +
                                     std::to_string(weights[i]) + " (SetDocLengths)");
    }
  }
  // The block impacts' reference avgdl: the mean of the lengths given for
  // the bin; a field's, the mean of its documents' lengths in the field
  // (those above 0), as its column records it. A pure function of the
  // bin's lengths, so lists encoded in parallel agree on it.
  out->score_avgdl = out->column == 0 ? ScoreAvgdlUnits(given->mean())
                                      : FieldScoreAvgdlUnits(given->nonzero(), given->total());
  out->max_score = EncodePostingList(docs, weights, lengths, ScoreAvgdl(out->score_avgdl), &out->postings, &out->sizes);
  if (options_.positions) EncodePositionList(weights, positions, &out->positions);
  return Status::OK();
}

Status TabletWriter::AddEncodedList(const EncodedList& list, std::span<const DocId> docs,
                                    std::span<const uint32_t> weights) {
  if (!in_bin_ || docs_started_) {
    return Status::InvalidArgument("AddPostingList: not inside a bin, or after documents");
  }
  if (bin_.num_terms > 0 && list.term <= last_term_) {
    return Status::InvalidArgument("AddPostingList: terms must ascend ('" + list.term + "' after '" + last_term_ +
                                   "')");
  }
  DocLengthCounter& counter = lengths_[list.column];
  for (size_t i = 0; i < docs.size(); ++i) counter.Add(docs[i], weights[i]);
  // Value: df << 2 | form, then form 0: the list's offset and length in the
  // bin's postings region; 1 or 2: the postings inline, without or with
  // weights (docs/FORMAT.md "Term list").
  if (list.is_inline) {
    inline_postings_ += list.df;
    DPS_RETURN_IF_ERROR(term_list_->Add(list.term, list.inline_value));
  } else {
    // The reference of the bin's first list of the column that needs one.
    uint32_t& reference = list.column == 0 ? bin_.score_avgdl : field_score_avgdl_[list.column];
    if (reference == 0) reference = list.score_avgdl;
    sizes_.Add(list.sizes);
    scratch_.clear();
    PutVarint64(&scratch_, uint64_t{list.df} << 2);
    PutVarint64(&scratch_, file_->offset() - bin_.postings_offset);
    PutVarint64(&scratch_, list.postings.size());
    if (list.df > kBlockSize) PutFixed16(&scratch_, static_cast<uint16_t>(list.max_score));
    if (options_.positions) {
      PutVarint64(&scratch_, positions_region_.size());
      positions_region_.tail()->append(list.positions);
      DPS_RETURN_IF_ERROR(positions_region_.Spill());
    }
    DPS_RETURN_IF_ERROR(Append(list.postings));
    DPS_RETURN_IF_ERROR(term_list_->Add(list.term, scratch_));
  }
  last_term_.assign(list.term);
  ++bin_.num_terms;
  bin_.num_postings += list.df;
  return Status::OK();
}

Status TabletWriter::CheckPositions(std::string_view term, std::span<const uint32_t> weights,
                                    std::span<const uint32_t> positions) const {
  size_t at = 0;
  for (uint32_t tf : weights) {
    for (uint32_t i = 0; i < tf; ++i, ++at) {
      if (at >= positions.size() || positions[at] > kMaxPosition || (i > 0 && positions[at] <= positions[at - 1])) {
        return Status::InvalidArgument("AddPostingList: term '" + std::string(term) +
                                       "': each posting needs its weight's ascending positions");
      }
    }
  }
  if (at != positions.size()) {
    return Status::InvalidArgument("AddPostingList: term '" + std::string(term) + "': more positions than weights");
  }
  return Status::OK();
}

// The positions lists of the bin's lists in the file, after its postings.
Status TabletWriter::WritePositionsRegion() {
  if (positions_region_.empty()) return Status::OK();
  bin_.positions_offset = file_->offset();
  bin_.positions_len = positions_region_.size();
  return positions_region_.Drain([this](std::string_view bytes) { return Append(bytes); });
}

Status TabletWriter::AddDocument(DocId docid, std::string_view id, std::string_view title,
                                 std::string_view text) {
  if (!in_bin_) return Status::InvalidArgument("AddDocument: not inside a bin");
  if ((bin_.num_docs > 0 && docid <= last_doc_) || docid > kMaxDocId) {
    return Status::InvalidArgument("AddDocument: docids must ascend and be <= 2^32-2");
  }
  if (!docs_started_) {
    bin_.postings_len = file_->offset() - bin_.postings_offset;
    DPS_RETURN_IF_ERROR(WritePositionsRegion());
    bin_.docs_offset = file_->offset();  // doc blocks stream out from here
    docs_started_ = true;
  }
  DPS_RETURN_IF_ERROR(docs_.Add(docid, id, title, options_.store_text ? text : std::string_view()));
  for (size_t c = 0; c < doc_lengths_.size(); ++c) {
    std::vector<uint32_t>& column = doc_lengths_[c];
    if (bin_.num_docs > 0) column.resize(column.size() + (docid - last_doc_ - 1), 0);  // gaps: absent
    column.push_back(lengths_[c].Get(docid));
    const uint32_t given = given_lengths_[c] == nullptr ? 0 : given_lengths_[c]->Of(docid);
    if ((given_lengths_[c] != nullptr || c > 0) && given != column.back()) {
      return Status::InvalidArgument("AddDocument: docid " + std::to_string(docid) + " was given length " +
                                     std::to_string(given) + (c == 0 ? "" : " in field " + options_.fields.names()[c - 1]) +
                                     ", its postings sum to " + std::to_string(column.back()));
    }
  }
  if (bin_.num_docs == 0) bin_.min_docid = docid;
  bin_.max_docid = last_doc_ = docid;
  ++bin_.num_docs;
  return Status::OK();
}

Status TabletWriter::AddTombstones(std::span<const DocId> docids) {
  if (!in_bin_) return Status::InvalidArgument("AddTombstones: not inside a bin");
  tombstones_.insert(tombstones_.end(), docids.begin(), docids.end());
  return Status::OK();
}

Status TabletWriter::FinishBin() {
  if (!in_bin_) return Status::InvalidArgument("FinishBin: not inside a bin");
  if (!docs_started_) {
    bin_.postings_len = file_->offset() - bin_.postings_offset;
    DPS_RETURN_IF_ERROR(WritePositionsRegion());
  }
  if (bin_.num_docs > 0) {
    std::string region;
    DPS_RETURN_IF_ERROR(docs_.Finish(&region));
    bin_.docs_len = file_->offset() - bin_.docs_offset;
    bin_.ids_offset = file_->offset();
    bin_.ids_len = region.size();
    DPS_RETURN_IF_ERROR(Append(region));
    region.clear();
    EncodeDocLengths(doc_lengths_[0], &region);
    bin_.lengths_offset = file_->offset();
    bin_.lengths_len = region.size();
    DPS_RETURN_IF_ERROR(Append(region));
    // The field columns; a field's block scores were made with the
    // reference avgdl its column records (the same lengths, checked above).
    region.clear();
    const std::vector<std::vector<uint32_t>> fields(doc_lengths_.begin() + 1, doc_lengths_.end());
    for (size_t c = 1; c < doc_lengths_.size(); ++c) {
      if (field_score_avgdl_[c] != 0 && field_score_avgdl_[c] != FieldScoreAvgdlUnits(doc_lengths_[c])) {
        return Status::InvalidArgument("FinishBin: field " + options_.fields.names()[c - 1] +
                                "'s block scores were made for another reference avgdl");
      }
    }
    EncodeFieldLengths(fields, &region);
    bin_.field_lengths_offset = file_->offset();
    bin_.field_lengths_len = region.size();
    DPS_RETURN_IF_ERROR(Append(region));
  } else {
    bin_.docs_offset = file_->offset();
    bin_.docs_len = 0;
  }
  for (auto& counter : lengths_) counter.Clear();
  for (auto& column : doc_lengths_) column.clear();

  DPS_RETURN_IF_ERROR(term_list_->EndBin());

  std::sort(tombstones_.begin(), tombstones_.end());
  tombstones_.erase(std::unique(tombstones_.begin(), tombstones_.end()), tombstones_.end());
  std::string region;
  if (!tombstones_.empty()) {
    PutVarint32(&region, static_cast<uint32_t>(tombstones_.size()));
    DocId prev = 0;
    for (DocId d : tombstones_) {
      PutVarint32(&region, d - prev);
      prev = d;
    }
  }
  bin_.tombstones_offset = file_->offset();
  bin_.tombstones_len = region.size();
  DPS_RETURN_IF_ERROR(Append(region));

  EncodeBinInfo(bin_, &directory_);
  ++bins_;
  in_bin_ = false;
  return Status::OK();
}

Status TabletWriter::Finish() {
  if (in_bin_) DPS_RETURN_IF_ERROR(FinishBin());
  std::string dir;
  PutFixed32(&dir, bins_);
  PutFixed32(&dir, 0);  // reserved
  dir += directory_;
  const uint64_t dir_offset = file_->offset();
  DPS_RETURN_IF_ERROR(Append(dir));
  DPS_RETURN_IF_ERROR(term_list_->Finish());
  return file_->Finish(dir_offset, dir.size(), kTabletFormatVersion);
}

}  // namespace dps
