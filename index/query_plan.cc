#include "index/query_plan.h"

#include <algorithm>
#include <iterator>

namespace dps {

namespace {

class BinSets {
 public:
  // `known`: entries read already (a prefix's expansions), or null.
  BinSets(const GlobalIndexReader* global, TermTable* table, KnownTerms* known)
      : global_(global), table_(table), known_(known) {}

  // Bins where `node` can match, into *out. Negated children of an AND
  // restrict nothing (they only subtract), but their terms are looked up
  // too.
  Status Of(const QueryNode& node, std::vector<BinId>* out) {
    if (node.kind == QueryNode::Kind::kTerm) {
      DPS_ASSIGN_OR_RETURN(const GlobalTermInfo* info, Lookup(node.term));
      info->Bins(out);
      return Status::OK();
    }
    if (node.kind == QueryNode::Kind::kPhrase) {  // the bins holding every word
      DPS_RETURN_IF_ERROR(Of(node.children[0], out));
      for (size_t i = 1; i < node.children.size(); ++i) {
        DPS_ASSIGN_OR_RETURN(const GlobalTermInfo* info, Lookup(node.children[i].term));
        out->erase(std::remove_if(out->begin(), out->end(), [info](BinId b) { return info->RefsOf(b).empty(); }),
                   out->end());
      }
      return Status::OK();
    }
    out->clear();
    bool first = true;
    std::vector<BinId> child, merged;
    for (const auto& c : node.children) {
      if (c.negated) {
        DPS_RETURN_IF_ERROR(Of(c, &child));
        continue;
      }
      if (!first && node.kind == QueryNode::Kind::kAnd && c.kind == QueryNode::Kind::kTerm) {
        // In place, straight from the refs: keep the bins this term has.
        DPS_ASSIGN_OR_RETURN(const GlobalTermInfo* info, Lookup(c.term));
        out->erase(std::remove_if(out->begin(), out->end(),
                                  [info](BinId b) { return info->RefsOf(b).empty(); }),
                   out->end());
        continue;
      }
      DPS_RETURN_IF_ERROR(Of(c, first ? out : &child));
      if (first) {
        first = false;
      } else if (node.kind == QueryNode::Kind::kAnd) {
        out->erase(std::remove_if(out->begin(), out->end(),
                                  [&child](BinId b) {
                                    return !std::binary_search(child.begin(), child.end(), b);
                                  }),
                   out->end());
      } else {
        merged.clear();
        std::set_union(out->begin(), out->end(), child.begin(), child.end(),
                       std::back_inserter(merged));
        out->swap(merged);
      }
    }
    return Status::OK();
  }

  Result<const GlobalTermInfo*> Lookup(const std::string& term) {
    DPS_ASSIGN_OR_RETURN(size_t e, Entry(term));
    return &table_->entries[e].second;
  }
  Result<size_t> Entry(const std::string& term) { return table_->Add(global_, term, known_); }

