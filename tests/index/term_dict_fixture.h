// A term dictionary written as the only region of a paged file and opened:
// shared by the dictionary's tests (term_dict_test, term_range_test).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "index/paged_file.h"
#include "index/term_dict.h"
#include "tests/testing/test_util.h"

namespace dps::testing {

struct DictFixture {
  TempDir dir;
  std::unique_ptr<PagedFileReader> file;
  TermDictReader dict;

  explicit DictFixture(const std::map<std::string, std::string>& entries,
                       size_t block_entries = kTermDictBlockEntries) {
    const std::string path = dir.path() + "/dict";
    auto w = PagedFileWriter::Create(path);
    EXPECT_TRUE(w.ok());
    EXPECT_TRUE((*w)->Append("pad!").ok());  // the region need not start at 0
    TermDictBuilder b(w->get(), block_entries);
    for (const auto& [k, v] : entries) EXPECT_TRUE(b.Add(k, v).ok());
    uint64_t offset = 0, len = 0;
    EXPECT_TRUE(b.Finish(&offset, &len).ok());
    EXPECT_EQ(offset, 4u);
    EXPECT_TRUE((*w)->Finish(0, 0, 1).ok());
    auto r = PagedFileReader::Open(path);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    file = std::move(r).value();
    EXPECT_TRUE(dict.Open(file.get(), offset, len).ok());
  }
};

// A hand-made dictionary region (blocks, index, trailer) as the whole of a
// paged file, opened: the pages' checksums are right, so only the
// dictionary's own checks can refuse its bytes.
struct RawDictFixture {
  TempDir dir;
  std::unique_ptr<PagedFileReader> file;
  TermDictReader dict;
  Status open;  // TermDictReader::Open's

  explicit RawDictFixture(const std::string& region) {
    auto w = PagedFileWriter::Create(dir.path() + "/f");
    EXPECT_TRUE(w.ok() && (*w)->Append(region).ok() && (*w)->Finish(0, 0, 1).ok());
    auto r = PagedFileReader::Open(dir.path() + "/f");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    file = std::move(r).value();
    open = dict.Open(file.get(), 0, region.size());
  }
};

}  // namespace dps::testing
