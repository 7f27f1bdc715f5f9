#include "index/phrase_iterator.h"

#include <algorithm>
#include <numeric>

#include "index/candidate_runs.h"

namespace dps {

namespace {

// Sloppy matching (CountPhrase with slop > 0) for one first-word position:
// whether the other slots can take distinct positions (per word) whose
// offsets q_i - i lie in a window of width `slop` holding the first
// word's. A bipartite matching of slots to positions (Kuhn's augmenting
// paths): slots of one word compete for its positions.
class SloppyMatch {
 public:
  SloppyMatch(std::span<const std::vector<uint32_t>* const> slots, uint32_t slop) : slots_(slots), slop_(slop) {}

  bool At(uint32_t first) {
    const int64_t anchor = first;  // slot 0's offset
    for (int64_t lo = anchor - slop_; lo <= anchor; ++lo) {
      // Window [lo, lo + slop] of offsets; slot i's positions in [lo + i, lo + i + slop].
      owner_.clear();
      owner_.push_back({slots_[0], first, 0});
      bool all = true;
      for (size_t i = 1; i < slots_.size() && all; ++i) {
        seen_.clear();
        all = Assign(i, lo);
      }
      if (all) return true;
    }
    return false;
  }

 private:
  struct Taken {
    const std::vector<uint32_t>* list;
    uint32_t position;
    size_t slot;
  };
  // Gives slot i a position of its window, moving other slots if needed.
  bool Assign(size_t i, int64_t lo) {
    const std::vector<uint32_t>& list = *slots_[i];
    const int64_t from = std::max<int64_t>(0, lo + static_cast<int64_t>(i));
    const int64_t to = lo + static_cast<int64_t>(i) + slop_;
    if (from > to || from > int64_t{UINT32_MAX}) return false;
    for (auto it = std::lower_bound(list.begin(), list.end(), static_cast<uint32_t>(from));
         it != list.end() && static_cast<int64_t>(*it) <= to; ++it) {
      const uint32_t q = *it;
      bool visited = false;
      for (const auto& s : seen_) visited |= s.first == &list && s.second == q;
      if (visited) continue;
      seen_.emplace_back(&list, q);
      size_t holder = owner_.size();  // an index: Assign below may grow owner_
      for (size_t t = 0; t < owner_.size(); ++t) {
        if (owner_[t].list == &list && owner_[t].position == q) holder = t;
      }
      if (holder == owner_.size()) {
        owner_.push_back({&list, q, i});
        return true;
      }
      if (owner_[holder].slot == 0) continue;  // the first word's own position stays
      const size_t other = owner_[holder].slot;
      owner_[holder].slot = i;
      if (Assign(other, lo)) return true;
      owner_[holder].slot = other;
    }
    return false;
  }

