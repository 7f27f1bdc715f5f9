// A bounds-checked reader of fixed-width little-endian fields, varints and
// length-prefixed strings, for decoders off the hot path (wire frames,
// file directories). Every read checks the bytes left; the first failure
// sticks, names its field, and later reads return zeros. Hot decoders
// (posting blocks, dictionary values) use the GetVarint64(p, end) helpers
// of common/coding.h directly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "common/coding.h"
#include "common/status.h"

namespace dps {

class ByteReader {
 public:
  // `what` names the bytes in errors ("Hello frame", "global index
  // directory"); a failure is Corruption when `corruption` (bytes from
  // disk), else InvalidArgument (bytes from a peer).
  ByteReader(std::string_view bytes, std::string what, bool corruption = false)
      : p_(reinterpret_cast<const uint8_t*>(bytes.data())),
        end_(p_ + bytes.size()),
        what_(std::move(what)),
        corruption_(corruption) {}

  uint8_t U8(const char* field) { return Need(1, field) ? *p_++ : 0; }
  uint16_t U16(const char* field) { return Fixed<uint16_t>(field, DecodeFixed16); }
  uint32_t U32(const char* field) { return Fixed<uint32_t>(field, DecodeFixed32); }
  uint64_t U64(const char* field) { return Fixed<uint64_t>(field, DecodeFixed64); }
  uint64_t Varint(const char* field) {
    uint64_t v = 0;
    if (!ok()) return 0;
    const uint8_t* next = GetVarint64(p_, end_, &v);
    if (next == nullptr) return Fail(field), 0;
    p_ = next;
    return v;
  }
  std::string String(const char* field) {
    std::string_view s;
    if (!ok()) return {};
    const uint8_t* next = GetLengthPrefixed(p_, end_, &s);
    if (next == nullptr) return Fail(field), std::string();
    p_ = next;
    return std::string(s);
  }

  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  bool ok() const { return error_.empty(); }
  void Fail(const std::string& what) {
    if (ok()) error_ = what;
  }
  // OK when everything was consumed without error.
  Status Finish() {
    if (ok() && p_ != end_) Fail(std::to_string(remaining()) + " trailing bytes");
    if (ok()) return Status::OK();
    std::string message = what_ + ": bad " + error_;
    return corruption_ ? Status::Corruption(std::move(message)) : Status::InvalidArgument(std::move(message));
  }

 private:
  bool Need(size_t n, const char* field) {
    if (!ok()) return false;
    if (remaining() < n) {
      Fail(field);
      return false;
    }
    return true;
  }
  template <typename T, typename Decode>
  T Fixed(const char* field, Decode decode) {
    if (!Need(sizeof(T), field)) return 0;
    const T v = decode(p_);
    p_ += sizeof(T);
    return v;
  }

  const uint8_t* p_;
  const uint8_t* end_;
  std::string what_;
  bool corruption_;
  std::string error_;
};

}  // namespace dps
