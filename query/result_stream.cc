#include "query/result_stream.h"

namespace dps {

namespace {
double Micros(ResultStream::Clock::time_point a, ResultStream::Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}
}  // namespace

ResultStream::ResultStream(const SearchOptions& options, const ResultSink& sink, SearchStats* stats,
                           bool timed)
    : options_(options), sink_(sink), stats_(stats), timed_(timed) {
  start_ = now();
}

void ResultStream::Record(const BinResult& b) {
  if (!timed_) return;
  stats_->bins.push_back(
      BinTiming{b.bin.value, b.tablet, b.queue_wait_us, b.service_us, b.count, b.fast_path});
}

bool ResultStream::Deliver(BinResult* b) {
  if (stopped_) return false;
  if (b->count == 0) return true;
  const size_t limit = options_.limit;
  if (limit != 0 && delivered_ + b->count > limit) {
    b->count = limit - delivered_;
    if (b->docs.size() > b->count) b->docs.resize(b->count);
    if (b->stored.size() > b->count) b->stored.resize(b->count);
    if (b->scores.size() > b->count) b->scores.resize(b->count);
  }
  const double at = Micros(start_, now());
  if (stats_->ttfr_us < 0) stats_->ttfr_us = at;
  stats_->ttlr_us = at;
  delivered_ += b->count;
  const bool more = sink_(*b);
  if (!more || (limit != 0 && delivered_ >= limit)) {
    stopped_ = true;
    stats_->cancelled = true;
  }
  return !stopped_;
}

void ResultStream::Finish(uint64_t bins_visited) {
  if (!stats_->bins.empty()) stats_->last_tablet = stats_->bins.back().tablet;
  stats_->results = delivered_;
  stats_->bins_visited = bins_visited;
  stats_->total_us = Micros(start_, now());
}

}  // namespace dps
