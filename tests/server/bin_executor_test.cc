// A bin cut by the query's limit says so (BinResult::truncated, BinStats'
// truncated flag on the wire), on the kernel's path and the iterator
// tree's alike; a bin holding exactly the limit, or fewer, is not truncated.
#include <string>
#include <vector>

#include "index/query_plan.h"
#include "shards/bin_executor.h"
#include "shards/ranking.h"
#include "shards/top_k.h"
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

// Another bin's result, every field set.
BinResult Stale() {
  BinResult r;
  r.bin = BinId{77};
  r.tablet = 9;
  r.count = 5;
  r.docs = {1, 2, 3, 4, 5};
  r.scores = {9, 8, 7, 6, 5};
  r.stored.resize(5);
  r.stored[0].id = "stale";
  r.fast_path = r.cancelled = r.deadline_passed = r.truncated = true;
  r.queue_wait_us = r.service_us = 12;
  return r;
}

TEST(BinExecutor, ClearBinResultEmptiesEveryFieldAndKeepsTheRoom) {
  BinResult r = Stale();
  const size_t room = r.docs.capacity();
  ClearBinResult(&r);
  EXPECT_EQ(r.bin, BinId());
  EXPECT_EQ(r.tablet, 0u);
  EXPECT_EQ(r.count, 0u);
  EXPECT_TRUE(r.docs.empty() && r.scores.empty() && r.stored.empty());
  EXPECT_FALSE(r.fast_path || r.cancelled || r.deadline_passed || r.truncated);
  EXPECT_EQ(r.queue_wait_us, 0);
  EXPECT_EQ(r.service_us, 0);
  EXPECT_EQ(r.docs.capacity(), room);
}

// A searcher hands Execute the result of another bin (its vectors' room
// reused): the answer is the one a new BinResult gets, field by field.
TEST(BinExecutor, ExecuteReplacesAReusedResultWhole) {
  Fixture f(52);
  const BinExecutor executor(f.index.get());
  const std::vector<QueryNode> queries = {
      QueryNode::Term(testing::VocabTerm(0)),
      QueryNode::And({QueryNode::Term(testing::VocabTerm(1)), QueryNode::Term(testing::VocabTerm(2))}),
      QueryNode::Or({QueryNode::Term(testing::VocabTerm(1)), QueryNode::Term(testing::VocabTerm(3))}),
  };
  size_t checked = 0;
  for (const QueryNode& q : queries) {
    auto plan = PlanQuery(q, f.index->global(), f.index->bins(), kDefaultMaxExpansions);
    ASSERT_TRUE(plan.ok());
    const RankContext rank(*plan, f.index->collection_stats(), Bm25Params());
    for (size_t top_k : {size_t{0}, size_t{3}}) {
      for (BinId bin : plan->bins) {
        BinTask task;
        task.bin = bin;
        task.top_k = top_k;
        task.rank = &rank;
        task.timed = false;
        BinResult fresh, reused = Stale();
        ASSERT_TRUE(executor.Execute(*plan, task, &fresh).ok());
        ASSERT_TRUE(executor.Execute(*plan, task, &reused).ok());
        SCOPED_TRACE("bin " + std::to_string(bin.value) + " top " + std::to_string(top_k));
        EXPECT_EQ(reused.bin, fresh.bin);
        EXPECT_EQ(reused.tablet, fresh.tablet);
        EXPECT_EQ(reused.count, fresh.count);
        EXPECT_EQ(reused.docs, fresh.docs);
        EXPECT_EQ(reused.scores, fresh.scores);
        EXPECT_EQ(reused.stored.size(), fresh.stored.size());
        EXPECT_EQ(reused.fast_path, fresh.fast_path);
        EXPECT_EQ(reused.cancelled, fresh.cancelled);
        EXPECT_EQ(reused.deadline_passed, fresh.deadline_passed);
        EXPECT_EQ(reused.truncated, fresh.truncated);
        EXPECT_EQ(reused.service_us, 0);
        checked += !fresh.docs.empty();
      }
    }
  }
  EXPECT_GE(checked, 8u);
}

}  // namespace
}  // namespace dps
