// PhraseMatcher (the AND fast path's phrase check) against brute force on
// random corpora of few words (long lists of many blocks, postings of one
// to hundreds of positions, words repeated in documents and in phrases),
// with each way of reading positions forced (the merge with value blocks
// decoded whole or read in place, the gather a run at a time whole or a
// posting at a time, and the automatic choice, also with the postings'
// spots handed over as the AND kernel records them), candidates of every
// density and windows of every size.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "index/phrase_iterator.h"
#include "index/positions.h"
#include "index/posting_list.h"
#include "tests/testing/test_util.h"

namespace dps {
namespace {

// One word's list: its postings' bytes and its positions' bytes.
struct WordList {
  std::vector<DocId> docs;
  std::vector<uint32_t> weights, lengths, positions;
  std::string postings, position_bytes, inline_positions;
};

struct Corpus {
  std::vector<std::vector<std::string>> tokens;  // by docid
  std::map<std::string, WordList> lists;
};

Corpus RandomCorpus(std::mt19937_64& rng) {
  Corpus c;
  const size_t docs = 1 + rng() % (rng() % 3 ? 3000 : 200);
  const size_t vocab = 2 + rng() % 5;
  const size_t max_len = rng() % 4 == 0 ? 400 : 12;
  for (size_t d = 0; d < docs; ++d) {
    std::vector<std::string> doc(1 + rng() % max_len);
    // Skewed: word 0 is in most documents, the last in few.
    for (auto& t : doc) t = testing::VocabTerm(std::min<size_t>(rng() % vocab, rng() % vocab));
    c.tokens.push_back(std::move(doc));
  }
  for (DocId d = 0; d < c.tokens.size(); ++d) {
    std::map<std::string, std::vector<uint32_t>> at;
    for (uint32_t p = 0; p < c.tokens[d].size(); ++p) at[c.tokens[d][p]].push_back(p);
    for (auto& [word, positions] : at) {
      WordList& l = c.lists[word];
      l.docs.push_back(d);
      l.weights.push_back(static_cast<uint32_t>(positions.size()));
      l.lengths.push_back(static_cast<uint32_t>(c.tokens[d].size()));
      l.positions.insert(l.positions.end(), positions.begin(), positions.end());
    }
  }
  for (auto& [word, l] : c.lists) {
    EncodePostingList(l.docs, l.weights, l.lengths, /*score_avgdl=*/8.0, &l.postings);
    EncodePositionList(l.weights, l.positions, &l.position_bytes);
    AppendInlinePositions(l.weights, l.positions, &l.inline_positions);
  }
  return c;
}

// Opens a word's cursor and positions over the corpus's list; positions
// kept inline for a list of one block when `inline_short`.
// A null cursor is not opened (PhraseMatcher::Reopen with spots).
Status OpenWord(const Corpus& c, const std::string& word, bool inline_short, PostingCursor* cursor,
                PostingPositions* positions) {
  const WordList& l = c.lists.at(word);
  if (cursor != nullptr) {
    DPS_RETURN_IF_ERROR(cursor->Init(reinterpret_cast<const uint8_t*>(l.postings.data()), l.postings.size(),
                                     static_cast<uint32_t>(l.docs.size()), nullptr, 0));
  }
  if (inline_short && l.docs.size() <= kBlockSize) return positions->OpenInline(l.inline_positions, l.weights, word);
  return positions->OpenBytes(l.position_bytes, l.docs.size(), word);
}

PhraseMatcher MakeMatcher(const Corpus& c, const std::vector<std::string>& words, uint32_t slop, PhraseGather gather,
                          bool inline_short) {
  const PhraseSlots slots = SplitPhrase(std::span<const std::string>(words));
  std::vector<std::unique_ptr<PostingCursor>> cursors;
  std::vector<std::unique_ptr<PostingPositions>> positions;
  for (size_t first : slots.first) {
    cursors.push_back(std::make_unique<PostingCursor>());
    positions.push_back(std::make_unique<PostingPositions>());
    EXPECT_TRUE(OpenWord(c, words[first], inline_short, cursors.back().get(), positions.back().get()).ok());
  }
  return PhraseMatcher(std::move(cursors), std::move(positions), slots.slot_word, slop, gather);
}

// Each distinct word's postings at the candidates, from the lists
// themselves (PostingCursor::PositionsAt's figures: doc block, the weights
// of the block's earlier postings, the weight), as the kernel hands them:
// candidate i's in row rows[i].
std::vector<PostingSpots> SpotsOf(const Corpus& c, const std::vector<std::string>& words,
                                  const std::vector<DocId>& candidates, const std::vector<uint32_t>& rows) {
  const PhraseSlots slots = SplitPhrase(std::span<const std::string>(words));
  std::vector<PostingSpots> out(slots.first.size());
  for (size_t w = 0; w < slots.first.size(); ++w) {
    const WordList& l = c.lists.at(words[slots.first[w]]);
    out[w].blocks.resize(candidates.size());
    out[w].in_blocks.resize(candidates.size());
    out[w].tfs.resize(candidates.size());
    for (size_t i = 0; i < candidates.size(); ++i) {
      const auto at = std::lower_bound(l.docs.begin(), l.docs.end(), candidates[i]);
      const size_t j = static_cast<size_t>(at - l.docs.begin());
      uint64_t in_block = 0;
      for (size_t k = j - j % kBlockSize; k < j; ++k) in_block += l.weights[k];
      out[w].blocks[rows[i]] = static_cast<uint32_t>(j / kBlockSize);
      out[w].in_blocks[rows[i]] = in_block;
      out[w].tfs[rows[i]] = l.weights[j];
    }
  }
  return out;
}

TEST(PhraseMatcher, EveryWayOfReadingPositionsMatchesBruteForce) {
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    std::mt19937_64 rng(seed);
    const Corpus c = RandomCorpus(rng);
    // One matcher reopened for every phrase of the corpus (as a thread's
    // are from bin to bin): nothing of a phrase may leak into the next.
    PhraseMatcher reused;
    PhraseMatcher spotted;  // reopened with spots: the spotted words' cursors stay closed
    std::vector<std::string> vocab;
    for (const auto& [word, l] : c.lists) vocab.push_back(word);
    for (int q = 0; q < 6; ++q) {
      // Two to four words, repeats allowed ("w0 w0", "w1 w0 w1"); a slop
      // now and then.
      std::vector<std::string> words(2 + rng() % 3);
      for (auto& w : words) w = vocab[std::min<size_t>(rng() % vocab.size(), rng() % vocab.size())];
      const uint32_t slop = rng() % 5 == 0 ? static_cast<uint32_t>(1 + rng() % 3) : 0;
      // Candidates: documents holding every word, a random share of them
      // (the other terms of a conjunction keep fewer).
      const uint64_t keep_one_in = rng() % 2 ? 1 : 1 + rng() % 40;
      std::vector<DocId> candidates;
      std::vector<uint32_t> want_occurrences;
      for (DocId d = 0; d < c.tokens.size(); ++d) {
        bool all = true;
        for (const auto& w : words) all &= std::find(c.tokens[d].begin(), c.tokens[d].end(), w) != c.tokens[d].end();
        if (!all || rng() % keep_one_in != 0) continue;
        candidates.push_back(d);
        want_occurrences.push_back(testing::PhraseOccurrences(c.tokens[d], words, slop));
      }
      std::vector<uint32_t> want_kept, want_counts;
      for (uint32_t i = 0; i < candidates.size(); ++i) {
        if (want_occurrences[i] == 0) continue;
        want_kept.push_back(i);
        want_counts.push_back(want_occurrences[i]);
      }
      const size_t window = 1 + rng() % (rng() % 2 ? 2000 : 20);
      const bool inline_short = rng() % 2 == 0;
      // Each way of reading forced, then the reused matcher (way 5), then
      // the automatic choice given the kernel's spots (way 6).
      const PhraseGather ways[] = {PhraseGather::kAuto, PhraseGather::kMergeWhole, PhraseGather::kMergeInPlace,
                                   PhraseGather::kPerPosting, PhraseGather::kRuns, PhraseGather::kAuto,
                                   PhraseGather::kAuto};
      // The spots' rows shuffled: the kernel's rows are the candidates'
      // indexes before earlier phrases dropped some.
      std::vector<uint32_t> rows(candidates.size());
      for (uint32_t i = 0; i < rows.size(); ++i) rows[i] = i;
      std::mt19937_64 shuffle_rng(seed * 1000 + static_cast<uint64_t>(q));  // the draws above stay as they were
      std::shuffle(rows.begin(), rows.end(), shuffle_rng);
      const std::vector<PostingSpots> spots = SpotsOf(c, words, candidates, rows);
      // Some words' spots left out now and then (the dense kernel records
      // only its last list's): the matcher walks those lists.
      CandidateSpots located;
      for (size_t w = 0; w < spots.size(); ++w) located.words[w] = shuffle_rng() % 3 == 0 ? nullptr : &spots[w];
      for (int way = 0; way < 7; ++way) {
        const PhraseGather gather = ways[way];
        for (bool occurrences : {false, true}) {
          PhraseMatcher made = way >= 5 ? PhraseMatcher() : MakeMatcher(c, words, slop, gather, inline_short);
          if (way >= 5) {
            const PhraseSlots slots = SplitPhrase(std::span<const std::string>(words));
            const Status opened = (way == 5 ? reused : spotted)
                                      .Reopen(slots.first.size(), slots.slot_word, slop,
                                              [&](size_t d, PostingCursor* cursor, PostingPositions* positions) {
                                                return OpenWord(c, words[slots.first[d]], inline_short, cursor,
                                                                positions);
                                              },
                                              way == 6 ? &located : nullptr);
            ASSERT_TRUE(opened.ok()) << opened.ToString();
          }
          PhraseMatcher& m = way == 5 ? reused : way == 6 ? spotted : made;
          std::vector<uint32_t> kept, counts, window_kept;
          for (size_t from = 0; from < candidates.size(); from += window) {
            const size_t to = std::min(candidates.size(), from + window);
            window_kept.clear();
            located.rows = rows.data() + from;
            ASSERT_TRUE(m.Filter(std::span<const DocId>(candidates).subspan(from, to - from), &window_kept,
                                 occurrences ? &counts : nullptr, way == 6 ? &located : nullptr))
                << m.status().ToString() << " seed " << seed;
            for (uint32_t k : window_kept) kept.push_back(static_cast<uint32_t>(from + k));
          }
          std::string phrase;
          for (const auto& w : words) phrase.append(w).push_back(' ');
          ASSERT_EQ(kept, want_kept) << "seed " << seed << " phrase " << phrase << "~" << slop << " way " << way
                                     << " window " << window;
          if (occurrences) {
            ASSERT_EQ(counts, want_counts) << "seed " << seed << " phrase " << phrase;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace dps
