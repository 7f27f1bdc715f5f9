#include "index/posting_list.h"

#include <algorithm>
#include <vector>

#include "common/coding.h"
#include "index/block_impacts.h"
#include "index/inline_postings.h"

namespace dps {

namespace {

// Narrow parts when every block's part lasts lie within 65,535 docids of its
// last docid (a 128-posting block spanning fewer than 65,536 docids: every
// list dense enough to be long), so a part costs 2 bytes, not 4. Short
// last_doc, doc_end and weight mark columns when their largest (the last)
// values fit 16 bits: last_doc in every list of a bin below 65,536
// documents (gcide: 84 KB), the marks in every list whose weights before
// its last block take fewer than 65,536 bytes.
uint8_t ChooseSkipLayout(std::span<const uint32_t> last_doc, std::span<const uint32_t> part_last,
                         std::span<const uint32_t> doc_end, uint32_t last_mark) {
  uint8_t layout = kSkipNarrowParts;
  for (size_t b = 0; b < last_doc.size(); ++b) {
    if (last_doc[b] - part_last[3 * b] > UINT16_MAX) layout = 0;
  }
  if (last_doc.back() <= UINT16_MAX) layout |= kSkipShortLast;
  if (doc_end.back() <= UINT16_MAX) layout |= kSkipShortEnds;
  if (last_mark <= UINT16_MAX) layout |= kSkipShortMarks;
  return layout;
}

void PutColumn(std::string* out, uint32_t v, bool short_column) {
  if (short_column) {
    PutFixed16(out, static_cast<uint16_t>(v));
  } else {
    PutFixed32(out, v);
  }
}

}  // namespace

size_t SkipTableSize(size_t blocks, uint8_t layout) {
  if (blocks < 2) return 0;
  const size_t row = (layout & kSkipShortLast ? 2 : 4) + (layout & kSkipNarrowParts ? 6 : 12) +
                     (layout & kSkipShortEnds ? 2 : 4);
  return 1 + blocks * row + (layout & kSkipShortMarks ? 2 : 4) * WeightMarks(blocks);
}

uint32_t EncodePostingList(std::span<const DocId> docs, std::span<const uint32_t> weights,
                       std::span<const uint32_t> lengths, double score_avgdl, std::string* out,
                       PostingSizes* sizes) {
  const size_t n = docs.size();
  const size_t blocks = (n + kBlockSize - 1) / kBlockSize;
  std::string doc_bytes, weight_bytes, score_bytes, corner_bytes;
  std::vector<uint32_t> last_doc(blocks), part_last(3 * blocks), doc_end(blocks), weight_start;
  uint32_t prev = UINT32_MAX, max_score = 0;
  for (size_t b = 0; b < blocks; ++b) {
    const size_t begin = b * kBlockSize;
    const size_t len = std::min(kBlockSize, n - begin);
    EncodeDocBlock(docs.data() + begin, len, prev, &doc_bytes);
    weight_start.push_back(static_cast<uint32_t>(weight_bytes.size()));
    EncodeWeightBlock(weights.data() + begin, len, &weight_bytes);
    const uint16_t score = BlockScore(weights.data() + begin, lengths.data() + begin, len, score_avgdl);
    max_score = std::max<uint32_t>(max_score, score);
    PutFixed16(&score_bytes, score);
    EncodeCorner(BlockCorner(weights.data() + begin, lengths.data() + begin, len), &corner_bytes);
    prev = docs[begin + len - 1];
    last_doc[b] = prev;
    for (size_t part = 0; part + 1 < kBlockParts; ++part) {
      part_last[3 * b + part] = docs[begin + std::min(len, (part + 1) * kBlockPartSize) - 1];
    }
    doc_end[b] = static_cast<uint32_t>(doc_bytes.size());
  }
  const uint8_t layout = ChooseSkipLayout(last_doc, part_last, doc_end, weight_start.back());
  if (blocks > 1) {
    out->push_back(static_cast<char>(layout));
    for (uint32_t v : last_doc) PutColumn(out, v, layout & kSkipShortLast);
    for (size_t i = 0; i < part_last.size(); ++i) {
      if (layout & kSkipNarrowParts) {
        PutFixed16(out, static_cast<uint16_t>(last_doc[i / 3] - part_last[i]));
      } else {
        PutFixed32(out, part_last[i]);
      }
    }
    for (uint32_t v : doc_end) PutColumn(out, v, layout & kSkipShortEnds);
    for (size_t j = 1; j <= WeightMarks(blocks); ++j) PutColumn(out, weight_start[j], layout & kSkipShortMarks);
    PutVarint32(out, static_cast<uint32_t>(score_bytes.size() + corner_bytes.size()));
  }
  out->append(score_bytes);
  out->append(corner_bytes);
  const size_t impact_bytes = score_bytes.size() + corner_bytes.size();
  if (sizes != nullptr) {
    ++sizes->lists;
    sizes->postings += n;
    sizes->doc_bytes += doc_bytes.size();
    sizes->weight_bytes += weight_bytes.size();
    sizes->skip_bytes += SkipTableSize(blocks, layout);
    sizes->impact_bytes += impact_bytes + (blocks > 1 ? VarintLength(impact_bytes) : 0);
  }
  out->append(doc_bytes);
  out->append(weight_bytes);
  return max_score;
}

DocId PostingCursor::Fail(const char* what, size_t block) {
  status_ = Status::Corruption((file_ ? *file_ : std::string("?")) + ": posting list at offset " +
                               std::to_string(file_offset_) + ": block " + std::to_string(block) +
                               ": " + what);
  block_ = num_blocks_;
  // block_size_ too: a block_len_ below it is a partly decoded block, whose
  // next part Next() would decode (through a skip table a one-block list
  // does not have).
  block_len_ = block_size_ = 0;
  pos_ = 0;
  docs_[0] = kEndDoc;
  return kEndDoc;
}

Status PostingCursor::Init(const uint8_t* data, size_t len, uint32_t df, const std::string* file,
                           uint64_t file_offset) {
  if (Setup(data, len, df, file, file_offset)) LoadBlock(0);
  return status_;
}

Status PostingCursor::InitAt(const uint8_t* data, size_t len, uint32_t df, const std::string* file,
                             uint64_t file_offset, DocId target) {
  if (!Setup(data, len, df, file, file_offset)) return status_;
  // A target in the first block (or a list of one, which has no skip
  // table to find a part with): the block decoded whole, as Init does; a
  // dense conjunction reads it all, and part by part costs more.
  if (num_blocks_ == 1 || target <= SkipLastDoc(0)) {
    LoadBlock(0);
  } else {
    LoadBlockFor(BlockFor(target, 1), target);
  }
  return status_;
}

bool PostingCursor::Setup(const uint8_t* data, size_t len, uint32_t df, const std::string* file,
                          uint64_t file_offset) {
  status_ = Status::OK();
  file_ = file;
  file_offset_ = file_offset;
  guess_scale_ = -1;
  hint_count_ = hint_next_ = 0;
  alone_block_ = UINT32_MAX;
  df_ = df;
  data_ = data;
  end_ = data + len;
  num_blocks_ = static_cast<uint32_t>((uint64_t{df} + kBlockSize - 1) / kBlockSize);
  if (df == 0) {
    Fail("empty list", 0);
    return false;
  }
  if (num_blocks_ > 1) {
    if (len < 1 || (data[0] & ~kSkipKnownFlags) != 0) {
      Fail("unknown skip table layout", 0);
      return false;
    }
    const uint8_t layout = data[0];
    narrow_ = layout & kSkipNarrowParts;
    last_width_ = layout & kSkipShortLast ? 2 : 4;
    last_mask_ = layout & kSkipShortLast ? UINT16_MAX : UINT32_MAX;
    end_width_ = layout & kSkipShortEnds ? 2 : 4;
    end_mask_ = layout & kSkipShortEnds ? UINT16_MAX : UINT32_MAX;
    mark_width_ = layout & kSkipShortMarks ? 2 : 4;
    mark_mask_ = layout & kSkipShortMarks ? UINT16_MAX : UINT32_MAX;
    const size_t table = SkipTableSize(num_blocks_, layout);
    // + 2: a short column's last 4-byte load reads 2 bytes past it; every
    // doc block takes at least a byte, so a sound list has them.
    if (len < table + 2) {
      Fail("skip table runs past the list", 0);
      return false;
    }
    parts_at_ = data + 1 + last_width_ * size_t{num_blocks_};
    ends_at_ = parts_at_ + (narrow_ ? 6 : 12) * size_t{num_blocks_};
    marks_at_ = ends_at_ + end_width_ * size_t{num_blocks_};
    uint32_t impacts_len;
    scores_at_ = GetVarint32(data + table, end_, &impacts_len);
    if (scores_at_ == nullptr || impacts_len > static_cast<size_t>(end_ - scores_at_) || impacts_len < 2 * size_t{num_blocks_}) {
      Fail("block impacts run past the list", 0);
      return false;
    }
    corners_at_ = scores_at_ + 2 * size_t{num_blocks_};
    docs_at_ = scores_at_ + impacts_len;
    const uint32_t docs_len = DocEnd(num_blocks_ - 1);
    if (docs_len > static_cast<size_t>(end_ - docs_at_)) {
      Fail("doc blocks run past the list", 0);
      return false;
    }
    weights_at_ = docs_at_ + docs_len;
  } else {
    scores_at_ = data;
    corners_at_ = data + 2;
    docs_at_ = len < 2 ? nullptr : DecodeCorner(corners_at_, end_, &first_corner_);
    if (docs_at_ == nullptr) {
      Fail("malformed block impacts", 0);
      return false;
    }
    weights_at_ = nullptr;  // known after decoding the single doc block
  }
  weight_block_ = 0;
  weight_next_ = weights_at_;
  corner_block_ = 0;
  corner_next_ = corners_at_;
  return true;
}

void PostingCursor::InitSingleton(DocId doc, uint32_t weight) {
  status_ = Status::OK();
  df_ = 1;
  num_blocks_ = 1;
  block_ = 0;
  block_len_ = block_size_ = 1;
  pos_ = 0;
  docs_[0] = doc;
  docs_[1] = kEndDoc;
  weights_[0] = weight;
  weights_loaded_ = true;
  summed_ = 0;
  sum_ = 0;
  data_ = nullptr;
}

Status PostingCursor::InitInline(std::string_view payload, uint32_t df, bool has_weights) {
  InitSingleton(kEndDoc, 0);
  file_ = nullptr;  // errors name no file: the bytes are the dictionary's
  file_offset_ = 0;
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  const uint8_t* end = p + payload.size();
  // Refused is nullptr, which an empty view with no data also ends at.
  const uint8_t* parsed =
      df < 2 || df > kMaxInlineDfRead ? nullptr : ParseInlinePostings(p, end, df, has_weights, docs_, weights_);
  if (parsed == nullptr || parsed != end) {
    Fail("malformed inline postings", 0);
    return status_;
  }
  static_assert(kMaxInlineDfRead <= kBlockSize, "inline lists fill one cursor block");
  df_ = df;
  block_len_ = block_size_ = df;
  docs_[df] = kEndDoc;
  return status_;
}

DocId PostingCursor::last_doc() const {
  if (!status_.ok() || df_ == 0) return kEndDoc;
  if (data_ == nullptr) return docs_[df_ - 1];  // inline
  if (num_blocks_ > 1) return SkipLastDoc(num_blocks_ - 1);
  return block_ == 0 && block_len_ == df_ ? docs_[df_ - 1] : kEndDoc;
}

DocId PostingCursor::block_last(size_t b) const {
  if (data_ == nullptr || num_blocks_ == 1) return last_doc();
  return SkipLastDoc(b);
}

size_t PostingCursor::GuessBlock(DocId target) const {
  if (guess_scale_ < 0) {
    // The list's first and last block ends, read once: a target's block is
    // guessed as if the list's docids were spread evenly between them.
    guess_first_ = SkipLastDoc(0);
    const uint32_t last = SkipLastDoc(num_blocks_ - 1);
    guess_scale_ = last > guess_first_ ? double(num_blocks_ - 1) / double(last - guess_first_) : 0;
  }
  if (target <= guess_first_) return 0;
  const double g = double(target - guess_first_) * guess_scale_;
  return g >= double(num_blocks_ - 1) ? num_blocks_ - 1 : static_cast<size_t>(g);
}

size_t PostingCursor::BlockFor(DocId target, size_t from) const {
  if (num_blocks_ <= 1 || data_ == nullptr) return from == 0 && target <= last_doc() ? 0 : num_blocks_;
  const size_t n = num_blocks_;
  size_t lo = from;  // every block up to lo ends below target (once past this check)
  if (lo >= n || SkipLastDoc(lo) >= target) return std::min(lo, n);
  // hi: past the end, or a block that ends at or past target. Gallop up
  // from lo: near targets stay in the skip entries just read.
  size_t hi, step = 1;
  for (hi = lo + 1; hi < n && SkipLastDoc(hi) < target; hi = lo + step) {
    lo = hi;
    step *= 2;
    if (step == kNearBlocks) break;  // far
  }
  if (step == kNearBlocks && lo + 1 < n) {
    // Far: go on from the guessed block, up or down, so that a seek reads
    // the skip entries around its block (the ones PrefetchSeeks warms), not
    // a gallop's on the way there.
    const size_t g = std::max(GuessBlock(target), lo + 1);
    if (SkipLastDoc(g) < target) {
      lo = g;
      step = 1;
      for (hi = lo + 1; hi < n && SkipLastDoc(hi) < target; hi = lo + step) {
        lo = hi;
        step *= 2;
      }
    } else {
      hi = g;
      for (step = 1; hi - lo > step; step *= 2) {
        const size_t probe = hi - step;
        if (SkipLastDoc(probe) < target) {
          lo = probe;
          break;
        }
        hi = probe;
      }
    }
  }
  hi = std::min(hi, n);
  // The first block in (lo, hi] that ends at or past target.
  ++lo;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (SkipLastDoc(mid) < target) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

void PostingCursor::PrefetchSeeks(const DocId* targets, size_t count) {
  hint_count_ = hint_next_ = 0;
  if (data_ == nullptr || num_blocks_ < kPrefetchMinBlocks || !status_.ok()) return;
  count = std::min(count, kMaxPrefetchTargets);
  // Three rounds, each one's loads independent of each other: the cache
  // lines of one round's misses are all under way at once, where a seek at
  // a time waits for each (skip entries, then the block's part lasts and
  // ends, then its bytes). Loads of the round before have mostly arrived.
  const uint8_t* last_col = data_ + 1;
  for (size_t i = 0; i < count; ++i) {
    // The entries kNearBlocks either side of the guess: the line holding
    // it and the neighbour the search may step into.
    const size_t g = GuessBlock(targets[i]);
    __builtin_prefetch(last_col + last_width_ * (g >= kNearBlocks ? g - kNearBlocks : 0));
    __builtin_prefetch(last_col + last_width_ * std::min<size_t>(g + kNearBlocks, num_blocks_ - 1));
  }
  uint32_t* blocks = hints_;
  size_t m = 0;
  size_t at = block_;
  for (size_t i = 0; i < count; ++i) {
    if (at < num_blocks_ && SkipLastDoc(at) >= targets[i]) continue;  // in the block before
    at = BlockFor(targets[i], at + 1);
    if (at >= num_blocks_) break;
    blocks[m++] = static_cast<uint32_t>(at);
    __builtin_prefetch(parts_at_ + (narrow_ ? 6 : 12) * at);
    __builtin_prefetch(ends_at_ + end_width_ * (at - 1));
  }
  for (size_t i = 0; i < m; ++i) {
    const size_t b = blocks[i];
    const size_t begin = DocEnd(b - 1), end = DocEnd(b);
    if (end > static_cast<size_t>(weights_at_ - docs_at_)) continue;  // corrupt: the seek will say so
    for (size_t at = begin; at < end && at < begin + 4 * 64; at += 64) __builtin_prefetch(docs_at_ + at);
  }
  hint_count_ = static_cast<uint32_t>(m);
}

size_t PostingCursor::HintedBlockFor(DocId target) {
  const size_t from = block_ + 1;
  while (hint_next_ < hint_count_) {
    const size_t b = hints_[hint_next_];
    if (b < from || SkipLastDoc(b) < target) {  // passed already
      ++hint_next_;
      continue;
    }
    // b ends at or past target, and blocks ascend: b is the first such
    // block from `from` on when the one before it ends below target.
    if (b == from || SkipLastDoc(b - 1) < target) return b;
    break;
  }
  return BlockFor(target, from);
}

bool PostingCursor::ReadCorner(size_t b, Impact* out) {
  if (!status_.ok() || data_ == nullptr || b >= num_blocks_) return false;
  if (num_blocks_ == 1) {
    *out = first_corner_;
    return true;
  }
  if (b < corner_block_) {  // asked backwards: walk again from the first corner
    corner_block_ = 0;
    corner_next_ = corners_at_;
  }
  for (;;) {
    const uint8_t* next = DecodeCorner(corner_next_, docs_at_, out);
    if (next == nullptr || (corner_block_ + 1 == num_blocks_) != (next == docs_at_)) {
      Fail("malformed block impacts", corner_block_);
      return false;
    }
    if (corner_block_ == b) return true;
    corner_next_ = next;
    ++corner_block_;
  }
}

DocId PostingCursor::LoadBlock(size_t b) {
  ++loads_;
  block_ = static_cast<uint32_t>(b);
  pos_ = 0;
  weights_loaded_ = false;
  if (b >= num_blocks_) {
    block_len_ = block_size_ = 0;
    docs_[0] = kEndDoc;
    return kEndDoc;
  }
  const size_t n = BlockPostings(b);
  const uint8_t* begin = docs_at_;
  const uint8_t* end = end_;
  uint32_t prev = UINT32_MAX;
  if (num_blocks_ > 1) {
    if (b > 0) {
      begin = docs_at_ + DocEnd(b - 1);
      prev = SkipLastDoc(b - 1);
    }
    end = docs_at_ + DocEnd(b);
    if (end > weights_at_ || begin > end) return Fail("bad doc block offsets", b);
  }
  const uint8_t* after = DecodeDocBlock(begin, end, n, prev, docs_);
  if (after == nullptr) return Fail("malformed doc block", b);
  if (num_blocks_ == 1) {
    weights_at_ = weight_next_ = after;
  } else if (after != end || docs_[n - 1] != SkipLastDoc(b)) {
    return Fail("doc block disagrees with skip table", b);
  }
  if (docs_[n - 1] > kMaxDocId || (b > 0 && docs_[0] <= prev)) {
    return Fail("docids out of order", b);
  }
  block_len_ = block_size_ = static_cast<uint32_t>(n);
  docs_[n] = kEndDoc;
  return docs_[0];
}

bool PostingCursor::LoadPart(size_t part) {
  ++loads_;
  const size_t b = block_;
  const uint8_t* begin = docs_at_ + (b > 0 ? DocEnd(b - 1) : 0);
  const uint8_t* end = docs_at_ + DocEnd(b);
  const uint32_t prev = part > 0 ? PartLast(b, part - 1) : b > 0 ? SkipLastDoc(b - 1) : UINT32_MAX;
  uint32_t* out = docs_ + part * kBlockPartSize;
  if (end > weights_at_ || begin >= end ||
      DecodeDocBlockPart(begin, end, part, prev, out) != end ||
      out[kBlockPartSize - 1] != PartLast(b, part) || out[kBlockPartSize - 1] > kMaxDocId ||
      (prev != UINT32_MAX && out[0] <= prev)) {
    Fail("malformed doc block", b);
    return false;
  }
  block_len_ = static_cast<uint32_t>((part + 1) * kBlockPartSize);
  docs_[block_len_] = kEndDoc;  // overwritten if a later part is decoded
  return true;
}

DocId PostingCursor::LoadBlockFor(size_t b, DocId target) {
  if (b >= num_blocks_ || num_blocks_ == 1 || BlockPostings(b) < kBlockSize) {
    if (LoadBlock(b) == kEndDoc) return kEndDoc;
    pos_ = static_cast<uint32_t>(LowerBoundInBlock(docs_, block_len_, target));
    return docs_[pos_];
  }
  block_ = static_cast<uint32_t>(b);
  block_size_ = kBlockSize;
  weights_loaded_ = false;
  // Part lasts ascend, so the part holding target is how many are below it.
  const size_t part = (PartLast(b, 0) < target) + (PartLast(b, 1) < target) +
                      (PartLast(b, 2) < target);
  if (!LoadPart(part)) return kEndDoc;
  pos_ = static_cast<uint32_t>(part * kBlockPartSize +
                               LowerBoundInBlock(docs_ + part * kBlockPartSize, kBlockPartSize, target));
  return docs_[pos_];
}

DocId PostingCursor::NextBlock() {
  if (block_len_ < block_size_) {  // the next part of a partly decoded block
    return LoadPart(block_len_ / kBlockPartSize) ? docs_[pos_] : kEndDoc;
  }
  if (block_ >= num_blocks_) {
    pos_ = block_len_;
    return kEndDoc;
  }
  return LoadBlock(block_ + 1);
}

DocId PostingCursor::SeekSlow(DocId target) {
  // target lies beyond the decoded docids.
  if (block_ >= num_blocks_) return kEndDoc;
  if (block_len_ < block_size_ && target <= SkipLastDoc(block_)) {
    size_t part = block_len_ / kBlockPartSize;
    while (part + 1 < kBlockParts && PartLast(block_, part) < target) ++part;
    if (!LoadPart(part)) return kEndDoc;
    pos_ = static_cast<uint32_t>(
        part * kBlockPartSize +
        LowerBoundInBlock(docs_ + part * kBlockPartSize, kBlockPartSize, target));
    return docs_[pos_];
  }
  if (num_blocks_ == 1) return LoadBlock(1);
  // The first later block whose last docid >= target (near targets stay
  // in cached skip entries).
  return LoadBlockFor(HintedBlockFor(target), target);
}

DocId PostingCursor::SeekBlock(size_t b) {
  if (!status_.ok()) return kEndDoc;  // a failed cursor never reads on
  b = std::min<size_t>(b, num_blocks_);
  if (b == 0 && block_ == 0 && num_blocks_ == 1) {  // a one-block list is decoded whole (LoadBlockFor)
    pos_ = 0;
    return docs_[0];
  }
  return LoadBlock(b);
}

bool PostingCursor::MarkAgrees(size_t block, const uint8_t* start) {
  if (num_blocks_ < 2 || block == 0) return true;
  // The last block's weights end the list.
  if (start == (block >= num_blocks_ ? end_ : weights_at_ + WeightMark(block))) return true;
  Fail("weight mark disagrees with the weight blocks", block);
  return false;
}

bool PostingCursor::FindBlockWeights() {
  if (weight_block_ == block_) return true;  // the previous block's decode ended here
  const uint32_t offset = block_ == 0 ? 0 : WeightMark(block_);
  if (offset >= static_cast<size_t>(end_ - weights_at_)) {
    Fail("weight mark past the list", block_);
    return false;
  }
  weight_block_ = block_;
  weight_next_ = weights_at_ + offset;
  return true;
}

uint32_t PostingCursor::weight() {
  if (!weights_loaded_) {
    const uint8_t* start;
    if (alone_block_ == block_) {
      start = alone_start_;  // weight_alone has moved past it
    } else {
      if (!FindBlockWeights()) return 0;
      start = weight_next_;
    }
    const uint8_t* after = DecodeWeightBlock(start, end_, BlockPostings(block_), weights_);
    if (after == nullptr) {
      Fail("malformed weight block", block_);
      return 0;
    }
    if (!MarkAgrees(block_ + 1, after)) return 0;
    weight_next_ = after;
    weight_block_ = block_ + 1;
    weights_loaded_ = true;
    summed_ = 0;
    sum_ = 0;
  }
  return weights_[pos_];
}

uint32_t PostingCursor::weight_alone() {
  if (weights_loaded_ || data_ == nullptr || alone_block_ == block_) return weight();
  if (!FindBlockWeights()) return 0;
  ValueBlockView view;
  const uint32_t n = BlockPostings(block_);
  if (!view.Open(weight_next_, end_, n) || !view.ExceptionsAreSound() || !MarkAgrees(block_ + 1, view.end())) {
    if (status_.ok()) Fail("malformed weight block", block_);
    return 0;
  }
  // Stored less one (a weight is at least 1); UINT32_MAX would wrap to 0.
  const uint32_t stored = view.At(pos_);
  if (stored == UINT32_MAX) {
    Fail("malformed weight block", block_);
    return 0;
  }
  alone_block_ = block_;
  alone_start_ = weight_next_;
  weight_next_ = view.end();
  weight_block_ = block_ + 1;
  return stored + 1;
}

}  // namespace dps
