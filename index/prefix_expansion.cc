#include "index/prefix_expansion.h"

#include <utility>
#include <vector>

#include "index/term_range.h"

namespace dps {

namespace {

class Expander {
 public:
  Expander(const GlobalIndexReader& global, uint64_t max_expansions, TermTable* found)
      : global_(global), max_(max_expansions), found_(found) {}

  // Expands `node` in place; false when it matches nothing.
  Result<bool> Expand(QueryNode* node) {
    switch (node->kind) {
      case QueryNode::Kind::kTerm:
        return true;
      case QueryNode::Kind::kPrefix:
        return ExpandPrefix(node);
      case QueryNode::Kind::kAnd:
      case QueryNode::Kind::kOr:
        break;
    }
    const bool is_and = node->kind == QueryNode::Kind::kAnd;
    // Every child is expanded (no early exit), so whether the query is
    // over the cap does not depend on the order of its prefixes.
    bool matches = is_and;  // an AND until a required child is empty; an OR once one is not
    std::vector<QueryNode> kept;
    kept.reserve(node->children.size());
    for (QueryNode& c : node->children) {
      DPS_ASSIGN_OR_RETURN(const bool child_matches, Expand(&c));
      if (is_and && !child_matches && !c.negated) matches = false;
      if (!is_and && child_matches) matches = true;
      if (!child_matches) continue;  // under NOT or in an OR: subtracts or adds nothing
      if (c.kind == node->kind && !c.negated) {
        for (QueryNode& g : c.children) kept.push_back(std::move(g));
      } else {
        kept.push_back(std::move(c));
      }
    }
    if (!matches) return false;
    node->children = std::move(kept);
    if (node->children.size() == 1 && !node->children[0].negated) {
      const bool negated = node->negated;
      QueryNode only = std::move(node->children[0]);
      *node = std::move(only);
      node->negated = negated;
    }
    return true;
  }

  // InvalidArgument when the query is over the cap.
  Status Check() const {
    if (total_ <= max_) return Status::OK();
    std::string what = counts_.size() == 1 ? "prefix '" + counts_[0].first + "*' expands to "
                                           : "the query's prefixes expand to ";
    what += std::to_string(total_) + " terms";
    if (counts_.size() > 1) {
      what += " (";
      for (size_t i = 0; i < counts_.size(); ++i) {
        what += (i > 0 ? ", " : "") + counts_[i].first + "* " + std::to_string(counts_[i].second);
      }
      what += ")";
    }
    return Status::InvalidArgument(what + ", more than --max-expansions " + std::to_string(max_) +
                                   "; raise --max-expansions to " + std::to_string(total_) + " to run it");
  }

 private:
  Result<bool> ExpandPrefix(QueryNode* node) {
    std::vector<std::string> terms;
    Status parse;
    uint64_t n = 0;
    DPS_RETURN_IF_ERROR(ForEachKeyWithPrefix(global_.dict(), node->term, [&](std::string_view key,
                                                                              std::string_view value) {
      ++n;
      // Past the cap only counted: the query will be refused.
      if (total_ + n > max_ || !parse.ok()) return;
      GlobalTermInfo info;
      parse = global_.ParseValue(value, &info);
      terms.emplace_back(key);
      found_->Put(key, std::move(info));
    }));
    DPS_RETURN_IF_ERROR(parse);
    total_ += n;
    counts_.emplace_back(node->term, n);
    if (n == 0) return false;
    if (total_ > max_) return true;  // refused by Check: the tree is not used
    const bool negated = node->negated;
    if (n == 1) {
      *node = QueryNode::Term(std::move(terms[0]), negated);
      return true;
    }
    std::vector<QueryNode> children;
    children.reserve(terms.size());
    for (std::string& t : terms) children.push_back(QueryNode::Term(std::move(t)));
    *node = QueryNode::Or(std::move(children));
    node->negated = negated;
    return true;
  }

  const GlobalIndexReader& global_;
  const uint64_t max_;
  TermTable* found_;
  uint64_t total_ = 0;
  std::vector<std::pair<std::string, uint64_t>> counts_;  // each prefix and its terms
};

}  // namespace

Result<bool> ExpandPrefixes(QueryNode* root, const GlobalIndexReader& global, uint64_t max_expansions,
                            TermTable* found) {
  Expander expander(global, max_expansions, found);
  DPS_ASSIGN_OR_RETURN(const bool matches, expander.Expand(root));
  DPS_RETURN_IF_ERROR(expander.Check());
  return matches;
}

}  // namespace dps
