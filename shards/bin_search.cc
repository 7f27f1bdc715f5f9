#include "shards/bin_search.h"

#include <algorithm>
#include <memory>

#include "index/dense_phrase_pair.h"
#include "index/intersect.h"

namespace dps {

namespace {
constexpr size_t kCancelCheckInterval = 4096;
// Longer conjunctions take the iterator tree.
constexpr size_t kMaxFastPathTerms = 16;

// The candidates of a phrase conjunction that hold its phrases, counted or
// collected (up to the limit). refs[k] is the list of the plan's
// and_entries[k] in `file`; spots[k] its postings at the candidates when
// the kernel recorded them, else null (the phrase check walks that list).
Status FilterByPhrases(const TabletReader& file, const BinQuery& req, const PostingRef* refs,
                       const std::vector<DocId>& candidates, const PostingSpots* const* spots, BinMatches* resp) {
  const QueryPlan& plan = *req.plan;
  // plan.phrases name their words by highlight index, which is the word's
  // entry (PlanConjunction); refs[k] is and_entries[k]'s.
  auto slot_of = [&](size_t entry) {
    return static_cast<size_t>(std::find(plan.and_entries.begin(), plan.and_entries.end(), entry) -
                               plan.and_entries.begin());
  };
  auto ref_of = [&](size_t entry) -> const PostingRef* {
    const size_t k = slot_of(entry);
    return k == plan.and_entries.size() ? nullptr : &refs[k];
  };
  const bool occurrences = req.phrase_occurrences && !req.count_only;
  if (occurrences) resp->phrase_occurrences.assign(plan.phrases.size(), {});
  // No candidate: no list to open (most bins of a rare phrase).
  if (candidates.empty()) return Status::OK();
  // This thread's matchers, reopened for each bin (PhraseMatcher::Reopen),
  // and each phrase's words' spots (the kernel's), by distinct word.
  thread_local std::vector<std::unique_ptr<PhraseMatcher>> pool;
  while (pool.size() < plan.phrases.size()) pool.push_back(std::make_unique<PhraseMatcher>());
  thread_local std::vector<CandidateSpots> phrase_spots;
  phrase_spots.assign(plan.phrases.size(), CandidateSpots());
  thread_local PhraseSlots slots;
  for (size_t k = 0; k < plan.phrases.size(); ++k) {
    const std::vector<size_t>& phrase = plan.phrases[k];
    SplitPhraseInto(std::span<const size_t>(phrase), &slots);
    for (size_t d = 0; d < slots.first.size(); ++d) {
      const size_t k_of = slot_of(phrase[slots.first[d]]);
      phrase_spots[k].words[d] = k_of < plan.and_entries.size() ? spots[k_of] : nullptr;
    }
    DPS_RETURN_IF_ERROR(pool[k]->Reopen(
        slots.first.size(), slots.slot_word, plan.phrase_slops[k],
        [&](size_t d, PostingCursor* cursor, PostingPositions* positions) {
          const size_t w = phrase[slots.first[d]];
          const PostingRef* ref = ref_of(w);
          if (ref == nullptr) return Status::InvalidArgument("phrase word '" + plan.highlight[w] + "' was not planned");
          if (cursor != nullptr) DPS_RETURN_IF_ERROR(file.OpenCursor(*ref, cursor));
          return file.OpenPositions(*ref, positions);
        },
        &phrase_spots[k]));
  }
  const std::span<const std::unique_ptr<PhraseMatcher>> matchers(pool.data(), plan.phrases.size());
  // A window of candidates at a time through every phrase, so a limited
  // query stops early and a batch's buffers stay small.
  constexpr size_t kWindow = 1024;
  // This thread's buffers, kept from bin to bin (their allocations were a
  // few percent of a cheap phrase count).
  thread_local std::vector<DocId> alive;
  thread_local std::vector<uint32_t> alive_rows;  // each live candidate's index in `candidates`: its spots' row
  thread_local std::vector<uint32_t> kept;
  thread_local std::vector<std::vector<uint32_t>> occ;
  if (occ.size() < matchers.size()) occ.resize(matchers.size());
  for (size_t from = 0; from < candidates.size(); from += kWindow) {
    const size_t to = std::min(candidates.size(), from + kWindow);
    alive.assign(candidates.begin() + static_cast<ptrdiff_t>(from), candidates.begin() + static_cast<ptrdiff_t>(to));
    alive_rows.resize(alive.size());
    for (size_t i = 0; i < alive.size(); ++i) alive_rows[i] = static_cast<uint32_t>(from + i);
    for (size_t p = 0; p < matchers.size() && !alive.empty(); ++p) {
      kept.clear();
      occ[p].clear();
      phrase_spots[p].rows = alive_rows.data();
      if (!matchers[p]->Filter(alive, &kept, occurrences ? &occ[p] : nullptr, &phrase_spots[p])) {
        return matchers[p]->status();
      }
      // The survivors, and the earlier phrases' occurrences of them.
      for (size_t i = 0; i < kept.size(); ++i) {
        alive[i] = alive[kept[i]];
        alive_rows[i] = alive_rows[kept[i]];
        for (size_t q = 0; occurrences && q < p; ++q) occ[q][i] = occ[q][kept[i]];
      }
      alive.resize(kept.size());
      alive_rows.resize(kept.size());
      for (size_t q = 0; occurrences && q < p; ++q) occ[q].resize(kept.size());
    }
    for (size_t i = 0; i < alive.size(); ++i) {
      ++resp->count;
      if (!req.count_only) resp->docs.push_back(alive[i]);
      for (size_t p = 0; occurrences && p < matchers.size(); ++p) resp->phrase_occurrences[p].push_back(occ[p][i]);
      if (req.limit != 0 && resp->count >= req.limit) return Status::OK();
    }
  }
  return Status::OK();
}

// Whether the plan's and_entries[k] is a word of one of its phrases.
bool PhraseWord(const QueryPlan& plan, size_t k) {
  const size_t entry = plan.and_entries[k];
  return std::any_of(plan.phrases.begin(), plan.phrases.end(), [entry](const std::vector<size_t>& phrase) {
    return std::find(phrase.begin(), phrase.end(), entry) != phrase.end();
  });
}

// A conjunction of one phrase of two distinct words (slop 0) and perhaps
// terms, whose lists are long and of similar length (the dense kernel's
// case): the words' lists walked once together, the terms' sought at their
// common documents (index/dense_phrase_pair.h), not the candidates then
// each word's positions at them. cursors[k] is and_entries[k]'s, opened;
// by_df the same cursors, rarest first. *paired when it answered.
Status TryDensePhrasePair(const TabletReader& file, const BinQuery& req, const PostingRef* refs,
                          const std::unique_ptr<PostingCursor>* cursors, PostingCursor* const* by_df,
                          BinMatches* resp, bool* paired) {
  *paired = false;
  const QueryPlan& plan = *req.plan;
  const size_t n = plan.and_entries.size();
  if (n < 2 || plan.phrases.size() != 1 || plan.phrase_slops[0] != 0) return Status::OK();
  const std::vector<size_t>& phrase = plan.phrases[0];
  if (phrase.size() != 2 || phrase[0] == phrase[1] || !PrefersDense(by_df, n)) return Status::OK();
  size_t k[2];
  for (size_t w = 0; w < 2; ++w) {
    k[w] = static_cast<size_t>(std::find(plan.and_entries.begin(), plan.and_entries.end(), phrase[w]) -
                               plan.and_entries.begin());
    if (k[w] == plan.and_entries.size()) return Status::OK();
  }
  // Whenever the dense kernel would find the candidates: the walk pays per
  // posting of both words (a branch on which is ahead), the general path
  // per candidate and per posting (marks, spots, value offsets). Session 25
  // kept the walk for pairs whose expected common documents (df0 df1 / N)
  // were at least 1/8 of their postings, after "ly he" mispredicted 3x more
  // walked; counted over both phrase sets with a mispredict as 40
  // instructions, walking every such pair costs 10% less on gcide (the
  // heavy tenth 10.5% less) and 11% less at linuxdoc's median, and "ly he"
  // 15% more (bench/RESULTS.md, session 26).
  thread_local PostingPositions positions[2];
  for (size_t w = 0; w < 2; ++w) {
    DPS_RETURN_IF_ERROR(file.OpenPositions(refs[k[w]], &positions[w]));
    if (positions[w].in_file() == nullptr) return Status::OK();  // kept inline: a short list, not this case
  }
  *paired = true;
  const bool occurrences = req.phrase_occurrences && !req.count_only;
  if (occurrences) resp->phrase_occurrences.assign(1, {});
  PostingCursor* others[kMaxFastPathTerms];
  size_t m = 0;
  for (size_t e = 0; e < n; ++e) {
    if (e != k[0] && e != k[1]) others[m++] = cursors[e].get();
  }
  PairPhraseMatches out;
  out.docs = req.count_only ? nullptr : &resp->docs;
  out.occurrences = occurrences ? &resp->phrase_occurrences[0] : nullptr;
  out.limit = req.limit;
  DPS_RETURN_IF_ERROR(MatchDensePhrasePair(cursors[k[0]].get(), positions[0].in_file(), cursors[k[1]].get(),
                                           positions[1].in_file(), {others, m}, &out));
  resp->count = out.count;
  return Status::OK();
}

// The fast path applies when the bin's postings for every term sit in one
// file and nothing in the bin is deleted: then plain cursors are exact.
Status TryFastPath(const Tablet& tablet, const BinQuery& req, BinMatches* resp, bool* done) {
  *done = false;
  const std::vector<size_t>& and_entries = req.plan->and_entries;
  if (!tablet.deleted(req.bin).empty() || and_entries.size() > kMaxFastPathTerms) {
    return Status::OK();
  }
  const TabletReader* file = nullptr;
  for (const auto& f : tablet.files()) {
    if (f->FindBin(req.bin) < 0) continue;
    if (file != nullptr) return Status::OK();  // several files hold this bin
    file = f.get();
  }
  *done = true;
  if (file == nullptr) return Status::OK();
  const size_t n = and_entries.size();
  // Cursors are about 1 KiB each: reuse this thread's instead of allocating
  // per term per bin.
  thread_local std::vector<std::unique_ptr<PostingCursor>> pool;
  while (pool.size() < n) pool.push_back(std::make_unique<PostingCursor>());
  // Also reused: a fresh array of kMaxFastPathTerms refs was zeroed per bin
  // (a third of this function's time on short queries).
  thread_local std::vector<PostingRef> refs;
  if (refs.size() < n) refs.resize(n);
  for (size_t k = 0; k < n; ++k) {
    // The global index already says where the postings are.
    const auto span = req.plan->terms.entries[and_entries[k]].second.RefsOf(req.bin);
    if (span.empty()) return Status::OK();  // a term absent from this bin: no match
    const TabletReader* holder;
    DPS_RETURN_IF_ERROR(tablet.ResolveRef(span[0], &holder, &refs[k]));
    if (span.size() != 1 || holder != file) {
      return Status::Corruption("global index names a file that does not hold bin " +
                                std::to_string(req.bin.value));
    }
  }
  resp->fast_path = true;
  const bool phrases = req.plan->phrase_and;
  if (n == 1 && req.count_only && !phrases) {  // nothing is deleted here: the count is the df
    resp->count = refs[0].df;
    return Status::OK();
  }
  PostingCursor* ptrs[kMaxFastPathTerms];
  for (size_t k = 0; k < n; ++k) {
    DPS_RETURN_IF_ERROR(file->OpenCursor(refs[k], pool[k].get()));
    ptrs[k] = pool[k].get();
  }
  // Rarest in this bin leads.
  std::sort(ptrs, ptrs + n, [](PostingCursor* a, PostingCursor* b) { return a->df() < b->df(); });
  if (phrases) {
    bool paired = false;
    DPS_RETURN_IF_ERROR(TryDensePhrasePair(*file, req, refs.data(),
                                           pool.data(), ptrs, resp, &paired));
    if (paired) return Status::OK();
    // Every candidate holds every word; the phrases are checked on them
    // alone. The kernel notes where the phrase words' postings are at the
    // candidates as it meets them, which the phrase check would otherwise
    // find by walking the lists again.
    thread_local std::vector<PostingSpots> spots;  // by and_entries index, reused
    if (spots.size() < n) spots.resize(n);
    PostingSpots* by_cursor[kMaxFastPathTerms] = {};
    for (size_t k = 0; k < n; ++k) {
      if (!PhraseWord(*req.plan, k)) continue;
      spots[k].clear();
      by_cursor[std::find(ptrs, ptrs + n, pool[k].get()) - ptrs] = &spots[k];
    }
    thread_local std::vector<DocId> candidates;  // reused, as the spots
    candidates.clear();
    const bool spotted = CollectIntersectionSpots(ptrs, n, &candidates, by_cursor);
    for (size_t k = 0; k < n; ++k) DPS_RETURN_IF_ERROR(ptrs[k]->status());
    if (!spotted) return Status::Corruption("a phrase word's posting has no weight");
    const PostingSpots* by_entry[kMaxFastPathTerms] = {};  // null: not recorded
    for (size_t k = 0; k < n; ++k) by_entry[k] = by_cursor[std::find(ptrs, ptrs + n, pool[k].get()) - ptrs];
    return FilterByPhrases(*file, req, refs.data(), candidates, by_entry, resp);
  }
  if (req.count_only) {
    resp->count = CountIntersection(ptrs, n);
  } else {
    CollectIntersection(ptrs, n, req.limit == 0 ? SIZE_MAX : req.limit, &resp->docs);
    resp->count = resp->docs.size();
  }
  for (size_t k = 0; k < n; ++k) DPS_RETURN_IF_ERROR(ptrs[k]->status());
  return Status::OK();
}

}  // namespace

// The bin's matches, up to req.limit.
static Status SearchBinUpTo(const Tablet& tablet, const BinQuery& req, BinMatches* resp) {
  const QueryPlan& plan = *req.plan;
  if ((plan.pure_and || plan.phrase_and) && !plan.and_entries.empty()) {
    bool done = false;
    DPS_RETURN_IF_ERROR(TryFastPath(tablet, req, resp, &done));
    if (done) return Status::OK();
  }
  DPS_ASSIGN_OR_RETURN(auto it, BuildIterator(tablet, req.bin, plan.root, plan.terms));
  size_t since_check = 0;
  for (DocId d = it->doc(); d != kEndDoc; d = it->Next()) {
    ++resp->count;
    if (!req.count_only) resp->docs.push_back(d);
    if (req.limit != 0 && resp->count >= req.limit) break;
    if (++since_check == kCancelCheckInterval) {
      since_check = 0;
      if (req.cancel != nullptr && req.cancel->load(std::memory_order_relaxed)) {
        resp->cancelled = true;
        break;
      }
    }
  }
  return it->status();
}

// One match past the limit is sought, so that a bin cut by the limit says
// so (BinStats' truncated flag) and one holding exactly `limit` does not.
Status SearchBin(const Tablet& tablet, const BinQuery& req, BinMatches* resp) {
  if (req.limit == 0) return SearchBinUpTo(tablet, req, resp);
  BinQuery one_more = req;
  one_more.limit = req.limit + 1;
  DPS_RETURN_IF_ERROR(SearchBinUpTo(tablet, one_more, resp));
  if (resp->count <= req.limit) return Status::OK();
  resp->limited = true;
  resp->count = req.limit;
  if (resp->docs.size() > req.limit) resp->docs.resize(req.limit);
  for (auto& occurrences : resp->phrase_occurrences) {
    if (occurrences.size() > req.limit) occurrences.resize(req.limit);
  }
  return Status::OK();
}

}  // namespace dps
