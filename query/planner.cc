#include "query/planner.h"

#include <algorithm>
#include <iterator>

#include "query/parser.h"

namespace dps {

namespace {

class BinSets {
 public:
  BinSets(const GlobalIndexReader* global, TermTable* table) : global_(global), table_(table) {}

  // Bins where `node` can match. Negated children of an AND restrict
  // nothing (they only subtract), but their terms are looked up too.
  Result<std::vector<uint32_t>> Of(const QueryNode& node) {
    if (node.kind == QueryNode::Kind::kTerm) {
      DPS_ASSIGN_OR_RETURN(size_t e, Lookup(node.term));
      return table_->entries[e].second.bins;
    }
    std::vector<uint32_t> acc;
    bool first = true;
    for (const auto& c : node.children) {
      DPS_ASSIGN_OR_RETURN(std::vector<uint32_t> bins, Of(c));
      if (c.negated) continue;
      if (!first && acc.empty() && node.kind == QueryNode::Kind::kAnd) continue;
      std::vector<uint32_t> merged;
      if (first) {
        merged = std::move(bins);
      } else if (node.kind == QueryNode::Kind::kAnd) {
        std::set_intersection(acc.begin(), acc.end(), bins.begin(), bins.end(),
                              std::back_inserter(merged));
      } else {
        std::set_union(acc.begin(), acc.end(), bins.begin(), bins.end(), std::back_inserter(merged));
      }
      acc = std::move(merged);
      first = false;
    }
    return acc;
  }

  // The term's index in the table, looking it up once.
  Result<size_t> Lookup(const std::string& term) {
    auto& entries = table_->entries;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].first == term) return i;
    }
    entries.emplace_back(term, GlobalTermInfo());
    bool found = false;
    DPS_RETURN_IF_ERROR(global_->Lookup(term, &found, &entries.back().second));
    if (!found) entries.back().second = GlobalTermInfo();
    return entries.size() - 1;
  }

 private:
  const GlobalIndexReader* global_;
  TermTable* table_;
};

}  // namespace

Result<QueryPlan> PlanQuery(QueryNode root_node, const GlobalIndexReader* global,
                            uint32_t bins) {
  QueryPlan plan;
  plan.root = std::move(root_node);
  const QueryNode& root = plan.root;
  PositiveTerms(root, &plan.highlight);
  if (global == nullptr) {
    plan.empty = true;
    return plan;
  }
  BinSets sets(global, &plan.terms);
  DPS_ASSIGN_OR_RETURN(plan.bins, sets.Of(root));
  plan.bins.erase(std::remove_if(plan.bins.begin(), plan.bins.end(),
                                 [bins](uint32_t b) { return b >= bins; }),
                  plan.bins.end());
  plan.empty = plan.bins.empty();
  // Pure conjunction: every term positive, no OR anywhere.
  if (root.kind == QueryNode::Kind::kTerm) {
    plan.pure_and = true;
    plan.and_terms = {root.term};
    DPS_ASSIGN_OR_RETURN(size_t e, sets.Lookup(root.term));
    plan.and_entries = {e};
    plan.estimated_postings = plan.terms.entries[e].second.df;
  } else if (root.kind == QueryNode::Kind::kAnd &&
             std::all_of(root.children.begin(), root.children.end(), [](const QueryNode& c) {
               return c.kind == QueryNode::Kind::kTerm && !c.negated;
             })) {
    plan.pure_and = true;
    std::vector<std::pair<uint64_t, size_t>> by_df;  // (df, entry)
    for (const auto& c : root.children) {
      DPS_ASSIGN_OR_RETURN(size_t e, sets.Lookup(c.term));
      by_df.emplace_back(plan.terms.entries[e].second.df, e);
    }
    std::sort(by_df.begin(), by_df.end());
    by_df.erase(std::unique(by_df.begin(), by_df.end()), by_df.end());
    for (auto& [df, e] : by_df) {
      plan.and_terms.push_back(plan.terms.entries[e].first);
      plan.and_entries.push_back(e);
    }
  }
  if (root.kind != QueryNode::Kind::kTerm) {
    for (const auto& t : plan.highlight) {  // the positive terms
      DPS_ASSIGN_OR_RETURN(size_t e, sets.Lookup(t));
      plan.estimated_postings += plan.terms.entries[e].second.df;
    }
  }
  return plan;
}

}  // namespace dps
