// A bin cut by the query's limit says so (BinResult::truncated, BinStats'
// truncated flag on the wire), on the kernel's path and the iterator
// tree's alike; a bin holding exactly the limit, or fewer, is not truncated.
#include <string>
#include <vector>

#include "index/query_plan.h"
#include "shards/bin_executor.h"
#include "tests/server/cluster_fixture.h"

namespace dps {
namespace {

using namespace cluster_testing;

BinResult RunBin(const BinExecutor& executor, const QueryPlan& plan, BinId bin, size_t limit) {
  BinTask task;
  task.bin = bin;
  task.limit = limit;
  BinResult r;
  EXPECT_TRUE(executor.Execute(plan, task, &r).ok());
  return r;
}

TEST(BinExecutor, ABinCutByTheLimitIsTruncatedAndOnlyThen) {
  Fixture f(51);
  const BinExecutor executor(f.index.get());
  const std::vector<QueryNode> queries = {
      QueryNode::Term(testing::VocabTerm(0)),  // the kernel
      QueryNode::Or({QueryNode::Term(testing::VocabTerm(1)), QueryNode::Term(testing::VocabTerm(2))}),  // a tree
  };
  size_t checked = 0;
  for (const QueryNode& q : queries) {
    auto plan = PlanQuery(q, f.index->global(), f.index->bins(), kDefaultMaxExpansions);
    ASSERT_TRUE(plan.ok());
    for (BinId bin : plan->bins) {
      const BinResult all = RunBin(executor, *plan, bin, 0);
      EXPECT_FALSE(all.truncated);
      if (all.count < 2) continue;
      ++checked;
      const BinResult cut = RunBin(executor, *plan, bin, all.count - 1);
      EXPECT_TRUE(cut.truncated) << "bin " << bin.value << ": " << all.count - 1 << " of " << all.count;
      EXPECT_EQ(cut.count, all.count - 1);
      EXPECT_EQ(cut.docs, std::vector<DocId>(all.docs.begin(), all.docs.end() - 1));
      for (size_t limit : {all.count, all.count + 1}) {
        const BinResult whole = RunBin(executor, *plan, bin, limit);
        EXPECT_FALSE(whole.truncated) << "bin " << bin.value << ": limit " << limit << " of " << all.count;
        EXPECT_EQ(whole.docs, all.docs);
      }
    }
  }
  EXPECT_GE(checked, 8u);
}

}  // namespace
}  // namespace dps
