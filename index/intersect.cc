#include "index/intersect.h"

#include <algorithm>
#include <memory>

namespace dps {

namespace {

// ---- leapfrog: a seek per lead docid per other list ----

// Returns the next docid >= d present in all cursors, or kEndDoc.
inline DocId Align(PostingCursor* const* c, size_t n, DocId d) {
  PostingCursor* lead = c[0];
  size_t i = 1;
  while (d != kEndDoc && i < n) {
    const DocId e = c[i]->Seek(d);
    if (e == d) {
      ++i;
    } else {
      d = lead->Seek(e);
      i = 1;
    }
  }
  return d;
}

// ---- dense: a bitset over the lead's docid range ----
//
// When the lists are long and of similar length, a seek per lead docid
// costs more than reading every posting once: decode whole blocks, mark the
// lead's docids in a bitset, keep the marks the middle lists also hold, and
// let the last list test its docids against the marks (which yields the
// matches in ascending order). Roaring and Lemire et al., "Consistently
// faster and smaller compressed bitmaps with Roaring" (2016), make the same
// trade between sorted arrays and bitmaps.

// Estimated nanoseconds per lead docid and other list for the leapfrog, and
// per posting read whole for the dense kernel (measured on gcide's frequent
// terms, bench/RESULTS.md "Dense intersections").
constexpr uint64_t kLeapfrogSeekCost = 40;
constexpr uint64_t kDenseMinLead = 32;
// The bitset may not be sparser than this many bits per lead docid.
constexpr uint64_t kDenseMaxBitsPerLeadDoc = 64;

struct DenseScratch {
  std::vector<uint64_t> marks, next;
};

DenseScratch& Scratch() {
  thread_local DenseScratch scratch;
  return scratch;
}

bool PreferDenseOver(PostingCursor* const* c, size_t n, DocId lo, DocId hi) {
  if (n < 2 || lo == kEndDoc || hi == kEndDoc || hi < lo) return false;
  const uint64_t lead = c[0]->df();
  if (lead < kDenseMinLead) return false;
  const uint64_t span = uint64_t{hi} - lo + 1;
  if (span > lead * kDenseMaxBitsPerLeadDoc) return false;
  uint64_t postings = lead;
  for (size_t i = 1; i < n; ++i) postings += c[i]->df();
  return postings + span / 64 * n < kLeapfrogSeekCost * lead * (n - 1);
}

inline bool Marked(const uint64_t* marks, uint32_t x) { return ((marks[x >> 6] >> (x & 63)) & 1); }

// Calls fn(run, len) for the decoded runs of `cursor` in [lo, hi], the
// last one cut at hi; stops early when fn returns false. The cursor stays
// on each run while fn sees it (fn may ask for its weights).
template <typename Fn>
void ForEachRun(PostingCursor* cursor, DocId lo, DocId hi, Fn fn) {
  for (DocId d = cursor->Seek(lo); d <= hi; d = cursor->NextRun()) {  // kEndDoc > hi
    const DocId* run = cursor->run();
    size_t len = cursor->run_size();
    const bool last_run = run[len - 1] > hi;
    if (last_run) len = static_cast<size_t>(std::upper_bound(run, run + len, hi) - run);
    if (!fn(run, len) || last_run) return;
  }
}

// Calls fn(d) for each docid of `cursor` in [lo, hi], whole runs at a time.
template <typename Fn>
void ForEachDoc(PostingCursor* cursor, DocId lo, DocId hi, Fn fn) {
  ForEachRun(cursor, lo, hi, [&](const DocId* run, size_t len) {
    for (size_t k = 0; k < len; ++k) fn(run[k]);
    return true;
  });
}

// A list's postings over the window as the dense kernel walks it, with
// where each one's positions are (PostingSpots' three columns): the
// matches' spots are picked out of them afterwards (PickSpots), with no
// second walk of the list. Filled only for phrase words.
struct WalkedPostings {
  std::vector<DocId> docs;
  PostingSpots spots;  // row j: docs[j]'s
  size_t size = 0;
  // False when the cursor failed or a weight did not decode.
  bool ok = true;
};

// Calls fn(d) for each docid of `cursor` in [lo, hi]; when `walked` is set,
// also records each posting and its spot there.
template <typename Fn>
void ForEachDocRecorded(PostingCursor* cursor, DocId lo, DocId hi, WalkedPostings* walked, Fn fn) {
  if (walked == nullptr) return ForEachDoc(cursor, lo, hi, fn);
  WalkedPostings& w = *walked;
  // At most the list's postings: sized once, then written by index.
  const size_t most = cursor->df();
  if (w.docs.size() < most) {
    w.docs.resize(most);
    w.spots.blocks.resize(most);
    w.spots.tfs.resize(most);
    w.spots.in_blocks.resize(most);
  }
  w.size = 0;
  w.ok = true;
  ForEachRun(cursor, lo, hi, [&](const DocId* run, size_t len) {
    uint32_t block = 0, tf = 0;
    uint64_t at = 0;
    const uint32_t* weights = nullptr;
    if (!cursor->PositionsAt(&block, &at, &tf) || (weights = cursor->run_weights()) == nullptr ||
        len > most - w.size) {
      return w.ok = false;
    }
    DocId* docs = w.docs.data() + w.size;
    uint32_t* blocks = w.spots.blocks.data() + w.size;
    uint32_t* tfs = w.spots.tfs.data() + w.size;
    uint64_t* in_blocks = w.spots.in_blocks.data() + w.size;
    for (size_t k = 0; k < len; ++k) {
      fn(run[k]);
      docs[k] = run[k];
      blocks[k] = block;
      tfs[k] = weights[k];
      in_blocks[k] = at;
      at += weights[k];
    }
    w.size += len;
    return true;
  });
  w.ok = w.ok && cursor->status().ok();
}

// The spots of `walked`'s postings at the matches out[from, end) (each one
// of them: the marks say every match is in the list) appended to *spots.
bool PickSpots(const WalkedPostings& walked, const std::vector<DocId>& out, size_t from, PostingSpots* spots) {
  if (!walked.ok) return false;
  // Locals and raw pointers: the stores could alias every member.
  const DocId* docs = walked.docs.data();
  const size_t size = walked.size;
  const DocId* want = out.data() + from;
  const size_t m = out.size() - from;
  const size_t base = spots->size();
  spots->blocks.resize(base + m);
  spots->in_blocks.resize(base + m);
  spots->tfs.resize(base + m);
  uint32_t* blocks = spots->blocks.data() + base;
  uint64_t* in_blocks = spots->in_blocks.data() + base;
  uint32_t* tfs = spots->tfs.data() + base;
  size_t j = 0;
  for (size_t i = 0; i < m; ++i) {
    const DocId d = want[i];
    while (j < size && docs[j] < d) ++j;
    if (j == size || docs[j] != d) return false;
    blocks[i] = walked.spots.blocks[j];
    in_blocks[i] = walked.spots.in_blocks[j];
    tfs[i] = walked.spots.tfs[j];
  }
  return true;
}

// Marks the docids common to cursors [0, n-1) over [lo, hi] in
// scratch.marks; cursor k's postings go to walked[k] when it is set.
const uint64_t* MarkAllButLast(PostingCursor* const* c, size_t n, DocId lo, DocId hi,
                               WalkedPostings* const* walked = nullptr) {
  DenseScratch& s = Scratch();
  const size_t words = (size_t{hi} - lo) / 64 + 1;
  s.marks.assign(words, 0);
  uint64_t* marks = s.marks.data();
  ForEachDocRecorded(c[0], lo, hi, walked == nullptr ? nullptr : walked[0], [&](DocId d) {
    const uint32_t x = d - lo;
    marks[x >> 6] |= uint64_t{1} << (x & 63);
  });
  for (size_t i = 1; i + 1 < n; ++i) {
    s.next.assign(words, 0);
    uint64_t* next = s.next.data();
    ForEachDocRecorded(c[i], lo, hi, walked == nullptr ? nullptr : walked[i], [&](DocId d) {
      const uint32_t x = d - lo;
      next[x >> 6] |= uint64_t{Marked(marks, x)} << (x & 63);
    });
    s.marks.swap(s.next);
    marks = s.marks.data();
  }
  return marks;
}

uint64_t DenseCount(PostingCursor* const* c, size_t n, DocId lo, DocId hi) {
  const uint64_t* marks = MarkAllButLast(c, n, lo, hi);
  uint64_t count = 0;
  ForEachDoc(c[n - 1], lo, hi, [&](DocId d) { count += Marked(marks, d - lo); });
  return count;
}

void DenseCollect(PostingCursor* const* c, size_t n, DocId lo, DocId hi, size_t limit,
                  std::vector<DocId>* out) {
  const uint64_t* marks = MarkAllButLast(c, n, lo, hi);
  PostingCursor* last = c[n - 1];
  for (DocId d = last->Seek(lo); d <= hi && limit > 0; d = last->NextRun()) {
    const DocId* run = last->run();
    const size_t len = last->run_size();
    for (size_t k = 0; k < len && run[k] <= hi && limit > 0; ++k) {
      if (Marked(marks, run[k] - lo)) {
        out->push_back(run[k]);
        --limit;
      }
    }
    if (run[len - 1] > hi) return;
  }
}

// Calls fn(docs, weights, len) for the runs of `cursor` in [lo, hi]; false
// when its weights fail to decode.
template <typename Fn>
bool ForEachRunWithWeights(PostingCursor* cursor, DocId lo, DocId hi, Fn fn) {
  bool weighed = true;
  ForEachRun(cursor, lo, hi, [&](const DocId* run, size_t len) {
    const uint32_t* weights = cursor->run_weights();
    if (weights == nullptr) return weighed = false;
    fn(run, weights, len);
    return true;
  });
  return weighed && cursor->status().ok();
}

}  // namespace

size_t CollectWindow(PostingCursor* const* c, size_t n, DocId lo, DocId hi, DocId* docs,
                     uint32_t* const* weights) {
  constexpr size_t kWords = kMaxWindowSpan / 64;
  struct Scratch {
    uint64_t marks[kWords], next[kWords];
    uint32_t slot[16][kMaxWindowSpan];  // cursor i's weight of docid lo + x
  };
  thread_local auto scratch = std::make_unique<Scratch>();
  Scratch& s = *scratch;
  const size_t words = (size_t{hi} - lo) / 64 + 1;
  std::fill(s.marks, s.marks + words, 0);
  bool ok = ForEachRunWithWeights(c[0], lo, hi, [&](const DocId* run, const uint32_t* w, size_t len) {
    for (size_t k = 0; k < len; ++k) {
      const uint32_t x = run[k] - lo;
      s.marks[x >> 6] |= uint64_t{1} << (x & 63);
      s.slot[0][x] = w[k];
    }
  });
  for (size_t i = 1; ok && i < n; ++i) {
    std::fill(s.next, s.next + words, 0);
    uint32_t* slot = s.slot[i];
    ok = ForEachRunWithWeights(c[i], lo, hi, [&](const DocId* run, const uint32_t* w, size_t len) {
      for (size_t k = 0; k < len; ++k) {
        const uint32_t x = run[k] - lo;
        s.next[x >> 6] |= uint64_t{Marked(s.marks, x)} << (x & 63);
        slot[x] = w[k];
      }
    });
    std::copy(s.next, s.next + words, s.marks);
  }
  if (!ok) return SIZE_MAX;
  size_t m = 0;
  for (size_t word = 0; word < words; ++word) {
    for (uint64_t bits = s.marks[word]; bits != 0; bits &= bits - 1) {
      const uint32_t x = static_cast<uint32_t>(word * 64 + static_cast<size_t>(__builtin_ctzll(bits)));
      docs[m] = lo + x;
      for (size_t i = 0; i < n; ++i) weights[i][m] = s.slot[i][x];
      ++m;
    }
  }
  return m;
}

uint64_t LeapfrogCount(PostingCursor* const* c, size_t n) {
  uint64_t count = 0;
  if (n == 2) {
    // The two-term case dominates real query logs: keep it tight.
    PostingCursor* a = c[0];
    PostingCursor* b = c[1];
    LeadWarmer warm(c, n);
    DocId d = a->doc();
    while (d != kEndDoc) {
      warm();
      const DocId e = b->Seek(d);
      if (e == d) {
        ++count;
        d = a->Next();
      } else {
        d = a->Seek(e);
      }
    }
    return count;
  }
  LeadWarmer warm(c, n);
  warm();
  for (DocId d = Align(c, n, c[0]->doc()); d != kEndDoc; d = Align(c, n, c[0]->Next())) {
    ++count;
    warm();
  }
  return count;
}

void LeapfrogCollect(PostingCursor* const* c, size_t n, size_t limit, std::vector<DocId>* out) {
  LeadWarmer warm(c, n);
  warm();
  for (DocId d = Align(c, n, c[0]->doc()); d != kEndDoc && limit > 0;
       d = Align(c, n, c[0]->Next()), --limit) {
    out->push_back(d);
    warm();
  }
}

namespace {

// Appends the spot of the cursor's current posting to *spots.
bool RecordSpot(PostingCursor* c, PostingSpots* spots) {
  uint32_t block = 0, tf = 0;
  uint64_t in_block = 0;
  if (!c->PositionsAt(&block, &in_block, &tf)) return false;
  spots->push_back(block, in_block, tf);
  return true;
}

bool LeapfrogCollectSpots(PostingCursor* const* c, size_t n, std::vector<DocId>* out, PostingSpots* const* spots) {
  LeadWarmer warm(c, n);
  warm();
  for (DocId d = Align(c, n, c[0]->doc()); d != kEndDoc; d = Align(c, n, c[0]->Next())) {
    warm();
    out->push_back(d);
    for (size_t k = 0; k < n; ++k) {
      if (spots[k] != nullptr && !RecordSpot(c[k], spots[k])) return false;
    }
  }
  return true;
}

// DenseCollect with the spots of every list asked for them: the last
// list's recorded as it meets the matches (a run holding a match is asked
// its first posting's spot and its weights once, and each match's offset
// is summed from them: a seek and a spot per match cost gcide's dense
// phrases 13% more than walking the lists again), the other lists' picked
// from their postings as the marking walked them (finding them again with
// a seek per match cost a two-word phrase of linuxdoc's median 17% of its
// instructions, and more in mispredicted branches). Only lists of at most
// kMostWalkedPostings are recorded (20 bytes a posting, which stay in
// the cache): writing longer lists' made gcide's phrases 25% slower for
// the same instructions; their spots are set to null, for the phrase
// check to find.
bool DenseCollectSpots(PostingCursor* const* c, size_t n, DocId lo, DocId hi, std::vector<DocId>* out,
                       PostingSpots** spots) {
  thread_local std::vector<WalkedPostings> walked_store;
  if (walked_store.size() < n) walked_store.resize(n);
  WalkedPostings* walked[kMaxSpotLists] = {};
  for (size_t k = 0; k + 1 < n; ++k) {
    if (spots[k] == nullptr) continue;
    if (c[k]->df() > kMostWalkedPostings) {
      spots[k] = nullptr;
    } else {
      walked[k] = &walked_store[k];
    }
  }
  const size_t from = out->size();
  const uint64_t* marks = MarkAllButLast(c, n, lo, hi, walked);
  PostingCursor* last = c[n - 1];
  PostingSpots* last_spots = spots[n - 1];
  for (DocId d = last->Seek(lo); d <= hi; d = last->NextRun()) {
    const DocId* run = last->run();
    const size_t len = last->run_size();
    const uint32_t* weights = nullptr;  // the run's, once a match asks
    uint32_t block = 0, tf = 0;
    // At the run's first match: each posting's values before it in the
    // block, all at once (summing up to each match as it came ended in a
    // mispredicted branch per match).
    uint64_t starts[kBlockSize];
    for (size_t k = 0; k < len && run[k] <= hi; ++k) {
      if (!Marked(marks, run[k] - lo)) continue;
      out->push_back(run[k]);
      if (last_spots == nullptr) continue;
      if (weights == nullptr) {
        uint64_t at = 0;
        if (len > kBlockSize || !last->PositionsAt(&block, &at, &tf) || (weights = last->run_weights()) == nullptr) {
          return false;
        }
        for (size_t i = 0; i < len; ++i) {
          starts[i] = at;
          at += weights[i];
        }
      }
      last_spots->push_back(block, starts[k], weights[k]);
    }
    if (run[len - 1] > hi) break;
  }
  for (size_t k = 0; k + 1 < n; ++k) {
    if (walked[k] != nullptr && !PickSpots(*walked[k], *out, from, spots[k])) return false;
  }
  return true;
}

}  // namespace

bool CollectIntersectionSpots(PostingCursor* const* c, size_t n, std::vector<DocId>* out, PostingSpots** spots) {
  const DocId lo = c[0]->doc(), hi = c[0]->last_doc();
  if (n > kMaxSpotLists || !PreferDenseOver(c, n, lo, hi)) return LeapfrogCollectSpots(c, n, out, spots);
  return DenseCollectSpots(c, n, lo, hi, out, spots);
}

bool PrefersDense(PostingCursor* const* c, size_t n) {
  return PreferDenseOver(c, n, c[0]->doc(), c[0]->last_doc());
}

uint64_t CountIntersection(PostingCursor* const* c, size_t n) {
  const DocId lo = c[0]->doc(), hi = c[0]->last_doc();
  if (PreferDenseOver(c, n, lo, hi)) return DenseCount(c, n, lo, hi);
  return LeapfrogCount(c, n);
}

void CollectIntersection(PostingCursor* const* c, size_t n, size_t limit,
                         std::vector<DocId>* out) {
  const DocId lo = c[0]->doc(), hi = c[0]->last_doc();
  // A small limit is reached long before the dense kernel's full pass pays.
  if (limit >= c[0]->df() && PreferDenseOver(c, n, lo, hi)) return DenseCollect(c, n, lo, hi, limit, out);
  LeapfrogCollect(c, n, limit, out);
}

}  // namespace dps
