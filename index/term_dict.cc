#include "index/term_dict.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "common/coding.h"

namespace dps {

uint64_t TermDictKeyPrefix(std::string_view key) {
  uint64_t v = 0;
  std::memcpy(&v, key.data(), std::min<size_t>(8, key.size()));
  return __builtin_bswap64(v);  // the bytes were little-endian: first byte highest
}

namespace {
// The first n (<= 8) bytes of a key whose TermDictKeyPrefix is `prefix`.
void PrefixBytes(uint64_t prefix, size_t n, char* out) {
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<char>(prefix >> (56 - 8 * i));
}

// Whether a block's first entry (`shared` bytes from the index prefix, then
// `suffix`) is the key the index prefix was made from: a check on the bytes
// the page checksums cannot judge.
bool FirstEntryMatchesPrefix(uint64_t prefix, size_t shared, std::string_view suffix) {
  // The first `shared` bytes are the prefix's by construction; the rest of
  // the prefix must be the suffix's first bytes, zero-padded.
  if (shared == kKeyPrefixBytes) return true;
  const uint64_t rest = TermDictKeyPrefix(suffix) >> (8 * shared);
  return (prefix & (~uint64_t{0} >> (8 * shared))) == rest;
}

// ---- entries ----
//
// An entry starts with one head byte holding `shared` and the suffix length
// as nibbles; a nibble of 15 means "15 + a varint that follows". Keys of a
// natural vocabulary share under 15 bytes and have short suffixes, so the
// head is one byte (one byte less than two varints, and no varint decode on
// the lookup walk).

constexpr uint64_t kNibbleEscape = 15;
constexpr uint64_t kMaxKeyPart = uint64_t{1} << 32;

void PutEntry(std::string* out, size_t shared, std::string_view suffix, std::string_view value) {
  const uint64_t s = std::min<uint64_t>(shared, kNibbleEscape);
  const uint64_t l = std::min<uint64_t>(suffix.size(), kNibbleEscape);
  out->push_back(static_cast<char>(s << 4 | l));
  if (s == kNibbleEscape) PutVarint64(out, shared - kNibbleEscape);
  if (l == kNibbleEscape) PutVarint64(out, suffix.size() - kNibbleEscape);
  out->append(suffix);
  PutLengthPrefixed(out, value);
}

inline const uint8_t* GetNibbleRest(const uint8_t* p, const uint8_t* end, uint64_t* v) {
  if (*v != kNibbleEscape) return p;
  uint64_t rest;
  p = GetVarint64(p, end, &rest);
  if (p == nullptr || rest >= kMaxKeyPart) return nullptr;
  *v += rest;
  return p;
}

// Parses the entry at p; returns the byte after it, nullptr if malformed.
inline const uint8_t* GetEntry(const uint8_t* p, const uint8_t* end, uint64_t* shared,
                               std::string_view* suffix, std::string_view* value) {
  if (p >= end) return nullptr;
  const uint8_t head = *p++;
  *shared = head >> 4;
  uint64_t len = head & 15;
  p = GetNibbleRest(p, end, shared);
  if (p != nullptr) p = GetNibbleRest(p, end, &len);
  if (p == nullptr || len > static_cast<uint64_t>(end - p)) return nullptr;
  *suffix = std::string_view(reinterpret_cast<const char*>(p), len);
  return GetLengthPrefixed(p + len, end, value);
}

}  // namespace

// ---- builder ----

// Index entry of a finished block: `head (u8) = shared << 4 | rest`, the
// prefix's bytes [shared, shared + rest) (it shares `shared` leading bytes
// with the previous block's prefix and is zero after the rest), then the
// block's length (varint).
Status TermDictBuilder::FlushBlock() {
  const uint64_t diff = block_prefix_ ^ last_prefix_;
  const int shared = diff == 0 ? 8 : std::countl_zero(diff) / 8;
  // The bytes after the shared ones, moved to the top; rest = up to the
  // last non-zero one.
  const uint64_t low = shared == 8 ? 0 : block_prefix_ << (8 * shared);
  const int rest = low == 0 ? 0 : 8 - std::countr_zero(low) / 8;
  index_.push_back(static_cast<char>(shared << 4 | rest));
  for (int i = 0; i < rest; ++i) index_.push_back(static_cast<char>(low >> (56 - 8 * i)));
  PutVarint64(&index_, block_.size());
  last_prefix_ = block_prefix_;
  ++blocks_;
  DPS_RETURN_IF_ERROR(sink_->Append(block_));
  block_.clear();
  in_block_ = 0;
  return Status::OK();
}

Status TermDictBuilder::Add(std::string_view key, std::string_view value) {
  if (entries_ == 0) start_ = sink_->offset();
  size_t shared = 0;
  if (in_block_ == block_entries_) DPS_RETURN_IF_ERROR(FlushBlock());
  if (in_block_ == 0) {
    block_prefix_ = TermDictKeyPrefix(key);
    // A block's first entry shares its first bytes with the index entry's
    // key prefix: only the rest is stored.
    shared = std::min<size_t>(key.size(), kKeyPrefixBytes);
  } else {
    shared = SharedPrefixLength(last_key_, key);
  }
  PutEntry(&block_, shared, key.substr(shared), value);
  last_key_.assign(key);
  ++in_block_;
  ++entries_;
  return Status::OK();
}

Status TermDictBuilder::Finish(uint64_t* offset, uint64_t* len) {
  *offset = entries_ > 0 ? start_ : sink_->offset();
  *len = 0;
  if (entries_ == 0) return Status::OK();
  DPS_RETURN_IF_ERROR(FlushBlock());
  const uint64_t index_at = sink_->offset() - start_;
  if (index_at > UINT32_MAX) {
    return Status::InvalidArgument("term dictionary region over 4 GiB");
  }
  PutFixed32(&index_, blocks_);
  PutFixed32(&index_, static_cast<uint32_t>(index_at));
  DPS_RETURN_IF_ERROR(sink_->Append(index_));
  *len = sink_->offset() - start_;
  index_.clear();
  last_key_.clear();
  last_prefix_ = 0;
  entries_ = in_block_ = 0;
  blocks_ = 0;
  return Status::OK();
}

// ---- reader ----

std::string TermDictReader::Where(uint64_t rel) const {
  return file_->path() + ": term dictionary at offset " + std::to_string(offset_ + rel);
}

Status TermDictReader::Open(const PagedFileReader* file, uint64_t offset, uint64_t len) {
  file_ = file;
  offset_ = offset;
  block_count_ = 0;
  if (len == 0) return Status::OK();  // an empty bin has no dictionary
  if (len < 8) return Status::Corruption(Where(0) + ": region of " + std::to_string(len) + " bytes");
  DPS_ASSIGN_OR_RETURN(std::string_view trailer, file->Read(offset + len - 8, 8));
  auto* t = reinterpret_cast<const uint8_t*>(trailer.data());
  const uint32_t blocks = DecodeFixed32(t);
  const uint32_t index_at = DecodeFixed32(t + 4);
  // An index entry takes at least 2 bytes.
  if (index_at > len - 8 || uint64_t{blocks} * 2 > len - 8 - index_at ||
      (blocks == 0) != (index_at == 0)) {
    return Status::Corruption(Where(len - 8) + ": bad trailer");
  }
  // Decode the sparse index once (every lookup reads it) and check that the
  // blocks tile [0, index_at) and their prefixes ascend, so lookups need not.
  DPS_ASSIGN_OR_RETURN(std::string_view index, file->Read(offset + index_at, len - 8 - index_at));
  base_ = file->data() + offset;
  block_prefix_.clear();
  block_offset_.clear();
  block_prefix_.reserve(blocks);
  block_offset_.reserve(uint64_t{blocks} + 1);
  const auto* p = reinterpret_cast<const uint8_t*>(index.data());
  const auto* end = p + index.size();
  uint64_t prefix = 0, at = 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    const uint64_t entry_at = index_at + static_cast<uint64_t>(p - reinterpret_cast<const uint8_t*>(index.data()));
    auto bad = [&] {
      return Status::Corruption(Where(entry_at) + ": bad index entry for block " + std::to_string(b));
    };
    if (p == end) return bad();
    const int shared = *p >> 4, rest = *p & 15;
    if (shared + rest > 8 || rest > end - p - 1) return bad();
    ++p;
    uint64_t next = shared == 0 ? 0 : prefix & (~uint64_t{0} << (64 - 8 * shared));
    for (int i = 0; i < rest; ++i) next |= uint64_t{*p++} << (56 - 8 * (shared + i));
    uint64_t block_len = 0;
    p = GetVarint64(p, end, &block_len);
    if (p == nullptr || block_len == 0 || block_len > index_at - at || (b > 0 && next < prefix)) {
      return bad();
    }
    prefix = next;
    block_prefix_.push_back(prefix);
    block_offset_.push_back(static_cast<uint32_t>(at));
    at += block_len;
  }
  if (at != index_at || p != end) {
    return Status::Corruption(Where(index_at) + ": index does not tile the blocks");
  }
  block_offset_.push_back(static_cast<uint32_t>(at));
  block_count_ = blocks;
  BuildEytzinger();
  return Status::OK();
}