  std::span<const std::vector<uint32_t>* const> slots_;
  int64_t slop_;
  std::vector<Taken> owner_;
  std::vector<std::pair<const std::vector<uint32_t>*, uint32_t>> seen_;
};

}  // namespace

uint32_t CountPhrase(std::span<const std::vector<uint32_t>* const> slots, uint32_t slop, bool first_only) {
  if (slop > 0) {
    SloppyMatch match(slots, slop);
    uint32_t count = 0;
    for (const uint32_t p : *slots[0]) {
      if (match.At(p) && (++count, first_only)) return count;
    }
    return count;
  }
  const size_t n = slots.size();
  size_t lead = 0;
  for (size_t i = 1; i < n; ++i) {
    if (slots[i]->size() < slots[lead]->size()) lead = i;
  }
  // One cursor per slot: starts only grow, so each list is walked once.
  size_t at[kMaxPhraseWords] = {};
  uint32_t count = 0;
  for (const uint32_t p : *slots[lead]) {
    if (p < lead) continue;
    const uint64_t start = p - lead;
    bool all = true;
    for (size_t i = 0; i < n && all; ++i) {
      if (i == lead) continue;
      const std::vector<uint32_t>& list = *slots[i];
      const uint64_t want = start + i;
      while (at[i] < list.size() && list[at[i]] < want) ++at[i];
      all = at[i] < list.size() && list[at[i]] == want;
    }
    if (all) {
      ++count;
      if (first_only) return count;
    }
  }
  return count;
}

PhraseMatcher::PhraseMatcher(std::vector<std::unique_ptr<PostingCursor>> cursors,
                             std::vector<std::unique_ptr<PostingPositions>> positions, std::vector<uint32_t> slot_word,
                             uint32_t slop, PhraseGather gather)
    : cursors_(std::move(cursors)), cursor_open_(cursors_.size(), true), positions_(std::move(positions)),
      slop_(slop), gather_(gather) {
  Init(slot_word);
}

void PhraseMatcher::Init(std::span<const uint32_t> slot_word) {
  if (at_.size() < cursors_.size()) at_.resize(cursors_.size());
  slots_.clear();
  for (uint32_t w : slot_word) slots_.push_back(&at_[w]);
  // Words are numbered in first appearance, so a phrase of distinct words
  // has word i at slot i.
  exact_distinct_ = slop_ == 0 && slot_word.size() == cursors_.size() && cursors_.size() <= kMaxPhraseWords;
  by_df_.clear();
  for (size_t w = 0; w < cursors_.size(); ++w) by_df_.push_back(static_cast<uint32_t>(w));
  std::stable_sort(by_df_.begin(), by_df_.end(),
                   [this](uint32_t a, uint32_t b) { return positions_[a]->df() < positions_[b]->df(); });
  const bool merge = gather_ == PhraseGather::kAuto || gather_ == PhraseGather::kMergeWhole ||
                     gather_ == PhraseGather::kMergeInPlace;
  readers_.clear();
  for (const auto& p : positions_) {
    if (merge && exact_distinct_ && p->in_file() != nullptr) readers_.push_back(p->in_file());
  }
  if (readers_.size() != positions_.size()) readers_.clear();  // an inline list: the gather reads it
}

bool PhraseMatcher::GatherSpotted(size_t w, const CandidateSpots& spots) {
  PostingPositions& positions = *positions_[w];
  const PostingSpots& word = *spots.words[w];
  const size_t m = cand_.size();
  uint64_t at = 0;
  for (size_t i = 0; i < m; ++i) {
    const uint32_t row = spots.rows[cand_index_[i]];
    spot_blocks_[i] = word.blocks[row];
    spot_in_blocks_[i] = word.in_blocks[row];
    spot_tfs_[i] = word.tfs[row];
    gathered_at_[i] = at;
    at += word.tfs[row];
  }
  gathered_at_[m] = at;
  // Checked before anything is sized by it: the weights could be damaged.
  if (at > positions.values()) {
    status_ = Status::Corruption("a phrase's word has more positions at its candidates than in its list");
    return false;
  }
  if (gathered_.size() < at) gathered_.resize(std::max<uint64_t>(at, 2 * gathered_.size()));
  status_ = positions.GetMany(spot_blocks_.data(), spot_in_blocks_.data(), spot_tfs_.data(), m, gathered_.data());
  return status_.ok();
}

bool PhraseMatcher::Gather(size_t w, const CandidateSpots* spots) {
  PostingPositions& positions = *positions_[w];
  const size_t m = cand_.size();
  spot_blocks_.resize(m);
  spot_in_blocks_.resize(m);
  spot_tfs_.resize(m);
  gathered_at_.resize(m + 1);
  if (spots != nullptr && spots->words[w] != nullptr) return GatherSpotted(w, *spots);
  uint64_t at = 0;
  size_t pending = m;  // the first candidate of the batch left for GetMany (m: none)
  auto flush = [&](size_t upto) {
    if (pending >= upto) return true;
    status_ = positions.GetMany(spot_blocks_.data() + pending, spot_in_blocks_.data() + pending, spot_tfs_.data() + pending,
                                upto - pending, gathered_.data() + gathered_at_[pending]);
    pending = m;
    return status_.ok();
  };
  // Raw pointers: stores through the vectors' could alias the candidates,
  // and the compiler would load each again every step.
  uint32_t* spot_blocks = spot_blocks_.data();
  uint64_t* spot_in_blocks = spot_in_blocks_.data();
  uint32_t* spot_tfs = spot_tfs_.data();
  size_t* gathered_at = gathered_at_.data();
  uint32_t run_block = 0;
  uint64_t run_in_block = 0, demand = 0;
  bool missing = false;
  const bool done = ForEachCandidateRun(
      *cursors_[w], cand_.data(), m, &missing,
      [&](uint32_t block, uint64_t in_block, size_t) {
        run_block = block;
        run_in_block = in_block;
        demand = 0;
        return true;
      },
      [&](size_t i, uint64_t off, uint32_t weight) {
        spot_blocks[i] = run_block;
        spot_in_blocks[i] = run_in_block + off;
        spot_tfs[i] = weight;
        gathered_at[i] = at + demand;
        demand += weight;
        return true;
      },
      [&](size_t first, size_t i) {
        // Checked before anything is sized by it: the run's weights could
        // be damaged.
        if (demand > positions.values() - std::min<uint64_t>(at, positions.values())) {
          status_ = Status::Corruption("a phrase's word has more positions at its candidates than in its list");
          return false;
        }
        at += demand;
        // Grown, never shrunk: a resize down then up would zero it again.
        if (gathered_.size() < at) gathered_.resize(std::max<uint64_t>(at, 2 * gathered_.size()));
        // Dense: the values the run's candidates ask are a good share of
        // those their postings span (the value blocks the span touches),
        // so decoding those blocks whole beats reading values in place.
        const uint64_t span = spot_in_blocks[i - 1] + spot_tfs[i - 1] - spot_in_blocks[first];
        const bool dense = gather_ == PhraseGather::kRuns ||
                           (gather_ != PhraseGather::kPerPosting && demand * kDenseRatio >= span + kBlockSize);
        if (!dense) {
          if (pending == m) pending = first;
          return true;
        }
        if (!flush(first)) return false;
        status_ = positions.GetRun(run_block, spot_in_blocks + first, spot_tfs + first, i - first,
                                   gathered_.data() + gathered_at[first]);
        return status_.ok();
      });
  if (!done) return missing ? Fail(*cursors_[w]) : false;
  gathered_at[m] = at;
  return flush(m);
}

bool PhraseMatcher::Fail(PostingCursor& c) {
  status_ = c.status().ok() ? Status::Corruption("a phrase candidate is missing from its word's list") : c.status();
  return false;
}

bool PhraseMatcher::Read(size_t w, std::vector<uint32_t>* out) {
  PostingCursor& c = *cursors_[w];
  uint32_t block = 0, tf = 0;
  uint64_t in_block = 0;
  if (!c.PositionsAt(&block, &in_block, &tf)) return Fail(c);
  out->resize(tf);
  status_ = positions_[w]->Get(block, in_block, tf, out->data());
  return status_.ok();
}

bool PhraseMatcher::CountAt(DocId d, bool first_only, uint32_t* count) {
  for (size_t w = 0; w < cursors_.size(); ++w) {
    if (cursors_[w]->Seek(d) != d) return Fail(*cursors_[w]);
    if (!Read(w, &at_[w])) return false;
  }
  *count = CountPhrase(slots_, slop_, first_only);
  return true;
}

bool PhraseMatcher::Filter(std::span<const DocId> candidates, std::vector<uint32_t>* kept,
                           std::vector<uint32_t>* occurrences, const CandidateSpots* spots) {
  for (size_t w = 0; w < cursor_open_.size(); ++w) {
    if (!cursor_open_[w] && (spots == nullptr || spots->words[w] == nullptr)) {
      status_ = Status::InvalidArgument("a phrase word's spots were promised and not given");
      return false;
    }
  }
  if (!exact_distinct_) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      uint32_t count = 0;
      if (!CountAt(candidates[i], /*first_only=*/occurrences == nullptr, &count)) return false;
      if (count == 0) continue;
      kept->push_back(static_cast<uint32_t>(i));
      if (occurrences != nullptr) occurrences->push_back(count);
    }
    return true;
  }
  if (!readers_.empty()) return FilterByMerge(candidates, kept, occurrences, spots);
  cand_.assign(candidates.begin(), candidates.end());
  cand_index_.resize(cand_.size());
  for (size_t i = 0; i < cand_.size(); ++i) cand_index_[i] = static_cast<uint32_t>(i);
  // The rarest word's positions give each candidate's possible starts
  // (word w stands at start + w).
  const uint32_t lead = by_df_[0];
  if (!Gather(lead, spots)) return false;
  // Raw pointers below: stores through the vectors' could alias the
  // arrays read, and the compiler would load each again every step.
  const size_t* g_at = gathered_at_.data();
  const uint32_t* g = gathered_.data();
  if (batch_starts_.size() < g_at[cand_.size()]) {
    batch_starts_.resize(std::max(g_at[cand_.size()], 2 * batch_starts_.size()));
  }
  start_at_.resize(cand_.size() + 1);
  uint32_t* starts = batch_starts_.data();
  size_t* s_at = start_at_.data();
  DocId* cand = cand_.data();
  uint32_t* cand_index = cand_index_.data();
  s_at[0] = 0;
  size_t live = 0, n = 0;
  for (size_t i = 0; i < cand_.size(); ++i) {
    const size_t before = n;
    for (size_t k = g_at[i]; k < g_at[i + 1]; ++k) {
      starts[n] = g[k] - lead;  // n <= k: within the array sized above
      n += g[k] >= lead;
    }
    if (n == before) continue;  // no start: the candidate fails
    cand[live] = cand[i];
    cand_index[live++] = cand_index[i];
    s_at[live] = n;
  }
  cand_.resize(live);
  start_at_.resize(live + 1);
  // Each other word, fewest postings first, keeps the starts it confirms.
  for (size_t k = 1; k < by_df_.size() && !cand_.empty(); ++k) {
    const uint32_t w = by_df_[k];
    if (!Gather(w, spots)) return false;
    g_at = gathered_at_.data();
    g = gathered_.data();
    s_at = start_at_.data();
    size_t kept_starts = 0;
    live = 0;
    size_t from = s_at[0];
    for (size_t i = 0; i < cand_.size(); ++i) {
      const size_t to = s_at[i + 1];
      const size_t first_kept = kept_starts;
      size_t j = g_at[i];
      const size_t j_end = g_at[i + 1];
      for (size_t t = from; t < to; ++t) {
        const uint64_t want = uint64_t{starts[t]} + w;
        while (j < j_end && g[j] < want) ++j;
        if (j == j_end) break;
        if (g[j] == want) starts[kept_starts++] = starts[t];
      }
      from = to;
      if (kept_starts == first_kept) continue;
      cand[live] = cand[i];
      cand_index[live] = cand_index[i];
      s_at[++live] = kept_starts;
    }
    cand_.resize(live);
    start_at_.resize(live + 1);
  }
  // A candidate's surviving starts are its occurrences.
  for (size_t i = 0; i < cand_.size(); ++i) {
    kept->push_back(cand_index_[i]);
    if (occurrences != nullptr) occurrences->push_back(static_cast<uint32_t>(start_at_[i + 1] - start_at_[i]));
  }
  return true;
}

