// PhraseIterator: the documents where a phrase's words stand at
// consecutive positions (slop 0). Documents holding every distinct word are
// found by a leapfrog over the words' iterators, rarest first (as an AND);
// positions are read only for those candidates, and the phrase is checked
// from the word with the fewest positions there. Owns its word iterators,
// which must read positions (Tablet::OpenRefs with positions).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "index/doc_iterator.h"
#include "index/positions.h"
#include "index/posting_spots.h"
#include "index/term_iterator.h"

namespace dps {

// The most words a phrase may have (a query's longest is far below).
inline constexpr size_t kMaxPhraseWords = 32;
// The largest slop of a proximity phrase "a b"~N.
inline constexpr uint32_t kMaxPhraseSlop = 64;

// A phrase's distinct words, in first order of appearance, each as the
// position of its first appearance, and for each position the index of
// the distinct word standing there ("a b a": first 0 1; slot_word 0 1 0).
// Words are anything comparable: strings, or a plan's term indexes.
struct PhraseSlots {
  std::vector<size_t> first;
  std::vector<uint32_t> slot_word;
};
// SplitPhraseInto refills *out (a bin's search reuses one: no allocation).
template <typename Word>
void SplitPhraseInto(std::span<const Word> words, PhraseSlots* out) {
  out->first.clear();
  out->slot_word.clear();
  for (size_t i = 0; i < words.size(); ++i) {
    uint32_t d = 0;
    while (d < out->first.size() && !(words[out->first[d]] == words[i])) ++d;
    if (d == out->first.size()) out->first.push_back(i);
    out->slot_word.push_back(d);
  }
}
template <typename Word>
PhraseSlots SplitPhrase(std::span<const Word> words) {
  PhraseSlots out;
  SplitPhraseInto(words, &out);
  return out;
}

// How many times the phrase occurs, slot i's positions being *slots[i]
// (ascending; several slots may share one list: a repeated word).
// slop 0: starts s where every slot i holds position s + i; overlapping
// occurrences count apart ("a a" occurs twice in "a a a").
// slop N ("a b c"~N, Lucene's sloppy phrase match): the positions of the
// first word for which each other slot i can take a position q_i (distinct
// positions for slots of one word) so that the offsets q_i - i, with the
// first word's own, span at most N ("a b"~1 matches "a x b", "a b"~2 also
// "b a"). first_only: stop at the first (0 or 1).
uint32_t CountPhrase(std::span<const std::vector<uint32_t>* const> slots, uint32_t slop, bool first_only);

// How PhraseMatcher reads a word's positions at a batch's candidates.
enum class PhraseGather {
  kAuto,  // the merge (index/phrase_merge.cc) when every word's positions
          // are in a file, a value block decoded whole when the batch asks
          // more than a few of its values, else read in place; the gather
          // below (a run at a time, GetRun or GetMany) for inline lists
  kMergeWhole,    // the merge, every value block decoded whole (tests)
  kMergeInPlace,  // the merge, values read in place where one block holds them (tests)
  // The gather: a decoded run of the word's postings (PostingCursor::run)
  // at a time, its positions copied out for the whole batch.
  kPerPosting,  // every run a posting at a time (tests: that path alone)
  kRuns,        // every run whole (tests: that path alone)
};

// Where a batch of candidates' postings are in each distinct word's list,
// recorded by the AND kernel that found them (CollectIntersectionSpots):
// word w's posting at candidate i is row rows[i] of *words[w], or unknown
// when words[w] is null (the matcher walks that word's list).
struct CandidateSpots {
  const PostingSpots* words[kMaxPhraseWords] = {};
  const uint32_t* rows = nullptr;
};

// A phrase checked on documents already known to hold its words (the AND
// kernel's candidates, ascending), over plain cursors of one file's lists:
// the fast path of a conjunction of terms and phrases in a bin of one file
// with nothing deleted (shards/bin_search.cc).
class PhraseMatcher {
 public:
  // words: a cursor and positions per distinct word (opened); slot_word:
  // the word at each phrase position.
  PhraseMatcher(std::vector<std::unique_ptr<PostingCursor>> cursors,
                std::vector<std::unique_ptr<PostingPositions>> positions, std::vector<uint32_t> slot_word,
                uint32_t slop = 0, PhraseGather gather = PhraseGather::kAuto);
  // A matcher to Reopen: a thread keeps its matchers (their cursors,
  // readers and buffers) from bin to bin and query to query, since
  // allocating them per bin cost a cheap phrase query several percent.
  PhraseMatcher() = default;
  // Reopens for another phrase of `words` distinct words: open(w, cursor,
  // positions) opens word w's (a null cursor: not wanted); slot_word and
  // slop as the constructor's. `spotted`: the words whose spots every
  // Filter will be given (CandidateSpots::words set); a phrase of distinct
  // words with no slop reads no cursor of theirs, so theirs are not opened
  // (an open decodes the list's first block). Status: open's first failure.
  template <typename Open>
  Status Reopen(size_t words, std::span<const uint32_t> slot_word, uint32_t slop, Open open,
                const CandidateSpots* spotted = nullptr) {
    // A phrase of fewer words parks the others' cursors and readers for
    // the next longer one: batches alternate phrase lengths, and a cursor
    // made anew is an allocation and cold lines (bench/RESULTS.md, session 30).
    Resize(words, &cursors_, &spare_cursors_);
    Resize(words, &positions_, &spare_positions_);
    const bool distinct = slop == 0 && slot_word.size() == words;
    cursor_open_.assign(words, true);
    for (size_t w = 0; w < words; ++w) {
      cursor_open_[w] = !(distinct && spotted != nullptr && spotted->words[w] != nullptr);
      DPS_RETURN_IF_ERROR(open(w, cursor_open_[w] ? cursors_[w].get() : nullptr, positions_[w].get()));
    }
    slop_ = slop;
    gather_ = PhraseGather::kAuto;
    status_ = Status::OK();
    Init(slot_word);
    return Status::OK();
  }
  // Which of the candidates (ascending, each above the last one asked, each
  // holding every word) hold the phrase: their indexes into `candidates`
  // appended to *kept, ascending, and when `occurrences` is given how many
  // times each holds it (its tf, CountPhrase's). The merge
  // (FilterByMerge) when it applies, else each word's positions gathered
  // for all candidates at once, rarest word first, and a later word only
  // for the candidates still alive. With `spots` (words' postings at the
  // candidates, as the kernel found them) those words' lists are not
  // walked again (a slop or a repeated word still moves every cursor).
  // False with status() set on an error.
  bool Filter(std::span<const DocId> candidates, std::vector<uint32_t>* kept,
              std::vector<uint32_t>* occurrences = nullptr, const CandidateSpots* spots = nullptr);
  const Status& status() const { return status_; }

