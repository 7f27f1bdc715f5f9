#include "index/field_lengths.h"

#include <cstring>

#include "common/coding.h"
#include "index/block_impacts.h"

namespace dps {

namespace {

void Counts(const std::vector<uint32_t>& lengths, uint64_t* docs, uint64_t* tokens) {
  *docs = *tokens = 0;
  for (uint32_t l : lengths) {
    *docs += l != 0;
    *tokens += l;
  }
}

}  // namespace

uint32_t FieldScoreAvgdlUnits(uint64_t docs, uint64_t tokens) {
  return docs == 0 ? 0 : ScoreAvgdlUnits(static_cast<double>(tokens) / static_cast<double>(docs));
}

uint32_t FieldScoreAvgdlUnits(const std::vector<uint32_t>& lengths) {
  uint64_t docs, tokens;
  Counts(lengths, &docs, &tokens);
  return FieldScoreAvgdlUnits(docs, tokens);
}

void EncodeFieldLengths(const std::vector<std::vector<uint32_t>>& columns, std::string* out) {
  const size_t start = out->size();
  PutFixed32(out, static_cast<uint32_t>(columns.size()));
  const size_t table = out->size();
  out->append(4 * columns.size(), '\0');
  for (size_t c = 0; c < columns.size(); ++c) {
    const uint32_t at = static_cast<uint32_t>(out->size() - start);
    std::memcpy(out->data() + table + 4 * c, &at, 4);  // little-endian hosts (coding.h)
    uint64_t docs, tokens;
    Counts(columns[c], &docs, &tokens);
    PutFixed32(out, FieldScoreAvgdlUnits(docs, tokens));
    PutFixed32(out, static_cast<uint32_t>(docs));
    EncodeDocLengths(columns[c], out);
  }
}

Status OpenFieldLengths(std::string_view region, DocId min_docid, DocId max_docid, const std::string& where,
                        std::vector<FieldLengthColumn>* out) {
  auto bad = [&](const std::string& what) { return Status::Corruption(where + ": field lengths: " + what); };
  out->clear();
  if (region.size() < 4) return bad("region too short");
  const auto* p = reinterpret_cast<const uint8_t*>(region.data());
  const uint32_t count = DecodeFixed32(p);
  if (count > (region.size() - 4) / 4) return bad("field count " + std::to_string(count));
  if (count == 0 && region.size() != 4) return bad("bytes after a count of 0");
  out->resize(count);
  uint64_t expect = 4 + uint64_t{4} * count;  // the first column right after the table
  for (uint32_t c = 0; c < count; ++c) {
    const uint64_t at = DecodeFixed32(p + 4 + 4 * c);
    const uint64_t end = c + 1 < count ? DecodeFixed32(p + 8 + 4 * c) : region.size();
    if (at != expect || end < at + 8 || end > region.size()) return bad("column " + std::to_string(c) + " offset");
    FieldLengthColumn& column = (*out)[c];
    column.score_avgdl = DecodeFixed32(p + at);
    column.docs = DecodeFixed32(p + at + 4);
    const std::string col_where = where + " column " + std::to_string(c);
    DPS_RETURN_IF_ERROR(column.lengths.Open(region.substr(at + 8, end - at - 8), min_docid, max_docid, col_where));
    uint64_t docs = 0;
    for (uint64_t d = min_docid; d <= max_docid; ++d) docs += column.lengths.Get(static_cast<DocId>(d)) != 0;
    if (docs != column.docs || FieldScoreAvgdlUnits(docs, column.lengths.total_tokens()) != column.score_avgdl) {
      return bad("column " + std::to_string(c) + ": docs or score_avgdl disagree with its lengths");
    }
    expect = end;
  }
  return Status::OK();
}

}  // namespace dps
