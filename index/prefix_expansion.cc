#include "index/prefix_expansion.h"

#include <utility>
#include <vector>

#include "index/term_range.h"

namespace dps {

namespace {

class Expander {
 public:
  Expander(const GlobalIndexReader& global, uint64_t max_expansions, KnownTerms* found)
      : global_(global), max_(max_expansions), found_(found) {}

  // Expands every prefix under `node` in place.
  Status Expand(QueryNode* node) {
    if (node->kind == QueryNode::Kind::kPrefix) return ExpandPrefix(node);
    if (node->kind == QueryNode::Kind::kTerm) return Status::OK();
    // Every child is expanded (no early exit), so whether the query is
    // over the cap does not depend on the order of its prefixes.
    bool nested_or = false;
    for (QueryNode& c : node->children) {
      DPS_RETURN_IF_ERROR(Expand(&c));
      nested_or |= node->kind == QueryNode::Kind::kOr && c.kind == QueryNode::Kind::kOr;
    }
    if (!nested_or) return Status::OK();
    // An expansion inside an OR joins it: an OR of terms, the shape
    // MaxScore ranks.
    std::vector<QueryNode> flat;
    for (QueryNode& c : node->children) {
      if (c.kind != QueryNode::Kind::kOr) {
        flat.push_back(std::move(c));
        continue;
      }
      for (QueryNode& g : c.children) flat.push_back(std::move(g));
    }
    node->children = std::move(flat);
    return Status::OK();
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
  Status ExpandPrefix(QueryNode* node) {
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
      found_->Add(std::string(key), std::move(info));
    }));
    DPS_RETURN_IF_ERROR(parse);
    total_ += n;
    counts_.emplace_back(node->term, n);
    // No term starts with the prefix, so neither is the prefix itself a
    // term: as a term it matches nothing and scores nothing, and planning
    // treats it as any absent term (an AND requiring it is empty).
    if (n == 0) {
      node->kind = QueryNode::Kind::kTerm;
      return Status::OK();
    }
    if (total_ > max_) return Status::OK();  // refused by Check: the tree is not used
    const bool negated = node->negated;
    if (n == 1) {
      *node = QueryNode::Term(std::move(terms[0]), negated);
      return Status::OK();
    }
    std::vector<QueryNode> children;
    children.reserve(terms.size());
    for (std::string& t : terms) children.push_back(QueryNode::Term(std::move(t)));
    *node = QueryNode::Or(std::move(children));
    node->negated = negated;
    return Status::OK();
  }

  const GlobalIndexReader& global_;
  const uint64_t max_;
  KnownTerms* found_;
  uint64_t total_ = 0;
  std::vector<std::pair<std::string, uint64_t>> counts_;  // each prefix and its terms
};

}  // namespace

Status ExpandPrefixes(QueryNode* root, const GlobalIndexReader& global, uint64_t max_expansions,
                      KnownTerms* found) {
  Expander expander(global, max_expansions, found);
  DPS_RETURN_IF_ERROR(expander.Expand(root));
  return expander.Check();
}

}  // namespace dps
