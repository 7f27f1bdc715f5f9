#include "query/planner.h"

#include <algorithm>
#include <iterator>
#include <map>

#include "query/parser.h"

namespace dps {

namespace {

class BinSets {
 public:
  explicit BinSets(const GlobalIndexReader* global) : global_(global) {}

  // Bins where `node` can match. Negated children of an AND restrict
  // nothing (they only subtract).
  Result<std::vector<uint32_t>> Of(const QueryNode& node) {
    if (node.kind == QueryNode::Kind::kTerm) {
      DPS_ASSIGN_OR_RETURN(const GlobalTermInfo* info, Lookup(node.term));
      return info == nullptr ? std::vector<uint32_t>() : info->bins;
    }
    std::vector<uint32_t> acc;
    bool first = true;
    for (const auto& c : node.children) {
      if (c.negated) continue;
      DPS_ASSIGN_OR_RETURN(std::vector<uint32_t> bins, Of(c));
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
      if (acc.empty() && node.kind == QueryNode::Kind::kAnd) break;
    }
    return acc;
  }

  Result<const GlobalTermInfo*> Lookup(const std::string& term) {
    auto it = cache_.find(term);
    if (it == cache_.end()) {
      GlobalTermInfo info;
      bool found = false;
      DPS_RETURN_IF_ERROR(global_->Lookup(term, &found, &info));
      if (!found) info.bins.clear();
      it = cache_.emplace(term, std::make_pair(found, std::move(info))).first;
    }
    return it->second.first ? &it->second.second : nullptr;
  }

 private:
  const GlobalIndexReader* global_;
  std::map<std::string, std::pair<bool, GlobalTermInfo>> cache_;
};

}  // namespace

Result<QueryPlan> PlanQuery(const QueryNode& root, const GlobalIndexReader* global,
                            uint32_t bins) {
  QueryPlan plan;
  plan.root = root;
  PositiveTerms(root, &plan.highlight);
  if (global == nullptr) {
    plan.empty = true;
    return plan;
  }
  BinSets sets(global);
  DPS_ASSIGN_OR_RETURN(plan.bins, sets.Of(root));
  plan.bins.erase(std::remove_if(plan.bins.begin(), plan.bins.end(),
                                 [bins](uint32_t b) { return b >= bins; }),
                  plan.bins.end());
  plan.empty = plan.bins.empty();
  // Pure conjunction: every term positive, no OR anywhere.
  if (root.kind == QueryNode::Kind::kTerm) {
    plan.pure_and = true;
    plan.and_terms = {root.term};
    DPS_ASSIGN_OR_RETURN(const GlobalTermInfo* info, sets.Lookup(root.term));
    plan.estimated_postings = info ? info->df : 0;
  } else if (root.kind == QueryNode::Kind::kAnd &&
             std::all_of(root.children.begin(), root.children.end(), [](const QueryNode& c) {
               return c.kind == QueryNode::Kind::kTerm && !c.negated;
             })) {
    plan.pure_and = true;
    std::vector<std::pair<uint64_t, std::string>> by_df;
    for (const auto& c : root.children) {
      DPS_ASSIGN_OR_RETURN(const GlobalTermInfo* info, sets.Lookup(c.term));
      by_df.emplace_back(info ? info->df : 0, c.term);
    }
    std::sort(by_df.begin(), by_df.end());
    by_df.erase(std::unique(by_df.begin(), by_df.end()), by_df.end());
    for (auto& [df, t] : by_df) plan.and_terms.push_back(std::move(t));
  }
  if (root.kind != QueryNode::Kind::kTerm) {
    std::vector<std::string> all;
    PositiveTerms(root, &all);
    for (const auto& t : all) {
      DPS_ASSIGN_OR_RETURN(const GlobalTermInfo* info, sets.Lookup(t));
      plan.estimated_postings += info ? info->df : 0;
    }
  }
  return plan;
}

}  // namespace dps