 private:
  const GlobalIndexReader* global_;
  TermTable* table_;
  KnownTerms* known_;
};

void DropBinsOutOfRange(uint32_t bins, QueryPlan* plan) {
  plan->bins.erase(std::remove_if(plan->bins.begin(), plan->bins.end(),
                                  [bins](BinId b) { return b.value >= bins; }),
                   plan->bins.end());
  plan->empty = plan->bins.empty();
}

bool IsPureConjunction(const QueryNode& root) {
  if (root.kind == QueryNode::Kind::kTerm) return !root.negated;
  return root.kind == QueryNode::Kind::kAnd &&
         std::all_of(root.children.begin(), root.children.end(), [](const QueryNode& c) {
           return c.kind == QueryNode::Kind::kTerm && !c.negated;
         });
}

// A conjunction of terms and phrases with at least one phrase (a phrase
// alone too): every word is required, so it is planned as the conjunction
// of its words, and the phrases are checked on that conjunction's matches.
bool IsPhraseConjunction(const QueryNode& root) {
  if (root.kind == QueryNode::Kind::kPhrase) return !root.negated;
  if (root.kind != QueryNode::Kind::kAnd) return false;
  bool phrase = false;
  for (const auto& c : root.children) {
    if (c.negated || (c.kind != QueryNode::Kind::kTerm && c.kind != QueryNode::Kind::kPhrase)) return false;
    phrase |= c.kind == QueryNode::Kind::kPhrase;
  }
  return phrase;
}

// The common query, a conjunction of terms, planned straight from its
// distinct terms (plan->highlight): their entries are looked up together
// and sit in that order, the bins are the rarest term's bins that every
// other term's refs also name (one merge per term), and no tree is walked.
Status PlanConjunction(const GlobalIndexReader* global, uint32_t bins, KnownTerms* known, QueryPlan* plan) {
  TermTable& table = plan->terms;
  DPS_RETURN_IF_ERROR(table.AddAll(global, plan->highlight, known));  // entries[i] is highlight[i]
  const size_t n = table.entries.size();
  plan->pure_and = true;
  plan->and_entries.resize(n);
  for (size_t i = 0; i < n; ++i) plan->and_entries[i] = i;
  std::sort(plan->and_entries.begin(), plan->and_entries.end(), [&table](size_t a, size_t b) {
    const uint64_t da = table.entries[a].second.df, db = table.entries[b].second.df;
    return da != db ? da < db : a < b;
  });
  table.entries[plan->and_entries[0]].second.Bins(&plan->bins);
  for (size_t k = 1; k < n && !plan->bins.empty(); ++k) {
    const auto& refs = table.entries[plan->and_entries[k]].second.refs;
    size_t r = 0, kept = 0;
    for (const BinId b : plan->bins) {
      while (r < refs.size() && refs[r].bin < b.value) ++r;
      if (r < refs.size() && refs[r].bin == b.value) plan->bins[kept++] = b;
    }
    plan->bins.resize(kept);
  }
  DropBinsOutOfRange(bins, plan);
  for (const auto& [term, info] : table.entries) plan->estimated_postings += info.df;
  // Led by a rare term, a conjunction seeks the others once per candidate
  // (a seek decodes at most a 32-docid part), so its cost follows the
  // rarest list, however long the others are.
  if (n > 1) {
    const uint64_t rarest = table.entries[plan->and_entries[0]].second.df;
    plan->estimated_postings = std::min(plan->estimated_postings, rarest * 32 * n);
  }
  return Status::OK();
}

bool HasPhrase(const QueryNode& node) {
  if (node.kind == QueryNode::Kind::kPhrase) return true;
  return std::any_of(node.children.begin(), node.children.end(), HasPhrase);
}

// Which highlight terms score as bare terms, and the phrases' words.
void PlanClauses(QueryPlan* plan) {
  plan->scored_terms.assign(plan->highlight.size(), true);
  if (!HasPhrase(plan->root)) return;
  std::vector<std::string> bare;
  std::vector<PhraseClause> phrases;
  PositiveClauses(plan->root, &bare, &phrases);
  if (phrases.empty()) return;
  auto index_of = [plan](const std::string& t) {
    return static_cast<size_t>(std::find(plan->highlight.begin(), plan->highlight.end(), t) - plan->highlight.begin());
  };
  for (size_t i = 0; i < plan->highlight.size(); ++i) {
    plan->scored_terms[i] = std::find(bare.begin(), bare.end(), plan->highlight[i]) != bare.end();
  }
  for (const auto& clause : phrases) {
    std::vector<size_t>& p = plan->phrases.emplace_back();
    for (const auto& w : clause.words) p.push_back(index_of(w));
    plan->phrase_slops.push_back(clause.slop);
  }
}

}  // namespace

void QueryPlan::Clear() {
  // The containers whose room is worth keeping go into a new plan (so a
  // field added to QueryPlan is reset without a line here), emptied.
  QueryPlan fresh;
  fresh.bins.swap(bins);
  fresh.terms.entries.swap(terms.entries);
  fresh.and_entries.swap(and_entries);
  fresh.highlight.swap(highlight);
  fresh.scored_terms.swap(scored_terms);
  fresh.bins.clear();
  fresh.terms.Clear();
  fresh.and_entries.clear();
  fresh.highlight.clear();
  fresh.scored_terms.clear();
  *this = std::move(fresh);
}

Result<QueryPlan> PlanQuery(QueryNode root, const GlobalIndexReader* global, uint32_t bins,
                            uint64_t max_expansions) {
  QueryPlan plan;
  DPS_RETURN_IF_ERROR(PlanQueryInto(std::move(root), global, bins, max_expansions, &plan));
  return plan;
}

Status PlanQueryInto(QueryNode root_node, const GlobalIndexReader* global, uint32_t bins, uint64_t max_expansions,
                     QueryPlan* out) {
  out->Clear();
  QueryPlan& plan = *out;
  plan.root = std::move(root_node);
  std::optional<KnownTerms> expansions;  // the prefixes' terms, read by the dictionary walk
  if (HasPrefix(plan.root)) {
    plan.written = PositiveSnippetTerms(plan.root);
    if (global == nullptr) {  // no commit yet: nothing to expand into
      plan.empty = true;
      return Status::OK();
    }
    DPS_RETURN_IF_ERROR(ExpandPrefixes(&plan.root, *global, max_expansions, &expansions.emplace()));
  }
  KnownTerms* known = expansions ? &*expansions : nullptr;
  const QueryNode& root = plan.root;
  plan.highlight.reserve(4);
  PositiveTerms(root, &plan.highlight);
  PlanClauses(&plan);
  if (global == nullptr) {
    plan.empty = true;
    return Status::OK();
  }
  if (!global->positions() && HasPhrase(root)) {
    return Status::InvalidArgument("phrases need word positions, and this index has none (it was built with "
                                   "--no-positions): " + root.ToString());
  }
  plan.terms.entries.reserve(plan.highlight.size() + 2);
  if (IsPureConjunction(root)) {
    DPS_RETURN_IF_ERROR(PlanConjunction(global, bins, known, &plan));
    return Status::OK();
  }
  if (IsPhraseConjunction(root)) {
    DPS_RETURN_IF_ERROR(PlanConjunction(global, bins, known, &plan));
    plan.pure_and = false;  // the phrases must still be checked
    plan.phrase_and = true;
    return Status::OK();
  }
  BinSets sets(global, &plan.terms, known);
  DPS_RETURN_IF_ERROR(plan.terms.AddAll(global, plan.highlight, known));
  DPS_RETURN_IF_ERROR(sets.Of(root, &plan.bins));
  DropBinsOutOfRange(bins, &plan);
  // Anything but a pure conjunction may decode every positive term's list.
  for (size_t h = 0; h < plan.highlight.size(); ++h) plan.estimated_postings += plan.terms.entries[h].second.df;
  return Status::OK();
}

}  // namespace dps
