#include "index/id_index.h"

#include <algorithm>
#include <bit>

#include "common/coding.h"

namespace dps {

namespace {

constexpr int kMaxBucketBits = 24;
constexpr int kMaxRestBits = 16;
constexpr size_t kHeaderSize = 4;
constexpr size_t kPadding = 8;  // zero bytes after the entries: every entry is one 8-byte load
constexpr uint64_t kEntriesPerBucket = 16;

int BucketBits(uint64_t num_docs) {
  int bits = 0;
  while (bits < kMaxBucketBits && (uint64_t{1} << bits) * kEntriesPerBucket < num_docs) ++bits;
  return bits;
}

int RestBits(int bucket_bits) { return std::min(kMaxRestBits, 32 - bucket_bits); }

uint32_t Bucket(uint32_t hash, int bucket_bits) {
  return bucket_bits == 0 ? 0 : hash >> (32 - bucket_bits);
}

// The rest_bits hash bits just below the bucket bits.
uint32_t Rest(uint32_t hash, int bucket_bits, int rest_bits) {
  return static_cast<uint32_t>((uint64_t{hash} << bucket_bits & 0xffffffffu) >> (32 - rest_bits));
}

uint64_t LowMask64(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

}  // namespace

uint64_t IdIndexSize(uint64_t num_docs, int bucket_bits, int offset_bits) {
  if (num_docs == 0) return 0;
  const uint64_t entry_bits = static_cast<uint64_t>(RestBits(bucket_bits) + offset_bits);
  return kHeaderSize + 4 * (uint64_t{1} << bucket_bits) + (num_docs * entry_bits + 7) / 8 + kPadding;
}

void EncodeIdIndex(std::vector<std::pair<uint32_t, DocId>>* entries, DocId min_docid,
                   DocId max_docid, std::string* out) {
  if (entries->empty()) return;
  const int bucket_bits = BucketBits(entries->size());
  const int rest_bits = RestBits(bucket_bits);
  const int offset_bits = std::bit_width(max_docid - min_docid);
  std::sort(entries->begin(), entries->end());  // by hash: buckets in order
  out->push_back(static_cast<char>(bucket_bits));
  out->push_back(static_cast<char>(rest_bits));
  out->push_back(static_cast<char>(offset_bits));
  out->push_back(0);
  size_t e = 0;
  for (uint64_t b = 0; b < (uint64_t{1} << bucket_bits); ++b) {
    while (e < entries->size() && Bucket((*entries)[e].first, bucket_bits) == b) ++e;
    PutFixed32(out, static_cast<uint32_t>(e));
  }
  const int entry_bits = rest_bits + offset_bits;
  uint64_t acc = 0;  // bits not yet written, LSB first
  int fill = 0;
  for (const auto& [hash, docid] : *entries) {
    const uint64_t entry = Rest(hash, bucket_bits, rest_bits) |
                           (uint64_t{docid - min_docid} << rest_bits);
    acc |= entry << fill;
    fill += entry_bits;
    while (fill >= 8) {
      out->push_back(static_cast<char>(acc));
      acc >>= 8;
      fill -= 8;
    }
  }
  if (fill > 0) out->push_back(static_cast<char>(acc));
  out->append(kPadding, '\0');
}

Status IdIndexReader::Open(std::string_view region, uint32_t num_docs, DocId min_docid) {
  num_docs_ = num_docs;
  min_docid_ = min_docid;
  data_ = reinterpret_cast<const uint8_t*>(region.data());
  if (num_docs == 0) {
    if (!region.empty()) return Status::Corruption("id index present for a bin without documents");
    return Status::OK();
  }
  if (region.size() < kHeaderSize) return Status::Corruption("id index shorter than its header");
  bucket_bits_ = data_[0];
  rest_bits_ = data_[1];
  offset_bits_ = data_[2];
  if (bucket_bits_ != BucketBits(num_docs) || rest_bits_ != RestBits(bucket_bits_) ||
      offset_bits_ > 32 || data_[3] != 0) {
    return Status::Corruption("id index header does not fit its documents");
  }
  if (region.size() != IdIndexSize(num_docs, bucket_bits_, offset_bits_)) {
    return Status::Corruption("id index length does not fit its header");
  }
  return Status::OK();
}

Status IdIndexReader::Find(uint32_t hash, std::vector<DocId>* docids) const {
  if (num_docs_ == 0) return Status::OK();
  const uint32_t bucket = Bucket(hash, bucket_bits_);
  const uint8_t* ends = data_ + kHeaderSize;
  const uint32_t begin = bucket == 0 ? 0 : DecodeFixed32(ends + 4 * (bucket - 1));
  const uint32_t end = DecodeFixed32(ends + 4 * bucket);
  if (begin > end || end > num_docs_) return Status::Corruption("id index bucket out of range");
  const uint8_t* entries = ends + 4 * (size_t{1} << bucket_bits_);
  const uint32_t rest = Rest(hash, bucket_bits_, rest_bits_);
  const int entry_bits = rest_bits_ + offset_bits_;
  const uint64_t rest_mask = LowMask64(rest_bits_), offset_mask = LowMask64(offset_bits_);
  for (uint64_t i = begin; i < end; ++i) {
    const uint64_t bit = i * static_cast<uint64_t>(entry_bits);
    const uint64_t entry = DecodeFixed64(entries + bit / 8) >> (bit % 8);
    if ((entry & rest_mask) != rest) continue;
    const uint64_t docid = uint64_t{min_docid_} + ((entry >> rest_bits_) & offset_mask);
    if (docid > kMaxDocId) return Status::Corruption("id index docid out of range");
    docids->push_back(static_cast<DocId>(docid));
  }
  return Status::OK();
}

}  // namespace dps
