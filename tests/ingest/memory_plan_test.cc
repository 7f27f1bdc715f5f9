#include "ingest/memory_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace dps {
namespace {

// What the plan expects the pipeline phase to hold: the fixed costs, the
// batches in flight, the buffer and the flush's sort scratch (each thread
// sorting one bin of 1/bins of the buffer, x 1.25 for skew).
double PipelineBytes(const MemoryPlanInput& in, const MemoryPlan& plan) {
  const double at_once = static_cast<double>(std::min<size_t>(in.threads, in.tablets));
  const double scratch = std::min(1.0, 0.8 * 1.25 * at_once / in.bins);
  return static_cast<double>(kProcessBytes + in.threads * kThreadBytes) +
         2.0 * in.threads * kBatchExpansion * static_cast<double>(plan.batch_bytes) +
         static_cast<double>(plan.flush_at) * (1 + scratch);
}

TEST(MemoryPlan, PipelineAndMergeFitTheBudgetAboveTheFloor) {
  for (unsigned threads : {1u, 2u, 4u, 8u}) {
    for (uint32_t bins : {1u, 4u, 16u}) {
      for (size_t tablets : {size_t{1}, size_t{4}}) {
        if (tablets > bins) continue;
        for (uint64_t budget = MinMemoryBudget(threads); budget <= (4ull << 30); budget = budget * 3 / 2) {
          const MemoryPlanInput in{budget, threads, bins, tablets};
          const MemoryPlan plan = PlanMemory(in);
          SCOPED_TRACE(::testing::Message() << "budget " << budget << " threads " << threads << " bins " << bins
                                          << " tablets " << tablets);
          EXPECT_LE(PipelineBytes(in, plan), static_cast<double>(budget));
          const uint64_t writers = std::min<uint64_t>(threads, tablets);
          EXPECT_LE(kProcessBytes + threads * kThreadBytes + writers * kTabletWriterBytes +
                        ListBatchesBytes(threads, tablets) + writers * plan.merge_fan_in * kRunReaderBytes,
                    budget);
          EXPECT_GE(plan.merge_fan_in, 2u);
          EXPECT_LE(plan.merge_fan_in, 256u);
        }
      }
    }
  }
}

TEST(MemoryPlan, BufferGrowsWithTheBudget) {
  uint64_t last = 0;
  for (uint64_t budget = 16ull << 20; budget <= (8ull << 30); budget *= 2) {
    const MemoryPlan plan = PlanMemory({budget, 2, 4, 4});
    EXPECT_GE(plan.flush_at, last);
    last = plan.flush_at;
  }
  EXPECT_GT(last, (4ull << 30));  // large budgets go mostly to the buffer
}

TEST(MemoryPlan, FloorIsTheFirstBudgetWhoseBufferShareHolds) {
  for (unsigned threads : {1u, 2u, 8u}) {
    const uint64_t floor = MinMemoryBudget(threads);
    EXPECT_EQ(floor % (1 << 20), 0u);
    const MemoryPlan at = PlanMemory({floor, threads, 4, 4});
    const MemoryPlan below = PlanMemory({floor - (1 << 20), threads, 4, 4});
    EXPECT_GE(static_cast<double>(at.flush_at), kMinBufferShare * static_cast<double>(floor)) << threads;
    EXPECT_LT(static_cast<double>(below.flush_at), kMinBufferShare * static_cast<double>(floor - (1 << 20)))
        << threads;
  }
  // More threads cost more of their own.
  EXPECT_LT(MinMemoryBudget(1), MinMemoryBudget(2));
  EXPECT_LT(MinMemoryBudget(2), MinMemoryBudget(8));
}

// A tablet's lists get the threads no other tablet uses, and their
// batches are counted only then.
TEST(MemoryPlan, TabletsShareTheThreadsTheirListsAreEncodedWith) {
  EXPECT_EQ(TabletListThreads(2, 1), 2u);
  EXPECT_EQ(TabletListThreads(8, 3), 3u);
  EXPECT_EQ(TabletListThreads(2, 4), 1u);
  EXPECT_EQ(TabletListThreads(4, 4), 1u);
  EXPECT_EQ(ListBatchesBytes(2, 4), 0u);
  EXPECT_EQ(ListBatchesBytes(2, 1), 3 * kListBatchBytes);
  EXPECT_EQ(ListBatchesBytes(8, 3), 3 * 4 * kListBatchBytes);
}

TEST(MemoryPlan, TinyBudgetsStillIngest) {
  // The library accepts any budget (tests spill with 64 KiB); the command
  // line refuses those below the floor.
  const MemoryPlan plan = PlanMemory({64 << 10, 2, 4, 4});
  EXPECT_EQ(plan.flush_at, 64u << 10);
  EXPECT_EQ(plan.batch_bytes, 16u << 10);
  EXPECT_EQ(plan.merge_fan_in, 2u);
}

}  // namespace
}  // namespace dps