// The block prefixes in Eytzinger order (a binary search tree laid out
// breadth-first, slot k's children at 2k and 2k + 1): a lookup's next three
// levels are 8 consecutive slots, two cache lines it prefetches while it
// compares, so the search no longer waits on a miss per level (Khuong &
// Morin, "Array layouts for comparison-based searching", 2017). Each slot
// also holds its block's number and offset, so the answer costs no further
// miss in the on-disk index.
void TermDictReader::BuildEytzinger() {
  const size_t n = block_prefix_.size();
  tree_.assign(n + 1, TreeSlot{});
  uint32_t next = 0;  // an in-order walk of the implicit tree hands out blocks in order
  auto fill = [&](auto& self, size_t k) -> void {
    if (k > n) return;
    self(self, 2 * k);
    tree_[k] = TreeSlot{block_prefix_[next], next, BlockOffset(next)};
    ++next;
    self(self, 2 * k + 1);
  };
  fill(fill, 1);
}

const TermDictReader::TreeSlot* TermDictReader::LastSlotAtOrBelow(uint64_t prefix) const {
  const size_t n = block_count_;
  const TreeSlot* tree = tree_.data();
  const TreeSlot* last = nullptr;  // the last slot whose prefix <= prefix
  size_t k = 1;
  while (k <= n) {
    if (8 * k + 7 <= n) {
      __builtin_prefetch(tree + 8 * k);
      __builtin_prefetch(tree + 8 * k + 4);
    }
    const bool right = tree[k].prefix <= prefix;
    last = right ? tree + k : last;
    k = 2 * k + right;
  }
  return last;
}

