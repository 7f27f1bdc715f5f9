// What `dpsearch simulate` replays (`bench --samples FILE`): per query, for
// each tablet its service time (the sum of its bins' service, as the
// servers or the in-process shards measured it) and its completion time
// from the request's receipt (queue waits and thread hand-offs included),
// and the overhead outside the tablets (the query's total less its slowest
// tablet's completion: network, coordinator, client). A query's tablets
// are kept together, so a costly query is costly on every tablet, as it
// really is.
//
// Text, one query a line, tab-separated:
//   # dpsearch bench samples 2
//   ID <TAB> OVERHEAD_US <TAB> SERVICE_US,DONE_US of tablet 0 <TAB> ... tablet T-1
// The first line is the header; every line has the same T; numbers are
// finite and >= 0.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "query/bench.h"

namespace dps {

struct QuerySample {
  std::string id;
  double overhead_us = 0;
  std::vector<double> tablet_service_us;  // by tablet
  std::vector<double> tablet_done_us;     // by tablet: from receipt to its last bin's end
};

// The successful records (a query that visited no tablet has all zeros).
std::string FormatSamples(const std::vector<BenchRecord>& records);
// Errors name `source` and the line.
Result<std::vector<QuerySample>> ParseSamples(const std::string& text, const std::string& source);
// Reads and parses a samples file: a user's input, so a file that cannot
// be read is InvalidArgument naming it.
Result<std::vector<QuerySample>> ReadSamplesFile(const std::string& path);

}  // namespace dps
