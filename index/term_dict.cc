#include "index/term_dict.h"

#include "common/coding.h"

namespace dps {

// ---- builder ----

void TermDictBuilder::Add(std::string_view key, std::string_view value) {
  size_t shared = 0;
  if (in_block_ == kTermDictBlockEntries) in_block_ = 0;
  if (in_block_ == 0) {
    index_offsets_.push_back(static_cast<uint32_t>(index_.size()));
    PutLengthPrefixed(&index_, key);
    PutVarint64(&index_, blocks_.size());
  } else {
    size_t limit = std::min(last_key_.size(), key.size());
    while (shared < limit && last_key_[shared] == key[shared]) ++shared;
  }
  PutVarint64(&blocks_, shared);
  PutLengthPrefixed(&blocks_, key.substr(shared));
  PutLengthPrefixed(&blocks_, value);
  last_key_.assign(key);
  ++in_block_;
  ++entries_;
}

std::string TermDictBuilder::Finish() {
  std::string out = std::move(blocks_);
  const uint32_t index_at = static_cast<uint32_t>(out.size());
  out += index_;
  for (uint32_t off : index_offsets_) PutFixed32(&out, index_at + off);
  PutFixed32(&out, static_cast<uint32_t>(index_offsets_.size()));
  PutFixed32(&out, index_at);
  *this = TermDictBuilder();
  return out;
}

// ---- reader ----

std::string TermDictReader::Where(uint64_t rel) const {
  return file_->path() + ": term dictionary at offset " + std::to_string(offset_ + rel);
}

Status TermDictReader::Open(const PagedFileReader* file, uint64_t offset, uint64_t len) {
  file_ = file;
  offset_ = offset;
  len_ = len;
  block_count_ = 0;
  if (len == 0) return Status::OK();  // an empty bin has no dictionary
  if (len < 8) return Status::Corruption(Where(0) + ": region of " + std::to_string(len) + " bytes");
  DPS_ASSIGN_OR_RETURN(std::string_view trailer, file->Read(offset + len - 8, 8));
  auto* t = reinterpret_cast<const uint8_t*>(trailer.data());
  const uint32_t blocks = DecodeFixed32(t);
  const uint32_t index_at = DecodeFixed32(t + 4);
  if (index_at > len - 8 || uint64_t{blocks} * 4 > len - 8 - index_at) {
    return Status::Corruption(Where(len - 8) + ": bad trailer");
  }
  // The sparse index and its offsets are read by every lookup: verify now.
  DPS_RETURN_IF_ERROR(file->Verify(offset + index_at, len - index_at));
  base_ = file->data() + offset;
  index_offset_ = index_at;
  block_count_ = blocks;
  return Status::OK();
}

Status TermDictReader::IndexEntry(size_t block, std::string_view* first_key,
                                  uint64_t* block_offset) const {
  const uint64_t offsets_at = len_ - 8 - uint64_t{block_count_} * 4;
  const uint32_t entry = DecodeFixed32(base_ + offsets_at + block * 4);
  if (entry < index_offset_ || entry >= offsets_at) {
    return Status::Corruption(Where(offsets_at + block * 4) + ": index entry out of range");
  }
  const uint8_t* p = base_ + entry;
  const uint8_t* end = base_ + offsets_at;
  p = GetLengthPrefixed(p, end, first_key);
  if (p != nullptr) p = GetVarint64(p, end, block_offset);
  if (p == nullptr || *block_offset >= index_offset_) {
    return Status::Corruption(Where(entry) + ": malformed index entry");
  }
  return Status::OK();
}

Status TermDictReader::BlockRange(size_t block, uint64_t* begin, uint64_t* end) const {
  std::string_view key;
  DPS_RETURN_IF_ERROR(IndexEntry(block, &key, begin));
  *end = index_offset_;
  if (block + 1 < block_count_) DPS_RETURN_IF_ERROR(IndexEntry(block + 1, &key, end));
  if (*end < *begin) return Status::Corruption(Where(*begin) + ": blocks out of order");
  return file_->Verify(offset_ + *begin, *end - *begin);
}

Result<int64_t> TermDictReader::FindBlock(std::string_view key) const {
  int64_t lo = 0, hi = static_cast<int64_t>(block_count_) - 1, found = -1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    std::string_view first;
    uint64_t off;
    DPS_RETURN_IF_ERROR(IndexEntry(static_cast<size_t>(mid), &first, &off));
    if (first <= key) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

Status TermDictReader::Find(std::string_view key, bool* found, std::string_view* value) const {
  *found = false;
  TermDictCursor cursor(this);
  cursor.Seek(key);
  DPS_RETURN_IF_ERROR(cursor.status());
  if (cursor.Valid() && cursor.key() == key) {
    *found = true;
    *value = cursor.value();
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
}

bool TermDictCursor::ParseEntry() {
  if (p_ >= end_) return false;
  uint64_t shared;
  std::string_view suffix;
  const uint8_t* p = GetVarint64(p_, end_, &shared);
  if (p != nullptr) p = GetLengthPrefixed(p, end_, &suffix);
  if (p != nullptr) p = GetLengthPrefixed(p, end_, &value_);
  if (p == nullptr || shared > key_.size()) {
    status_ = Status::Corruption(dict_->Where(static_cast<uint64_t>(p_ - dict_->base_)) +
                                 ": malformed entry");
    return false;
  }
  key_.resize(shared);
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
