// The caller's side of a streaming search, shared by every Searcher: hands
// each finished bin to the sink, trims the last bins to the limit, records
// per-bin timings and the times of the first and last result, and says
// when the query should stop. Single-threaded (the caller's thread).
#pragma once

#include <chrono>

#include "query/searcher.h"

namespace dps {

class ResultStream {
 public:
  using Clock = std::chrono::steady_clock;
  // Starts the query's clock (when timed). `stats` must not be null.
  ResultStream(const SearchOptions& options, const ResultSink& sink, SearchStats* stats, bool timed);

  Clock::time_point start() const { return start_; }
  Clock::time_point now() const { return timed_ ? Clock::now() : Clock::time_point(); }

  // Records the bin's timing (when timed).
  void Record(const BinResult& bin);
  // Delivers a finished bin's matches (trimmed to what the limit still
  // allows) unless the stream has stopped; false once no more are wanted.
  bool Deliver(BinResult* bin);
  // Totals: results, bins visited, last tablet, total time.
  void Finish(uint64_t bins_visited);

 private:
  const SearchOptions& options_;
  const ResultSink& sink_;
  SearchStats* stats_;
  bool timed_;
  Clock::time_point start_;
  uint64_t delivered_ = 0;
  bool stopped_ = false;
};

}  // namespace dps
