#include "index/dense_phrase_pair.h"

#include <algorithm>
#include <string>

#include "index/position_merge.h"

namespace dps {

namespace {

// One word's side of the walk: its cursor's current decoded run, the
// posting reached in it, and where that posting's values start in the
// list's value stream.
class Side {
 public:
  Side(PostingCursor* cursor, PositionReader* positions) : c_(cursor), r_(positions) {}

  // Takes the cursor's current run (false at the list's end or on an
  // error, *status set then).
  bool Take(Status* status) {
    if (c_->doc() == kEndDoc) {
      *status = c_->status();
      return false;
    }
    uint32_t block = 0, tf = 0;
    uint64_t in_block = 0;
    const uint64_t start = c_->PositionsAt(&block, &in_block, &tf) ? r_->BlockValueStart(block) : UINT64_MAX;
    weights_ = start == UINT64_MAX ? nullptr : c_->run_weights();
    if (weights_ == nullptr) {
      *status = c_->status().ok() ? Status::Corruption("a phrase word's posting list and positions disagree")
                                  : c_->status();
      return false;
    }
    off_ = start + in_block;
    docs_ = c_->run();
    len_ = c_->run_size();
    k_ = 0;
    return true;
  }
  // Past the current run to the next.
  bool Next(Status* status) {
    c_->NextRun();
    return Take(status);
  }

  bool exhausted() const { return k_ == len_; }
  DocId doc() const { return docs_[k_]; }
  // Past the current posting (its values too).
  void Step() { off_ += weights_[k_++]; }
  // Past every posting below d in the run: false when the run ends first.
  bool StepBelow(DocId d) {
    while (k_ < len_ && docs_[k_] < d) off_ += weights_[k_++];
    return k_ < len_;
  }

  // The current posting's raw values (first position, then gaps minus
  // one): out of the value block decoded last when they lie there (nearly
  // always: a value block serves about a hundred postings), else through
  // ReadValues. False with *status set on corruption.
  bool Values(const uint32_t** out, uint32_t* tf, Status* status) {
    *tf = weights_[k_];
    if (*tf == 0 || off_ + *tf > r_->values()) return TooManyValues(status);
    *out = r_->Decoded(off_, *tf);
    return *out != nullptr || ReadValues(out, *tf, status);
  }

 private:
  [[gnu::noinline]] bool ReadValues(const uint32_t** out, uint32_t tf, Status* status) {
    if (scratch_.size() < tf) scratch_.resize(tf);
    *status = r_->Values(off_, tf, /*whole=*/true, scratch_.data(), out);
    return status->ok();
  }
  [[gnu::noinline]] static bool TooManyValues(Status* status) {
    *status = Status::Corruption("a phrase word has more positions at its postings than in its list");
    return false;
  }

  PostingCursor* c_;
  PositionReader* r_;
  const DocId* docs_ = nullptr;
  const uint32_t* weights_ = nullptr;
  size_t len_ = 0, k_ = 0;
  uint64_t off_ = 0;
  std::vector<uint32_t> scratch_;  // values spanning two value blocks
};

// The walk, with and without other lists (two loops: the pair's alone is
// the common case, and a check for others cost it 10% more instructions).
template <bool kOthers>
Status Walk(Side& a, Side& b, std::span<PostingCursor* const> others, PairPhraseMatches* out) {
  Status status;
  const bool first_only = out->occurrences == nullptr;
  for (;;) {
    DocId d;
    if constexpr (kOthers) {
      // Every other list and both sides on their next common document,
      // or done: d only grows until all stand on it. The other terms
      // first: often the sparser lists ("the" beside "1913 webster"),
      // they move d furthest.
      d = std::max(a.doc(), b.doc());
      for (;;) {
        DocId e = d;
        for (PostingCursor* o : others) {
          if ((e = o->Seek(d)) != d) break;
        }
        if (e == kEndDoc) {
          for (PostingCursor* o : others) DPS_RETURN_IF_ERROR(o->status());
          return Status::OK();
        }
        if (e != d) {  // every other list asked again at the new d
          d = e;
          continue;
        }
        while (!a.StepBelow(d)) {
          if (!a.Next(&status)) return status;
        }
        if (a.doc() != d) {
          d = a.doc();
          continue;
        }
        while (!b.StepBelow(d)) {
          if (!b.Next(&status)) return status;
        }
        if (b.doc() != d) {
          d = b.doc();
          continue;
        }
        break;
      }
    } else {
      // Both sides on their next common document, or done.
      d = b.doc();
      for (;;) {
        while (!a.StepBelow(d)) {
          if (!a.Next(&status)) return status;
        }
        if (a.doc() == d) break;
        d = a.doc();
        while (!b.StepBelow(d)) {
          if (!b.Next(&status)) return status;
        }
        if (b.doc() == d) break;
        d = b.doc();
      }
    }
    const uint32_t *v, *u;
    uint32_t tf0, tf1;
    if (!a.Values(&v, &tf0, &status) || !b.Values(&u, &tf1, &status)) return status;
    // The first word's positions plus one against the second's. Each word
    // once in the document (most postings of most words): one compare.
    uint64_t p = uint64_t{v[0]} + 1, q = u[0];
    uint32_t n = p == q;
    if ((tf0 | tf1) != 1) n = MergeOccurrences(v, tf0, u, tf1, first_only, &p, &q);
    // Positions ascend: the last read of each word is its largest read.
    if (p - 1 > kMaxPosition || q > kMaxPosition) {
      return Status::Corruption("a phrase's word has a position past " + std::to_string(kMaxPosition));
    }
    if (n > 0) {
      ++out->count;
      if (out->docs != nullptr) out->docs->push_back(d);
      if (out->occurrences != nullptr) out->occurrences->push_back(n);
      if (out->limit != 0 && out->count >= out->limit) return Status::OK();
    }
    a.Step();
    b.Step();
    if (a.exhausted() && !a.Next(&status)) return status;
    if (b.exhausted() && !b.Next(&status)) return status;
  }
}

}  // namespace

Status MatchDensePhrasePair(PostingCursor* first, PositionReader* first_positions, PostingCursor* second,
                            PositionReader* second_positions, std::span<PostingCursor* const> others,
                            PairPhraseMatches* out) {
  Side a(first, first_positions), b(second, second_positions);
  Status status;
  if (!a.Take(&status) || !b.Take(&status)) return status;
  return others.empty() ? Walk<false>(a, b, others, out) : Walk<true>(a, b, others, out);
}

}  // namespace dps
