// What a shard server writes into its ZooKeeper node (docs/PROTOCOL.md,
// "ZooKeeper: server node"), and what a coordinator reads back: version 1,
// text, one `key value` line each, so that `zkCli.sh get` shows it as is.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace dps {

inline constexpr int kServerRecordVersion = 1;

struct TabletSpan {
  uint32_t first = 0, last = 0;  // inclusive
  bool operator==(const TabletSpan&) const = default;
};

struct ServerRecord {
  std::string address;   // HOST:PORT clients connect to (the listening port, never 0)
  std::string index_id;  // the MANIFEST's index-id
  uint64_t generation = 0;  // the MANIFEST generation the server answers from
  uint32_t bins = 0, tablets = 0;  // the index's layout
  std::vector<TabletSpan> hosted;  // ascending, disjoint, within [0, tablets); may be empty (--assign, before a plan)
  bool operator==(const ServerRecord&) const = default;
};

std::string EncodeServerRecord(const ServerRecord& record);
// Corruption naming the line and what is wrong: another format version, a
// missing or repeated key, a bad number, spans out of order or beyond the
// tablets. Unknown keys are skipped (a later version may add some).
Result<ServerRecord> DecodeServerRecord(const std::string& data);

// "0-3,6": spans as the record writes them; "none" for no span.
std::string SpansToString(const std::vector<TabletSpan>& spans);

}  // namespace dps
