#include "index/check.h"

#include <tuple>

#include <map>

#include "index/block_impacts.h"
#include "index/doc_lengths.h"
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
      if (file->positions() != index->manifest().positions) {
        return Status::Corruption(file->path() + ": word positions " + (file->positions() ? "present" : "absent") +
                                  " in an index " + (index->manifest().positions ? "with" : "without") + " them");
      }
      ++report->files;
      report->bytes += file->file_size();
      report->pages += file->file().page_count();
      for (size_t i = 0; i < file->bin_count(); ++i) {
        // ReadAll decodes every id column value too (absent slots 0 or
        // empty) and checks the column holds exactly the meta frames' docids.
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
    EntryCursor cursor(index->global(), &tablet);
    for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next()) ++report->entries;
    DPS_RETURN_IF_ERROR(cursor.status());
  }
  if (const GlobalIndexReader* global = index->global()) {
    // Every ref must open a list of exactly its df postings, and the refs of
    // each (file, bin) must add up to the terms and postings its directory
    // records: then the tablet files hold no list the global index misses.
    std::map<std::pair<const TabletReader*, uint32_t>, std::pair<uint64_t, uint64_t>> seen;
    // Each document's weights summed over its postings of a length column
    // (the default field, or a field: index/field_key.h): its length there
    // must be that.
    const FieldSet& fields = index->manifest().fields;
    std::map<std::tuple<const TabletReader*, uint32_t, size_t>, DocLengthCounter> lengths;
    TermDictCursor cursor(&global->dict());
    GlobalTermInfo info;
    PostingCursor list;
    PostingPositions positions;
    std::vector<uint32_t> at, weights;
    for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next()) {
      DPS_RETURN_IF_ERROR(global->ParseValue(cursor.value(), &info));
      for (const TermRef& r : info.refs) {
        auto bad = [&](const std::string& what) {
          return Status::Corruption(global->path() + ": term '" + std::string(cursor.key()) +
                                    "' bin " + std::to_string(r.bin) + ": " + what);
        };
        if (r.bin >= index->bins()) return bad("no such bin");
        const TabletReader* file;
        PostingRef ref;
        DPS_RETURN_IF_ERROR(index->TabletOf(BinId{r.bin}).ResolveRef(r, &file, &ref));
        DPS_RETURN_IF_ERROR(file->OpenCursor(ref, &list));
        if (global->positions() != file->positions()) return bad("positions in the global index and the file disagree");
        if (file->positions()) DPS_RETURN_IF_ERROR(file->OpenPositions(ref, &positions));
        uint64_t n = 0;
        weights.clear();
        const int key_column = fields.ColumnOf(cursor.key());
        if (key_column < 0) return bad("the term names no field of the index (" + fields.List() + ")");
        const size_t column = static_cast<size_t>(key_column);
        const bool gapless = column == 0 || fields.names()[column - 1] == kTitleField;
        DocLengthCounter& counter = lengths[{file, r.bin, column}];
        // Each block's impacts are recomputed from its postings and the
        // lengths region (itself checked against the postings below).
        const int bin_at = file->FindBin(BinId{r.bin});
        const BinInfo* bin_info = bin_at < 0 ? nullptr : &file->bin(static_cast<size_t>(bin_at));
        // The block scores' reference avgdl: the bin record's for the
        // default field, the field's column's for a field.
        uint32_t score_avgdl = 0;
        if (bin_info != nullptr) {
          score_avgdl = column == 0 || bin_info->num_docs == 0
                            ? bin_info->score_avgdl
                            : file->field_columns(static_cast<size_t>(bin_at))[column - 1].score_avgdl;
        }
        uint32_t tfs[kMaxBlockPostings], dls[kMaxBlockPostings];
        size_t in_block = 0, block = 0;
        auto check_block = [&]() -> Status {
          Impact got;
          if (!list.ReadCorner(block, &got)) {
            return list.status().ok() ? bad("no impacts for block " + std::to_string(block)) : list.status();
          }
          if (got != BlockCorner(tfs, dls, in_block) ||
              list.block_score(block) != BlockScore(tfs, dls, in_block, ScoreAvgdl(score_avgdl))) {
            return bad("block " + std::to_string(block) + "'s impacts disagree with its postings and lengths");
          }
          in_block = 0;
          ++block;
          return Status::OK();
        };
        for (DocId d = list.doc(); d != kEndDoc; d = list.Next()) {
          ++n;
          counter.Add(d, list.weight());
          if (file->positions()) {
            weights.push_back(list.weight());
            // Each posting's positions (as many as its weight, ascending:
            // the reader checks both) lie inside its document.
            uint32_t block = 0, tf = 0;
            uint64_t in_block = 0;
            if (!list.PositionsAt(&block, &in_block, &tf)) return list.status();
            at.resize(tf);
            DPS_RETURN_IF_ERROR(positions.Get(block, in_block, tf, at.data()));
            const uint32_t dl = bin_info == nullptr || bin_info->num_docs == 0 || d < bin_info->min_docid ||
                                        d > bin_info->max_docid
                                    ? 0
                                    : file->lengths(static_cast<size_t>(bin_at), column).Get(d);
            // A declared field's values are apart by a gap of positions:
            // only the default field and a title field have none.
            if (gapless && at.back() >= dl) {
              return bad("docid " + std::to_string(d) + " has position " + std::to_string(at.back()) +
                         ", its length is " + std::to_string(dl));
            }
          }
          if (!list.has_impacts()) continue;
          if (bin_info == nullptr || bin_info->num_docs == 0 || d < bin_info->min_docid || d > bin_info->max_docid) {
            return bad("posting of docid " + std::to_string(d) + " outside the file's documents");
          }
          tfs[in_block] = list.weight();
          dls[in_block] = file->lengths(static_cast<size_t>(bin_at), column).Get(d);
          if (++in_block == kMaxBlockPostings) DPS_RETURN_IF_ERROR(check_block());
        }
        DPS_RETURN_IF_ERROR(list.status());
        if (file->positions()) DPS_RETURN_IF_ERROR(positions.CheckWhole(weights));
        if (in_block > 0) DPS_RETURN_IF_ERROR(check_block());
        if (list.has_impacts() && list.num_blocks() > 1) {
          uint32_t best = 0;
          for (size_t k = 0; k < list.num_blocks(); ++k) best = std::max(best, list.block_score(k));
          if (r.max_score != best) {
            return bad("max score " + std::to_string(r.max_score) + ", the list's blocks say " + std::to_string(best));
          }
        }
        if (n != r.df) return bad("list of " + std::to_string(n) + " postings, df says " + std::to_string(r.df));
        auto& [terms, postings] = seen[{file, r.bin}];
        ++terms;
        postings += n;
      }
      ++report->terms;
    }
    DPS_RETURN_IF_ERROR(cursor.status());
    for (size_t t = 0; t < index->tablet_count(); ++t) {
      for (const auto& file : index->tablet(t).files()) {
        for (size_t i = 0; i < file->bin_count(); ++i) {
          const BinInfo& b = file->bin(i);
          const auto it = seen.find({file.get(), b.bin});
          const auto got = it == seen.end() ? std::pair<uint64_t, uint64_t>{0, 0} : it->second;
          for (size_t column = 0; b.num_docs > 0 && column < fields.columns(); ++column) {
            const auto counted = lengths.find({file.get(), b.bin, column});
            const DocLengthsReader& stored = file->lengths(i, column);
            for (uint64_t d = b.min_docid; d <= b.max_docid; ++d) {
              const uint32_t want = counted == lengths.end() ? 0 : counted->second.Get(static_cast<DocId>(d));
              if (stored.Get(static_cast<DocId>(d)) != want) {
                return Status::Corruption(file->path() + " bin " + std::to_string(b.bin) + ": document " +
                                          std::to_string(d) + " has length " +
                                          std::to_string(stored.Get(static_cast<DocId>(d))) +
                                          (column == 0 ? "" : " in field " + fields.names()[column - 1]) +
                                          ", its postings' weights add up to " + std::to_string(want));
              }
            }
          }
          if (got.first != b.num_terms || got.second != b.num_postings) {
            return Status::Corruption(global->path() + ": refs to " + file->path() + " bin " +
                                      std::to_string(b.bin) + " cover " + std::to_string(got.first) +
                                      " terms / " + std::to_string(got.second) +
                                      " postings, its directory says " + std::to_string(b.num_terms) +
                                      " / " + std::to_string(b.num_postings));
          }
        }
      }
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
