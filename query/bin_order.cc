#include "query/bin_order.h"

#include <algorithm>

namespace dps {

BinOrder::BinOrder(const std::vector<BinId>& bins, uint64_t skip) : bins_(bins), skip_left_(skip) {}

void BinOrder::Add(BinResult result) {
  const uint32_t bin = result.bin.value;
  waiting_.emplace(bin, std::move(result));
}

bool BinOrder::Next(BinResult* out) {
  if (next_ == bins_.size()) return false;
  auto it = waiting_.find(bins_[next_].value);
  if (it == waiting_.end()) return false;
  *out = std::move(it->second);
  waiting_.erase(it);
  ++next_;
  Skip(out);
  return true;
}

bool BinOrder::Drain(BinResult* out) {
  if (waiting_.empty()) return false;
  *out = std::move(waiting_.begin()->second);
  waiting_.erase(waiting_.begin());
  Skip(out);
  return true;
}

void BinOrder::Skip(BinResult* out) {
  const uint64_t drop = std::min<uint64_t>(skip_left_, out->count);
  if (drop > 0) {
    skip_left_ -= drop;
    skipped_ += drop;
    out->count -= drop;
    const auto cut = [drop](auto& v) { v.erase(v.begin(), v.begin() + static_cast<ptrdiff_t>(std::min<uint64_t>(drop, v.size()))); };
    cut(out->docs);
    cut(out->stored);
  }
}

}  // namespace dps
