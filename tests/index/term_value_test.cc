// A tablet dictionary value (docs/FORMAT.md "Tablet dictionary value"):
// the writer keeps lists of up to kMaxInlineDf postings inline and longer
// ones in the file, every value opens a cursor over exactly its postings,
// and malformed values are refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "index/inline_postings.h"
#include "index/tablet_reader.h"
#include "index/tablet_writer.h"
#include "index/term_list.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

using std::string_literals::operator""s;

struct TermValueList {
  std::string term;
  std::vector<DocId> docs;
  std::vector<uint32_t> weights;
};

TEST(TermValue, ShortListsInlineLongOnesInTheFileAllOpenExactly) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/000001.tab";
  std::vector<TermValueList> lists;
  for (uint32_t df : {1u, 2u, 7u, kMaxInlineDf, kMaxInlineDf + 1, 300u}) {
    for (bool weighted : {false, true}) {
      TermValueList l;
      l.term = std::to_string(1000 + df * 2 + weighted);
      l.term.insert(l.term.begin(), 't');  // (not "t" + ...: GCC 12 -Wrestrict false positive)
      for (uint32_t i = 0; i < df; ++i) {
        l.docs.push_back(3 + i * 11);
        l.weights.push_back(weighted && i % 3 == 1 ? 2 + i : 1);
      }
      lists.push_back(l);
    }
  }
  {
    auto w = TabletWriter::Create(path, TabletWriterOptions());
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->StartBin(BinId{2}).ok());
    BinLengthTable lengths;  // no documents here: any length at least each weight
    for (DocId d = 3; d <= 3 + 300 * 11; d += 11) lengths.Set(d, 1000);
    (*w)->SetDocLengths(&lengths);
    for (const TermValueList& l : lists) ASSERT_TRUE((*w)->AddPostingList(l.term, l.docs, l.weights).ok());
    ASSERT_TRUE((*w)->FinishBin().ok());
    ASSERT_TRUE((*w)->Finish().ok());
  }
  auto file = TabletReader::Open(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  auto terms = TermListReader::Open(TermListPathFor(path));
  ASSERT_TRUE(terms.ok());
  TermDictCursor cursor(&(*terms)->dict(0));
  cursor.SeekToFirst();
  for (const TermValueList& l : lists) {
    ASSERT_TRUE(cursor.Valid());
    ASSERT_EQ(cursor.key(), l.term);
    PostingRef ref;
    ASSERT_TRUE((*file)->ParsePostingRef(0, cursor.value(), &ref).ok()) << l.term;
    EXPECT_EQ(ref.df, l.docs.size());
    const bool in_file = l.docs.size() > kMaxInlineDf;
    EXPECT_EQ(ref.len > 0, in_file) << l.term;
    EXPECT_EQ(!ref.inline_postings.empty(), !in_file && l.docs.size() >= 2) << l.term;
    PostingCursor c;
    ASSERT_TRUE((*file)->OpenCursor(ref, &c).ok());
    for (size_t i = 0; i < l.docs.size(); ++i) {
      ASSERT_EQ(c.doc(), l.docs[i]) << l.term;
      EXPECT_EQ(c.weight(), l.weights[i]) << l.term;
      c.Next();
    }
    EXPECT_EQ(c.doc(), kEndDoc);
    cursor.Next();
  }

  auto parses = [&](const std::string& value) {
    PostingRef ref;
    return (*file)->ParsePostingRef(0, value, &ref).ok();
  };
  EXPECT_TRUE(parses("\x05\x09"s));                 // df 1, weight 1: docid 9
  EXPECT_TRUE(parses("\x06\x09\x04"s));             // df 1, weight 4
  EXPECT_TRUE(parses("\x09\x09\x00"s));             // df 2 inline: docids 9, 10
  EXPECT_TRUE(parses("\x08\x00\x01"s));             // df 2 in the file, offset 0, 1 byte
  EXPECT_FALSE(parses("\x07\x09"s));                // form 3
  EXPECT_FALSE(parses("\x01\x09"s));                // df 0
  EXPECT_FALSE(parses("\x04\x00\x01"s));            // df 1 in the file
  EXPECT_FALSE(parses("\x09\x09"s));                // inline list cut short
  EXPECT_FALSE(parses("\x09\x09\x00\x00"s));        // a byte after the value
  EXPECT_FALSE(parses("\x06\x09\x00"s));            // weight 0
  EXPECT_FALSE(parses("\x08\x00\xff\xff\x03"s));   // list past the bin's postings
  EXPECT_FALSE(parses("\x85\x04\x00"s + std::string(129, '\x00')));  // df 129 inline
}

}  // namespace
}  // namespace dps
