#include "index/index_reader.h"

namespace dps {

Result<std::unique_ptr<IndexReader>> IndexReader::Open(const std::string& dir) {
  std::unique_ptr<IndexReader> r(new IndexReader());
  r->dir_ = dir;
  DPS_ASSIGN_OR_RETURN(r->manifest_, ReadManifest(dir));
  for (const auto& entry : r->manifest_.tablets) {
    DPS_ASSIGN_OR_RETURN(auto tablet, Tablet::Open(dir, entry));
    r->tablets_.push_back(std::move(tablet));
  }
  if (!r->manifest_.global_index.empty()) {
    DPS_ASSIGN_OR_RETURN(r->global_,
                         GlobalIndexReader::Open(dir + "/" + r->manifest_.global_index));
  }
  return r;
}

}  // namespace dps
