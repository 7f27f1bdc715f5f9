// ValidateQuery's messages for trees that do not come from the parser (a
// server's requests): each names the rule broken and the node.
#include <gtest/gtest.h>

#include "index/query_node.h"

namespace dps {
namespace {

std::string Check(const QueryNode& q) {
  const Status s = ValidateQuery(q);
  return s.ok() ? "ok" : s.message();
}

QueryNode Not(QueryNode q) {
  q.negated = true;
  return q;
}

TEST(ValidateQuery, NamesWhereOnlyNegationsAre) {
  const QueryNode a = QueryNode::Term("a"), b = QueryNode::Term("b");
  const QueryNode only_b = QueryNode::And({Not(b)});
  EXPECT_EQ(Check(QueryNode::And({a, Not(b)})), "ok");
  EXPECT_EQ(Check(QueryNode::And({Not(a), Not(b)})),
            "a query of only negations matches nothing to subtract from: (-a AND -b)");
  EXPECT_EQ(Check(QueryNode::Or({a, only_b})), "an OR branch cannot be only negations: (-b)");
  EXPECT_EQ(Check(QueryNode::And({a, Not(only_b)})), "a double negation is not supported: -(-b)");
  EXPECT_EQ(Check(QueryNode::And({a, only_b})), "a nested AND cannot be only negations: (-b)");
  EXPECT_EQ(Check(QueryNode::Or({a, Not(b)})), "NOT is only allowed beside a positive term: -b");
  EXPECT_EQ(Check(Not(a)), "NOT is only allowed beside a positive term: -a");
  EXPECT_EQ(Check(QueryNode::Or({})), "empty AND/OR");
}

}  // namespace
}  // namespace dps