 private:
  // Word w's positions at each of cand_'s documents: gathered_ (flat) and
  // gathered_at_ (candidate i's are [at[i], at[i + 1])). A run is read
  // whole when its candidates ask at least 1/kDenseRatio of the values
  // their postings span plus a value block's worth.
  static constexpr uint64_t kDenseRatio = 16;
  // What follows from the words and their slots (both constructors').
  void Init(std::span<const uint32_t> slot_word);
  bool Gather(size_t w, const CandidateSpots* spots);
  // Gather's spots of the live candidates (cand_) taken from the kernel's
  // (the arrays sized by Gather).
  bool GatherSpotted(size_t w, const CandidateSpots& spots);
  // The merge (index/phrase_merge.cc): Filter for a phrase of distinct
  // words, slop 0, every word's positions in a file. Locate finds word w's
  // values at each candidate; Merge checks the candidates one at a time,
  // reading each word's positions straight out of its value blocks.
  bool FilterByMerge(std::span<const DocId> candidates, std::vector<uint32_t>* kept,
                     std::vector<uint32_t>* occurrences, const CandidateSpots* spots);
  bool Locate(size_t w, std::span<const DocId> candidates);
  // Locate from the kernel's spots of the m candidates.
  bool LocateSpotted(size_t w, size_t m, const CandidateSpots& spots);
  // FilterByMerge's check of Locate's m candidates for a phrase of two words.
  bool MergePair(size_t m, std::vector<uint32_t>* kept, std::vector<uint32_t>* occurrences);
  // Word w's raw values at candidate i (Locate's), in *out; false on an error.
  bool ValuesAt(size_t w, size_t i, const uint32_t** out);
  // A value block the batch asks at most this many values of (from the
  // asking candidate on) is read in place by the merge, else decoded whole.
  // Measured (callgrind, both phrase sets): 0 to 4 within 0.3% of one
  // another, 8 +0.9% on gcide, 32 +12%; reading in place pays only for a
  // value or two.
  static constexpr uint64_t kMostInPlace = 2;
  // The phrase's occurrences in d (every cursor moved there), or whether
  // it occurs at all when first_only; false on an error.
  bool CountAt(DocId d, bool first_only, uint32_t* count);
  // Word w's positions at its cursor's posting into *out; false on an error.
  bool Read(size_t w, std::vector<uint32_t>* out);
  bool Fail(PostingCursor& c);
  // Makes *v hold n objects, moving extras to *spare and taking from it
  // (or making new ones) when short.
  template <typename T>
  static void Resize(size_t n, std::vector<std::unique_ptr<T>>* v, std::vector<std::unique_ptr<T>>* spare) {
    for (; v->size() > n; v->pop_back()) spare->push_back(std::move(v->back()));
    for (; v->size() < n; spare->pop_back()) {
      if (spare->empty()) spare->push_back(std::make_unique<T>());
      v->push_back(std::move(spare->back()));
    }
  }

