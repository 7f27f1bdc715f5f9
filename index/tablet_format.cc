#include "index/tablet_format.h"

#include "common/coding.h"

namespace dps {

void EncodeBinInfo(const BinInfo& b, std::string* out) {
  for (uint32_t v : {b.bin, b.num_docs, b.num_terms, b.min_docid, b.max_docid, b.score_avgdl}) {
    PutFixed32(out, v);
  }
  for (uint64_t v : {b.num_postings, b.postings_offset, b.postings_len, b.ids_offset, b.ids_len,
                     b.docs_offset, b.docs_len, b.lengths_offset, b.lengths_len, b.tombstones_offset,
                     b.tombstones_len, b.positions_offset, b.positions_len, b.field_lengths_offset,
                     b.field_lengths_len}) {
    PutFixed64(out, v);
  }
}

BinInfo DecodeBinInfo(const uint8_t* p) {
  BinInfo b;
  uint32_t* u32[] = {&b.bin, &b.num_docs, &b.num_terms, &b.min_docid, &b.max_docid, &b.score_avgdl};
  for (uint32_t* v : u32) {
    *v = DecodeFixed32(p);
    p += 4;
  }
  uint64_t* u64[] = {&b.num_postings, &b.postings_offset, &b.postings_len, &b.ids_offset,
                     &b.ids_len, &b.docs_offset, &b.docs_len, &b.lengths_offset, &b.lengths_len,
                     &b.tombstones_offset, &b.tombstones_len, &b.positions_offset, &b.positions_len,
                     &b.field_lengths_offset, &b.field_lengths_len};
  for (uint64_t* v : u64) {
    *v = DecodeFixed64(p);
    p += 8;
  }
  return b;
}

}  // namespace dps