PhraseIterator::PhraseIterator(std::vector<std::unique_ptr<TermIterator>> words, std::vector<uint32_t> slot_word,
                               uint32_t slop)
    : words_(std::move(words)), slot_word_(std::move(slot_word)), positions_(words_.size()), slop_(slop) {
  order_.resize(words_.size());
  std::iota(order_.begin(), order_.end(), size_t{0});
  std::stable_sort(order_.begin(), order_.end(),
                   [this](size_t a, size_t b) { return words_[a]->cost() < words_[b]->cost(); });
  for (uint32_t w : slot_word_) slots_.push_back(&positions_[w]);
  doc_ = Settle(words_[order_[0]]->doc());
}

bool PhraseIterator::ReadPositions() {
  for (size_t w = 0; w < words_.size(); ++w) {
    status_ = words_[w]->Positions(&positions_[w]);
    if (!status_.ok()) return false;
  }
  return true;
}

DocId PhraseIterator::Settle(DocId candidate) {
  TermIterator& lead = *words_[order_[0]];
  for (;;) {
    // Leapfrog: every word on one docid.
    DocId d = lead.Seek(candidate);
    size_t i = 1;
    while (d != kEndDoc && i < order_.size()) {
      const DocId e = words_[order_[i]]->Seek(d);
      if (e == d) {
        ++i;
      } else {
        d = lead.Seek(e);
        i = 1;
      }
    }
    if (d == kEndDoc) {
      for (const auto& w : words_) {
        if (!w->status().ok()) status_ = w->status();
      }
      return kEndDoc;
    }
    if (!ReadPositions()) return kEndDoc;
    if (CountPhrase(slots_, slop_, /*first_only=*/true) > 0) return d;
    candidate = d + 1;
    if (candidate == kEndDoc) return kEndDoc;
  }
}

DocId PhraseIterator::Next() {
  if (doc_ == kEndDoc) return kEndDoc;
  return doc_ = doc_ + 1 == kEndDoc ? kEndDoc : Settle(doc_ + 1);
}

DocId PhraseIterator::Seek(DocId target) {
  if (doc_ == kEndDoc || doc_ >= target) return doc_;
  return doc_ = Settle(target);
}

uint32_t PhraseIterator::Occurrences() { return CountPhrase(slots_, slop_, /*first_only=*/false); }

}  // namespace dps
