// The fixture of the dir-format tests: a fresh tree to write files and
// links into, read back with the dir reader, its stats and progress kept.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/ingest/reader_test_util.h"
#include "tests/testing/test_util.h"

namespace dps::testing {

class DirTreeTest : public ::testing::Test {
 protected:
  DirTreeTest() : root_(dir_.path() + "/tree") { std::filesystem::create_directories(root_); }

  // Writes `contents` to root_/rel, creating its directories.
  void Write(const std::string& rel, std::string_view contents) {
    std::filesystem::create_directories(std::filesystem::path(root_ + "/" + rel).parent_path());
    WriteFile(root_ + "/" + rel, contents);
  }
  void Link(const std::string& target, const std::string& rel) {
    ASSERT_EQ(symlink(target.c_str(), (root_ + "/" + rel).c_str()), 0) << rel;
  }
  // Reads the tree; stats_ and bytes_read_ are the reader's at the end.
  Drained Read(ReaderOptions options = {}) {
    options.format = InputFormat::kDir;
    auto reader = OpenReader(root_, options);
    if (!reader.ok()) return Drained{{}, reader.status()};
    Drained d = Drain(reader->get());
    stats_ = (*reader)->stats();
    bytes_read_ = (*reader)->bytes_read();
    return d;
  }
  static std::vector<std::string> Ids(const Drained& d) {
    std::vector<std::string> ids;
    for (const auto& doc : d.docs) ids.push_back(doc.id);
    return ids;
  }

  TempDir dir_;
  const std::string root_;
  ReaderStats stats_;
  uint64_t bytes_read_ = 0;
};

}  // namespace dps::testing
