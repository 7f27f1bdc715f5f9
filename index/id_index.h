// The id index of one bin in one tablet file: which docids have an external
// id that hashes like a given one (replace and delete find the old copy of
// a document through it; the doc store confirms each candidate, so a false
// candidate costs a read, never a wrong answer).
//
// Entries are bucketed by the hash's top bits (about 8 to 16 per bucket); an
// entry keeps the next 16 hash bits and the docid's offset from the bin's
// smallest docid, bit-packed: about 4 bytes per document where a plain
// (hash, docid) pair takes 8. Layout: docs/FORMAT.md ("Id index").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "index/types.h"

namespace dps {

// Appends the id index of `entries` (IdHash32 of the external id, docid),
// whose docids lie in [min_docid, max_docid]. Reorders `entries`. Nothing
// is appended for no entries.
void EncodeIdIndex(std::vector<std::pair<uint32_t, DocId>>* entries, DocId min_docid,
                   DocId max_docid, std::string* out);

// The region length EncodeIdIndex writes for `num_docs` entries, given its
// first byte (bucket bits) and third (offset bits); 0 for no entries.
uint64_t IdIndexSize(uint64_t num_docs, int bucket_bits, int offset_bits);

// Reads an id index region of `num_docs` entries. Checks the header and
// length on Open and each bucket's bounds when it is searched.
class IdIndexReader {
 public:
  Status Open(std::string_view region, uint32_t num_docs, DocId min_docid);
  // Appends the docids whose entry matches `hash` (an IdHash32).
  Status Find(uint32_t hash, std::vector<DocId>* docids) const;

 private:
  const uint8_t* data_ = nullptr;
  uint32_t num_docs_ = 0;
  DocId min_docid_ = 0;
  int bucket_bits_ = 0, rest_bits_ = 0, offset_bits_ = 0;
};

}  // namespace dps
