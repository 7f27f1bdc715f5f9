// Where one list's postings at a batch of documents are, as
// PostingCursor::PositionsAt gives them: each posting's doc block, the
// weights of the block's earlier postings summed (where its positions
// start among the block's values) and its own weight. The AND kernel
// records them while its cursors stand on its matches
// (LeapfrogCollectSpots), so that a phrase check on those matches reads
// its words' positions without opening and walking their lists again.
#pragma once

#include <cstdint>
#include <vector>

namespace dps {

struct PostingSpots {
  std::vector<uint32_t> blocks;
  std::vector<uint64_t> in_blocks;
  std::vector<uint32_t> tfs;

  void clear() {
    blocks.clear();
    in_blocks.clear();
    tfs.clear();
  }
  void push_back(uint32_t block, uint64_t in_block, uint32_t tf) {
    blocks.push_back(block);
    in_blocks.push_back(in_block);
    tfs.push_back(tf);
  }
  size_t size() const { return tfs.size(); }
};

}  // namespace dps