Status TermDictReader::BlockRange(size_t block, uint64_t* begin, uint64_t* end) const {
  *begin = BlockOffset(block);
  *end = block_offset_[block + 1];
  return file_->Verify(offset_ + *begin, *end - *begin);
}

Status TermDictReader::FirstKey(size_t block, std::string* key) const {
  uint64_t begin, end, shared;
  std::string_view suffix, value;
  DPS_RETURN_IF_ERROR(BlockRange(block, &begin, &end));
  const uint8_t* p = GetEntry(base_ + begin, base_ + end, &shared, &suffix, &value);
  if (p != nullptr && shared <= kKeyPrefixBytes) {
    key->resize(shared);
    PrefixBytes(KeyPrefix(block), shared, key->data());
    key->append(suffix);
  }
  if (p == nullptr || shared > kKeyPrefixBytes || TermDictKeyPrefix(*key) != KeyPrefix(block)) {
    return Status::Corruption(Where(begin) + ": block's first key disagrees with the index");
  }
  return Status::OK();
}

Result<int64_t> TermDictReader::BlockOf(const TreeSlot* slot, uint64_t prefix,
                                        std::string_view key) const {
  if (slot == nullptr) return int64_t{-1};
  int64_t block = slot->block;
  // Blocks whose prefix equals the key's: the whole first key decides
  // (rare: keys sharing their first 8 bytes).
  if (slot->prefix == prefix) {
    std::string first;
    while (block >= 0 && KeyPrefix(static_cast<size_t>(block)) == prefix) {
      DPS_RETURN_IF_ERROR(FirstKey(static_cast<size_t>(block), &first));
      if (first <= key) break;
      --block;
    }
  }
  return block;
}

Result<int64_t> TermDictReader::FindBlock(std::string_view key) const {
  if (block_count_ == 0) return int64_t{-1};
  const uint64_t prefix = TermDictKeyPrefix(key);
  return BlockOf(LastSlotAtOrBelow(prefix), prefix, key);
}

Status TermDictReader::Find(std::string_view key, bool* found, std::string_view* value) const {
  *found = false;
  if (block_count_ == 0) return Status::OK();
  DPS_ASSIGN_OR_RETURN(int64_t block, FindBlock(key));
  return FindInBlock(block, key, found, value);
}

Result<int64_t> TermDictReader::Locate(std::string_view key) const {
  if (block_count_ == 0) return int64_t{-1};
  const uint64_t prefix = TermDictKeyPrefix(key);
  const TreeSlot* slot = LastSlotAtOrBelow(prefix);
  DPS_ASSIGN_OR_RETURN(int64_t block, BlockOf(slot, prefix, key));
  if (block < 0) return block;
  // The block's bytes (usually a cache miss, the lookup's largest cost).
  // The slot holds the offset unless a tie moved to an earlier block.
  const uint32_t offset =
      block == int64_t{slot->block} ? slot->offset : BlockOffset(static_cast<size_t>(block));
  const uint8_t* p = base_ + offset;
  for (int line = 0; line < 4; ++line) __builtin_prefetch(p + 64 * line);
  return block;
}

