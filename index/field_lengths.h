// Field lengths (issue 19, "Fields"): BM25 scores a field's term with the
// document's length in that field (Lucene's per-field norms, exact here as
// the default field's are), so each tablet file keeps, per bin, one length
// column per field of the index (title first, then the declared fields),
// beside the default field's (index/doc_lengths.h). Layout
// (docs/FORMAT.md "Field lengths"), for docids min..max of the bin record:
//
//   field_count (u32) | column offsets (u32 x field_count) | columns
//   column = score_avgdl (u32) | docs (u32) | a document lengths region
//
// Column offsets count from the region's start; a column ends where the
// next begins (the last at the region's end). `docs` is the number of the
// column's documents with a length above 0 (the field's document count in
// BM25, as Lucene's docCount); score_avgdl the reference avgdl of the
// field's block scores (index/block_impacts.h): the mean of those lengths in
// 1/256ths of a token, at least 1, and 0 iff docs is 0.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/doc_lengths.h"
#include "index/types.h"

namespace dps {

struct FieldLengthColumn {
  uint32_t score_avgdl = 0;
  uint32_t docs = 0;
  DocLengthsReader lengths;
};

// The reference avgdl units of a column's lengths (0 when all are 0): of
// `docs` lengths above 0 adding up to `tokens`, or of a column's lengths.
uint32_t FieldScoreAvgdlUnits(uint64_t docs, uint64_t tokens);
uint32_t FieldScoreAvgdlUnits(const std::vector<uint32_t>& lengths);

// Appends the region for `columns` (each the lengths of docids min_docid,
// min_docid + 1, ..., all of one size).
void EncodeFieldLengths(const std::vector<std::vector<uint32_t>>& columns, std::string* out);

// Checks the whole region (layout, each column as DocLengthsReader::Open
// does, docs and score_avgdl against the lengths); `where` names the file
// and offset in errors.
Status OpenFieldLengths(std::string_view region, DocId min_docid, DocId max_docid, const std::string& where,
                        std::vector<FieldLengthColumn>* out);

}  // namespace dps
