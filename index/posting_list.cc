#include "index/posting_list.h"

#include <algorithm>

#include "common/coding.h"

namespace dps {

void EncodePostingList(std::span<const DocId> docs, std::span<const uint32_t> weights,
                       std::string* out, PostingSizes* sizes) {
  const size_t n = docs.size();
  const size_t blocks = (n + kBlockSize - 1) / kBlockSize;
  std::string doc_bytes, weight_bytes, skip;
  uint32_t prev = UINT32_MAX;
  for (size_t b = 0; b < blocks; ++b) {
    const size_t begin = b * kBlockSize;
    const size_t len = std::min(kBlockSize, n - begin);
    EncodeDocBlock(docs.data() + begin, len, prev, &doc_bytes);
    EncodeWeightBlock(weights.data() + begin, len, &weight_bytes);
    prev = docs[begin + len - 1];
    PutFixed32(&skip, prev);
    PutFixed32(&skip, static_cast<uint32_t>(doc_bytes.size()));
    PutFixed32(&skip, static_cast<uint32_t>(weight_bytes.size()));
  }
  if (sizes != nullptr) {
    ++sizes->lists;
    sizes->postings += n;
    sizes->doc_bytes += doc_bytes.size();
    sizes->weight_bytes += weight_bytes.size();
    sizes->skip_bytes += blocks > 1 ? skip.size() : 0;
  }
  if (blocks > 1) out->append(skip);
  out->append(doc_bytes);
  out->append(weight_bytes);
}

DocId PostingCursor::Fail(const char* what, size_t block) {
  status_ = Status::Corruption((file_ ? *file_ : std::string("?")) + ": posting list at offset " +
                               std::to_string(file_offset_) + ": block " + std::to_string(block) +
                               ": " + what);
  block_ = num_blocks_;
  block_len_ = 0;
  pos_ = 0;
  docs_[0] = kEndDoc;
  return kEndDoc;
}

Status PostingCursor::Init(const uint8_t* data, size_t len, uint32_t df, const std::string* file,
                           uint64_t file_offset) {
  status_ = Status::OK();
  file_ = file;
  file_offset_ = file_offset;
  df_ = df;
  data_ = data;
  end_ = data + len;
  num_blocks_ = static_cast<uint32_t>((uint64_t{df} + kBlockSize - 1) / kBlockSize);
  if (df == 0) {
    Fail("empty list", 0);
    return status_;
  }
  if (num_blocks_ > 1) {
    if (len / kSkipEntrySize < num_blocks_) {
      Fail("skip table runs past the list", 0);
      return status_;
    }
    docs_at_ = data + num_blocks_ * kSkipEntrySize;
    const uint32_t docs_len = DecodeFixed32(data + (num_blocks_ - 1) * kSkipEntrySize + 4);
    if (docs_len > static_cast<size_t>(end_ - docs_at_)) {
      Fail("doc blocks run past the list", 0);
      return status_;
    }
    weights_at_ = docs_at_ + docs_len;
  } else {
    docs_at_ = data;
    weights_at_ = nullptr;  // known after decoding the single doc block
  }
  LoadBlock(0);
  return status_;
}

void PostingCursor::InitSingleton(DocId doc, uint32_t weight) {
  status_ = Status::OK();
  df_ = 1;
  num_blocks_ = 1;
  block_ = 0;
  block_len_ = 1;
  pos_ = 0;
  docs_[0] = doc;
  docs_[1] = kEndDoc;
  weights_[0] = weight;
  weights_loaded_ = true;
  data_ = nullptr;
}

uint32_t PostingCursor::SkipLastDoc(size_t b) const {
  return DecodeFixed32(data_ + b * kSkipEntrySize);
}

DocId PostingCursor::LoadBlock(size_t b) {
  block_ = static_cast<uint32_t>(b);
  pos_ = 0;
  weights_loaded_ = false;
  if (b >= num_blocks_) {
    block_len_ = 0;
    docs_[0] = kEndDoc;
    return kEndDoc;
  }
  const size_t n = std::min<size_t>(kBlockSize, df_ - b * kBlockSize);
  const uint8_t* begin = docs_at_;
  const uint8_t* end = end_;
  uint32_t prev = UINT32_MAX;
  if (num_blocks_ > 1) {
    if (b > 0) {
      begin = docs_at_ + DecodeFixed32(data_ + (b - 1) * kSkipEntrySize + 4);
      prev = SkipLastDoc(b - 1);
    }
    end = docs_at_ + DecodeFixed32(data_ + b * kSkipEntrySize + 4);
    if (end > weights_at_ || begin > end) return Fail("bad doc block offsets", b);
  }
  const uint8_t* after = DecodeDocBlock(begin, end, n, prev, docs_);
  if (after == nullptr) return Fail("malformed doc block", b);
  if (num_blocks_ == 1) {
    weights_at_ = after;
  } else if (after != end || docs_[n - 1] != SkipLastDoc(b)) {
    return Fail("doc block disagrees with skip table", b);
  }
  if (docs_[n - 1] > kMaxDocId || (b > 0 && docs_[0] <= prev)) {
    return Fail("docids out of order", b);
  }
  block_len_ = static_cast<uint32_t>(n);
  docs_[n] = kEndDoc;
  return docs_[0];
}

DocId PostingCursor::NextBlock() {
  if (block_ >= num_blocks_) {
    pos_ = block_len_;
    return kEndDoc;
  }
  return LoadBlock(block_ + 1);
}

DocId PostingCursor::SeekSlow(DocId target) {
  // target lies beyond the decoded block. Find the first later block whose
  // last docid >= target: gallop, then binary search, so sequential seeks
  // stay cheap and far ones cost O(log blocks).
  if (block_ >= num_blocks_) return kEndDoc;
  if (num_blocks_ == 1) return LoadBlock(1);
  size_t lo = block_ + 1, step = 1, hi = lo;
  while (hi < num_blocks_ && SkipLastDoc(hi) < target) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = std::min<size_t>(hi, num_blocks_);
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (SkipLastDoc(mid) < target) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (LoadBlock(lo) == kEndDoc) return kEndDoc;
  pos_ = static_cast<uint32_t>(LowerBoundInBlock(docs_, block_len_, target));
  return docs_[pos_];
}

uint32_t PostingCursor::weight() {
  if (!weights_loaded_) {
    const size_t n = block_len_;
    const uint8_t* begin = weights_at_;
    const uint8_t* end = end_;
    if (num_blocks_ > 1) {
      if (block_ > 0) begin = weights_at_ + DecodeFixed32(data_ + (block_ - 1) * kSkipEntrySize + 8);
      end = weights_at_ + DecodeFixed32(data_ + block_ * kSkipEntrySize + 8);
      if (end > end_ || begin > end) {
        Fail("bad weight block offsets", block_);
        return 0;
      }
    }
    if (DecodeWeightBlock(begin, end, n, weights_) == nullptr) {
      Fail("malformed weight block", block_);
      return 0;
    }
    weights_loaded_ = true;
  }
  return weights_[pos_];
}

}  // namespace dps