  std::vector<std::unique_ptr<PostingCursor>> cursors_;
  std::vector<bool> cursor_open_;  // by word: Reopen opened its cursor
  std::vector<std::unique_ptr<PostingPositions>> positions_;
  std::vector<std::unique_ptr<PostingCursor>> spare_cursors_;  // Reopen's, for longer phrases
  std::vector<std::unique_ptr<PostingPositions>> spare_positions_;
  // By word, at the last document asked. It and the merge's per-word
  // vectors below only grow (at least one per word; more are kept for
  // longer phrases, their buffers with them).
  std::vector<std::vector<uint32_t>> at_;
  // Filter's batch: the live candidates, each one's possible starts (flat,
  // candidate i's at [start_at_[i], start_at_[i + 1])), a word's gathered
  // positions, and the cursors' spots of the postings read.
  std::vector<DocId> cand_;
  std::vector<uint32_t> cand_index_;  // each live candidate's index in Filter's input
  std::vector<uint32_t> batch_starts_, gathered_;
  std::vector<size_t> start_at_, gathered_at_;
  std::vector<uint32_t> spot_blocks_, spot_tfs_;
  std::vector<uint64_t> spot_in_blocks_;
  std::vector<uint32_t> by_df_;  // words, fewest postings first
  // The merge's: each word's reader (all in a file: the merge applies),
  // and by word, each candidate's first value and value count; a
  // candidate's possible starts; a word's values copied out of place.
  std::vector<PositionReader*> readers_;
  std::vector<std::vector<uint64_t>> value_at_;
  std::vector<std::vector<uint32_t>> value_tf_;
  std::vector<uint32_t> merge_starts_;
  std::vector<std::vector<uint32_t>> scratch_;
  bool exact_distinct_ = false;            // slop 0, no word twice: Filter's batch applies
  std::vector<const std::vector<uint32_t>*> slots_;
  uint32_t slop_ = 0;
  PhraseGather gather_ = PhraseGather::kAuto;
  Status status_;
};

class PhraseIterator final : public DocIterator {
 public:
  // words: one iterator per distinct word; slot_word[i]: the word at phrase
  // position i; slop: CountPhrase's. REQUIRES: at least two slots, every
  // word used by a slot.
  PhraseIterator(std::vector<std::unique_ptr<TermIterator>> words, std::vector<uint32_t> slot_word,
                 uint32_t slop = 0);

  DocId doc() const override { return doc_; }
  DocId Next() override;
  DocId Seek(DocId target) override;
  uint64_t cost() const override { return words_[order_[0]]->cost(); }
  Status status() const override { return status_; }
  // The phrase's occurrences in doc() (its tf). REQUIRES: doc() != kEndDoc.
  uint32_t Occurrences();

 private:
  // The first docid >= candidate holding the phrase.
  DocId Settle(DocId candidate);
  // Reads the words' positions at doc(); false on an error (status_).
  bool ReadPositions();
  std::vector<std::unique_ptr<TermIterator>> words_;
  std::vector<size_t> order_;  // words_ rarest first
  std::vector<uint32_t> slot_word_;
  std::vector<std::vector<uint32_t>> positions_;  // by word, at doc_
  std::vector<const std::vector<uint32_t>*> slots_;
  uint32_t slop_;
  DocId doc_ = kEndDoc;
  Status status_;
};

}  // namespace dps
