// An index for the failure tests (issue 21) with its reference model and
// the checks a failed change must pass: the MANIFEST's generation as
// before, `check` clean, the same answers, and no file the MANIFEST does
// not name once the writer is gone (nor after the next writer opens).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/fault_injection.h"
#include "index/index_writer.h"
#include "index/query_node.h"
#include "tests/testing/test_util.h"

namespace dps::testing {

// Arms a rule failing the (n+1)-th `op` call, on any path.
void FailCall(faults::Op op, uint64_t n);

// Files of `dir` its MANIFEST does not name (besides LOCK).
std::vector<std::string> Strays(const std::string& dir);

class FaultedIndex {
 public:
  // `commits` commits of 150 random documents each (ids doc-0, doc-1, ...;
  // later commits replace some), 6 bins in 2 tablets.
  FaultedIndex(std::mt19937_64& rng, size_t vocab, int commits);
  ~FaultedIndex();  // disarms every fault rule a failed test left
  // A copy in a directory of its own, with the same model and queries.
  std::unique_ptr<FaultedIndex> Clone() const;

  const std::string& dir() const { return dir_.path(); }
  const IndexOptions& options() const { return options_; }

  struct State {
    uint64_t generation = 0;
    std::vector<std::set<std::string>> answers;  // of the queries, in order
  };
  State Take() const;
  // The index is `before` again: generation, check, answers, no strays;
  // and the next writer opens it. REQUIRES: no writer open.
  void ExpectAsBefore(const State& before) const;

  // The model after a change that went through.
  void Apply(const std::vector<ModelDoc>& docs, const std::vector<std::string>& gone);
  // Deletes through a writer (no faults), and from the model.
  void Delete(const std::vector<std::string>& gone);
  // Every query answers as the model says; check clean; no strays.
  void ExpectLikeModel() const;
  size_t FilesOf(size_t tablet) const;

 private:
  FaultedIndex() = default;
  TempDir dir_;
  IndexOptions options_;
  std::map<std::string, ModelDoc> live_;
  std::vector<QueryNode> queries_;
};

}  // namespace dps::testing
