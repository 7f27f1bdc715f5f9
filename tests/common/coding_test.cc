#include "common/coding.h"

#include <gtest/gtest.h>

#include <random>

#include "common/checksum.h"
#include "common/status.h"

namespace dps {
namespace {

TEST(Coding, VarintRoundTripsEdgeValues) {
  const uint64_t values[] = {0, 1, 127, 128, 16383, 16384, UINT32_MAX, UINT64_MAX};
  for (uint64_t v : values) {
    std::string buf;
    PutVarint64(&buf, v);
    EXPECT_EQ(static_cast<int>(buf.size()), VarintLength(v));
    uint64_t got = 0;
    auto* p = reinterpret_cast<const uint8_t*>(buf.data());
    const uint8_t* next = GetVarint64(p, p + buf.size(), &got);
    ASSERT_NE(next, nullptr) << v;
    EXPECT_EQ(next, p + buf.size());
    EXPECT_EQ(got, v);
  }
}

TEST(Coding, TruncatedVarintIsRejected) {
  std::string buf;
  PutVarint64(&buf, 1u << 20);
  auto* p = reinterpret_cast<const uint8_t*>(buf.data());
  uint64_t v;
  for (size_t cut = 0; cut < buf.size(); ++cut) EXPECT_EQ(GetVarint64(p, p + cut, &v), nullptr);
}

TEST(Coding, OverlongVarintIsRejected) {
  std::string buf(11, '\xff');
  auto* p = reinterpret_cast<const uint8_t*>(buf.data());
  uint64_t v;
  EXPECT_EQ(GetVarint64(p, p + buf.size(), &v), nullptr);
  std::string big;
  PutVarint64(&big, uint64_t{1} << 32);
  p = reinterpret_cast<const uint8_t*>(big.data());
  uint32_t v32;
  EXPECT_EQ(GetVarint32(p, p + big.size(), &v32), nullptr);
}

TEST(Coding, LengthPrefixedChecksLengthAgainstEnd) {
  std::string buf;
  PutLengthPrefixed(&buf, "hello");
  auto* p = reinterpret_cast<const uint8_t*>(buf.data());
  std::string_view s;
  EXPECT_EQ(GetLengthPrefixed(p, p + buf.size(), &s), p + buf.size());
  EXPECT_EQ(s, "hello");
  EXPECT_EQ(GetLengthPrefixed(p, p + buf.size() - 1, &s), nullptr);
}

TEST(Coding, FixedRoundTrip) {
  std::string buf;
  PutFixed32(&buf, 0xdeadbeef);
  PutFixed64(&buf, 0x0123456789abcdefULL);
  PutFixed16(&buf, 0xbeef);
  auto* p = reinterpret_cast<const uint8_t*>(buf.data());
  EXPECT_EQ(DecodeFixed32(p), 0xdeadbeefu);
  EXPECT_EQ(DecodeFixed64(p + 4), 0x0123456789abcdefULL);
  EXPECT_EQ(DecodeFixed16(p + 12), 0xbeefu);
  EXPECT_EQ(static_cast<uint8_t>(buf[0]), 0xef);  // little-endian on disk
  EXPECT_EQ(static_cast<uint8_t>(buf[12]), 0xef);
}

TEST(Checksum, DetectsSingleBitFlips) {
  std::string data(4096, 'x');
  uint64_t base = Checksum64(data);
  for (size_t i = 0; i < data.size(); i += 97) {
    std::string copy = data;
    copy[i] ^= 1;
    EXPECT_NE(Checksum64(copy), base) << i;
  }
}

TEST(Status, ContextPrefixesMessage) {
  Status s = Status::Corruption("checksum mismatch").WithContext("000001.tab: page 3 at offset 98304");
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.ToString(), "Corruption: 000001.tab: page 3 at offset 98304: checksum mismatch");
  EXPECT_TRUE(Status::OK().WithContext("x").ok());
}

}  // namespace
}  // namespace dps
