#include "cluster/server_record.h"

#include <gtest/gtest.h>

namespace dps {
namespace {

ServerRecord Sample() {
  return ServerRecord{"127.0.0.1:7701", "0123456789abcdef0123456789abcdef", 42, 64, 8, {{0, 3}, {6, 6}}};
}

// The bytes docs/PROTOCOL.md "ZooKeeper: server node" shows, exactly.
TEST(ServerRecord, EncodesTheDocumentedText) {
  EXPECT_EQ(EncodeServerRecord(Sample()),
            "dpsearch-server 1\n"
            "address 127.0.0.1:7701\n"
            "index-id 0123456789abcdef0123456789abcdef\n"
            "generation 42\n"
            "bins 64\n"
            "tablets 8\n"
            "hosted 0-3,6\n");
}

TEST(ServerRecord, RoundTrips) {
  auto back = DecodeServerRecord(EncodeServerRecord(Sample()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, Sample());
}

TEST(ServerRecord, SkipsUnknownKeys) {
  std::string text = EncodeServerRecord(Sample()) + "load 0.5\n";
  auto back = DecodeServerRecord(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, Sample());
}

TEST(ServerRecord, RefusesBadRecords) {
  const std::string good = EncodeServerRecord(Sample());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  const std::pair<std::string, const char*> cases[] = {
      {"", "empty"},
      {with("dpsearch-server 1", "dpsearch-server 2"), "format version 2"},
      {with("dpsearch-server", "other"), "not a dpsearch server record"},
      {with("generation 42\n", ""), "no 'generation'"},
      {with("generation 42", "generation x"), "bad 'generation'"},
      {with("bins 64", "bins 0"), "bad 'bins'"},
      {with("tablets 8", "tablets 65"), "bad 'tablets'"},
      {with("hosted 0-3,6", "hosted 3-1"), "bad 'hosted'"},
      {with("hosted 0-3,6", "hosted 0-3,2"), "bad 'hosted'"},
      {with("hosted 0-3,6", "hosted 0-8"), "bad 'hosted'"},
      {with("hosted 0-3,6", "hosted 0-3,"), "bad 'hosted'"},
      {with("address 127.0.0.1:7701", "address nowhere"), "bad 'address'"},
      {good + "bins 64\n", "'bins' given twice"},
      {with("bins 64", "bins64"), "expected 'key value'"},
  };
  for (const auto& [text, why] : cases) {
    auto r = DecodeServerRecord(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_TRUE(r.status().IsCorruption());
    EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace dps
