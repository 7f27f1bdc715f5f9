// The documents' spill gives back every bin's documents in order, short
// ones buffered into chunks and long ones (a chunk or more of text) written
// straight from where they lie, mixed in any order across bins.
#include "ingest/doc_spill.h"

#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "tests/testing/test_util.h"

namespace dps {
namespace {

TEST(DocSpill, GivesBackEveryBinsDocumentsInOrderShortAndLong) {
  testing::TempDir dir;
  DocSpill spill(dir.path() + "/1.spill.tmp", 3, 2);
  ASSERT_TRUE(spill.Open().ok());
  using Doc = std::tuple<DocId, std::string, std::string, std::string>;
  std::vector<std::vector<Doc>> want(3);
  std::mt19937_64 rng(5);
  std::vector<DocId> next(3, 0);
  for (int i = 0; i < 300; ++i) {
    const uint32_t bin = static_cast<uint32_t>(rng() % 3);
    const size_t length = rng() % 10 == 0 ? DocSpill::kChunkBytes + rng() % 200000 : rng() % 3000;
    std::string text(length, 'a');
    for (char& c : text) c = static_cast<char>('a' + rng() % 26);
    const DocId docid = next[bin]++;
    want[bin].emplace_back(docid, "id" + std::to_string(i), "title " + std::to_string(i), text);
    const uint32_t lengths[2] = {static_cast<uint32_t>(length), static_cast<uint32_t>(i)};
    ASSERT_TRUE(spill.Add(bin, docid, std::get<1>(want[bin].back()), std::get<2>(want[bin].back()), text, lengths).ok());
  }
  ASSERT_TRUE(spill.Finish().ok());
  for (uint32_t bin = 0; bin < 3; ++bin) {
    std::vector<Doc> got;
    ASSERT_TRUE(spill
                    .ReadBin(bin,
                             [&](DocId docid, std::string_view id, std::string_view title, std::string_view text) {
                               got.emplace_back(docid, std::string(id), std::string(title), std::string(text));
                               return Status::OK();
                             })
                    .ok());
    ASSERT_EQ(got.size(), want[bin].size()) << "bin " << bin;
    for (size_t d = 0; d < got.size(); ++d) ASSERT_EQ(got[d], want[bin][d]) << "bin " << bin << " document " << d;
    EXPECT_EQ(spill.docs(bin), want[bin].size());
    for (size_t d = 0; d < want[bin].size(); ++d) {
      EXPECT_EQ(spill.lengths(bin, 0).Of(static_cast<DocId>(d)), std::get<3>(want[bin][d]).size());
    }
  }
}

}  // namespace
}  // namespace dps
