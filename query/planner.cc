#include "query/planner.h"

#include <algorithm>
#include <iterator>

#include "query/parser.h"

namespace dps {

namespace {

class BinSets {
 public:
  BinSets(const GlobalIndexReader* global, TermTable* table) : global_(global), table_(table) {}

  // Bins where `node` can match, into *out. Negated children of an AND
  // restrict nothing (they only subtract), but their terms are looked up
  // too.
  Status Of(const QueryNode& node, std::vector<uint32_t>* out) {
    if (node.kind == QueryNode::Kind::kTerm) {
      DPS_ASSIGN_OR_RETURN(const GlobalTermInfo* info, Lookup(node.term));
      info->Bins(out);
      return Status::OK();
    }
    out->clear();
    bool first = true;
    std::vector<uint32_t> child, merged;
    for (const auto& c : node.children) {
      if (c.negated) {
        DPS_RETURN_IF_ERROR(Of(c, &child));
        continue;
      }
      if (!first && node.kind == QueryNode::Kind::kAnd && c.kind == QueryNode::Kind::kTerm) {
        // In place, straight from the refs: keep the bins this term has.
        DPS_ASSIGN_OR_RETURN(const GlobalTermInfo* info, Lookup(c.term));
        out->erase(std::remove_if(out->begin(), out->end(),
                                  [info](uint32_t b) { return info->RefsOf(b).empty(); }),
                   out->end());
        continue;
      }
      DPS_RETURN_IF_ERROR(Of(c, first ? out : &child));
      if (first) {
        first = false;
      } else if (node.kind == QueryNode::Kind::kAnd) {
        out->erase(std::remove_if(out->begin(), out->end(),
                                  [&child](uint32_t b) {
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
  Result<size_t> Entry(const std::string& term) { return table_->Add(global_, term); }

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
  plan.highlight.reserve(4);
  PositiveTerms(root, &plan.highlight);
  if (global == nullptr) {
    plan.empty = true;
    return plan;
  }
  BinSets sets(global, &plan.terms);
  plan.terms.entries.reserve(plan.highlight.size() + 2);
  DPS_RETURN_IF_ERROR(plan.terms.AddAll(global, plan.highlight));
  DPS_RETURN_IF_ERROR(sets.Of(root, &plan.bins));
  plan.bins.erase(std::remove_if(plan.bins.begin(), plan.bins.end(),
                                 [bins](uint32_t b) { return b >= bins; }),
                  plan.bins.end());
  plan.empty = plan.bins.empty();
  // Pure conjunction: every term positive, no OR anywhere.
  if (root.kind == QueryNode::Kind::kTerm) {
    plan.pure_and = true;
    DPS_ASSIGN_OR_RETURN(size_t e, sets.Entry(root.term));
    plan.and_entries = {e};
    plan.estimated_postings = plan.terms.entries[e].second.df;
  } else if (root.kind == QueryNode::Kind::kAnd &&
             std::all_of(root.children.begin(), root.children.end(), [](const QueryNode& c) {
               return c.kind == QueryNode::Kind::kTerm && !c.negated;
             })) {
    plan.pure_and = true;
    std::vector<std::pair<uint64_t, size_t>> by_df;  // (df, entry)
    by_df.reserve(root.children.size());
    plan.and_entries.reserve(root.children.size());
    for (const auto& c : root.children) {
      DPS_ASSIGN_OR_RETURN(size_t e, sets.Entry(c.term));
      by_df.emplace_back(plan.terms.entries[e].second.df, e);
    }
    std::sort(by_df.begin(), by_df.end());
    by_df.erase(std::unique(by_df.begin(), by_df.end()), by_df.end());
    for (auto& [df, e] : by_df) plan.and_entries.push_back(e);
  }
  if (root.kind != QueryNode::Kind::kTerm) {
    for (const auto& t : plan.highlight) {  // the positive terms
      DPS_ASSIGN_OR_RETURN(const GlobalTermInfo* info, sets.Lookup(t));
      plan.estimated_postings += info->df;
    }
  }
  if (plan.pure_and && plan.and_entries.size() > 1) {
    // A conjunction led by a rare term seeks the others once per candidate
    // (a seek decodes at most a 32-docid part), so its cost follows the
    // rarest list, however long the others are.
    const uint64_t rarest = plan.terms.entries[plan.and_entries[0]].second.df;
    plan.estimated_postings =
        std::min(plan.estimated_postings, rarest * 32 * plan.and_entries.size());
  }
  return plan;
}

}  // namespace dps
