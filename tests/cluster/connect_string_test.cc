#include "cluster/connect_string.h"

#include <gtest/gtest.h>

namespace dps {
namespace {

TEST(ZkAddress, ParsesHostsAndPath) {
  auto a = ParseZkAddress("127.0.0.1:2181/dpsearch");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->hosts, "127.0.0.1:2181");
  EXPECT_EQ(a->path, "/dpsearch");
  auto b = ParseZkAddress("zk1:2181,zk2:2182,[::1]:2183/a/b");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->hosts, "zk1:2181,zk2:2182,[::1]:2183");
  EXPECT_EQ(b->path, "/a/b");
}

TEST(ZkAddress, RefusesWithOneLineNamingTheProblem) {
  const std::pair<const char*, const char*> cases[] = {
      {"127.0.0.1:2181", "no /PATH"},
      {"/dps", "no HOST:PORT"},
      {"zk/dps", "host 'zk' has no :PORT"},
      {"zk:0/dps", "bad port"},
      {"zk:65536/dps", "bad port"},
      {"zk:21x/dps", "bad port"},
      {"zk:2181,/dps", "an empty host"},
      {":2181/dps", "no host before the port"},
      {"zk:2181/", "below the root"},
      {"zk:2181/dps/", "ends with '/'"},
      {"zk:2181/a//b", "empty, '.' or '..'"},
      {"zk:2181/a/../b", "empty, '.' or '..'"},
  };
  for (const auto& [text, why] : cases) {
    auto a = ParseZkAddress(text);
    ASSERT_FALSE(a.ok()) << text;
    EXPECT_TRUE(a.status().IsInvalidArgument()) << text;
    EXPECT_NE(a.status().message().find(why), std::string::npos) << text << ": " << a.status().message();
    EXPECT_NE(a.status().message().find(std::string("--zookeeper ") + text + ":"), std::string::npos);
    EXPECT_EQ(a.status().message().find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace dps