Status TermDictReader::FindInBlock(int64_t block, std::string_view key, bool* found,
                                   std::string_view* value) const {
  *found = false;
  if (block < 0) return Status::OK();  // key sorts before every entry
  uint64_t begin, end;
  DPS_RETURN_IF_ERROR(BlockRange(static_cast<size_t>(block), &begin, &end));
  const uint8_t* p = base_ + begin;
  const uint8_t* const limit = base_ + end;
  // matched: bytes the previous entry's key shares with `key`; that key
  // was < key. An entry sharing more with its predecessor is still < key
  // (same byte where the predecessor fell short); sharing fewer, it is > key.
  size_t matched = 0;
  bool first = true;
  while (p < limit) {
    const uint8_t* entry = p;
    uint64_t shared;
    std::string_view suffix;
    p = GetEntry(p, limit, &shared, &suffix, value);
    if (p == nullptr || (first && (shared > kKeyPrefixBytes ||
                                   !FirstEntryMatchesPrefix(KeyPrefix(static_cast<size_t>(block)),
                                                            shared, suffix)))) {
      return Status::Corruption(Where(static_cast<uint64_t>(entry - base_)) + ": malformed entry");
    }
    if (first) {
      // Its key is the index prefix's first `shared` bytes, then the suffix:
      // compare those bytes as big-endian integers.
      first = false;
      const uint64_t block_prefix = KeyPrefix(static_cast<size_t>(block));
      const uint64_t diff = TermDictKeyPrefix(key) ^ block_prefix;
      const size_t common = std::min<size_t>(
          {diff == 0 ? kKeyPrefixBytes : static_cast<size_t>(std::countl_zero(diff)) / 8,
           key.size(), shared});
      if (common < shared) {
        const auto head_byte = static_cast<uint8_t>(block_prefix >> (56 - 8 * common));
        if (common == key.size() || head_byte > static_cast<uint8_t>(key[common])) {
          return Status::OK();  // the entry sorts after key
        }
        matched = common;  // and before it
        continue;
      }
      matched = shared;
    }
    if (shared > matched) continue;
    if (shared < matched) return Status::OK();
    // shared == matched: the entry's key is key[0, matched) + suffix.
    const std::string_view rest = key.substr(matched);
    const size_t n = std::min(rest.size(), suffix.size());
    size_t common = 0;
    while (common < n && rest[common] == suffix[common]) ++common;
    if (common == rest.size() && common == suffix.size()) {
      *found = true;
      return Status::OK();
    }
    // Entry > key when key ran out first or the entry's byte is larger.
    if (common == rest.size() ||
        (common < suffix.size() && static_cast<uint8_t>(suffix[common]) > static_cast<uint8_t>(rest[common]))) {
      return Status::OK();
    }
    matched += common;
  }
  return Status::OK();
}

// ---- cursor ----

void TermDictCursor::LoadBlock(size_t block) {
  valid_ = false;
  block_ = block;
  if (block >= dict_->block_count_) return;
  uint64_t begin, end;
  status_ = dict_->BlockRange(block, &begin, &end);
  if (!status_.ok()) return;
  p_ = dict_->base_ + begin;
  end_ = dict_->base_ + end;
  key_.clear();
  first_in_block_ = true;
}

bool TermDictCursor::ParseEntry() {
  if (p_ >= end_) return false;
  uint64_t shared;
  std::string_view suffix;
  const uint8_t* p = GetEntry(p_, end_, &shared, &suffix, &value_);
  if (p == nullptr || shared > (first_in_block_ ? kKeyPrefixBytes : key_.size()) ||
      (first_in_block_ && !FirstEntryMatchesPrefix(dict_->KeyPrefix(block_), shared, suffix))) {
    status_ = Status::Corruption(dict_->Where(static_cast<uint64_t>(p_ - dict_->base_)) +
                                 ": malformed entry");
    return false;
  }
  if (first_in_block_) {  // shared bytes come from the index's key prefix
    first_in_block_ = false;
    key_.resize(shared);
    PrefixBytes(dict_->KeyPrefix(block_), shared, key_.data());
  } else {
    key_.resize(shared);
  }
  key_.append(suffix);
  p_ = p;
  return true;
}

void TermDictCursor::SeekToFirst() {
  status_ = Status::OK();
  LoadBlock(0);
  if (status_.ok() && block_ < dict_->block_count_) valid_ = ParseEntry();
}

void TermDictCursor::Next() {
  if (!valid_) return;
  valid_ = ParseEntry();
  while (!valid_ && status_.ok() && block_ + 1 < dict_->block_count_) {
    LoadBlock(block_ + 1);
    if (!status_.ok()) return;
    valid_ = ParseEntry();
  }
}

void TermDictCursor::Seek(std::string_view key) {
  status_ = Status::OK();
  valid_ = false;
  if (dict_->block_count_ == 0) return;
  auto block = dict_->FindBlock(key);
  if (!block.ok()) {
    status_ = block.status();
    return;
  }
  LoadBlock(static_cast<size_t>(std::max<int64_t>(0, *block)));
  if (!status_.ok()) return;
  valid_ = ParseEntry();
  while (valid_ && key_ < key) Next();
}

}  // namespace dps
