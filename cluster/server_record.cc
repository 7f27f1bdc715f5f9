#include "cluster/server_record.h"

#include <charconv>
#include <map>
#include <sstream>

namespace dps {

namespace {

bool ParseU64(const std::string& text, uint64_t* out) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && p == end && !text.empty();
}

// "0-3,6" into spans; false on bad syntax.
bool ParseSpans(const std::string& text, std::vector<TabletSpan>* out) {
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    const size_t dash = part.find('-');
    uint64_t a = 0, b = 0;
    if (!ParseU64(part.substr(0, dash), &a)) return false;
    b = a;
    if (dash != std::string::npos && !ParseU64(part.substr(dash + 1), &b)) return false;
    if (a > b || b > UINT32_MAX) return false;
    out->push_back(TabletSpan{static_cast<uint32_t>(a), static_cast<uint32_t>(b)});
  }
  return !out->empty() && text.back() != ',';
}

}  // namespace

std::string SpansToString(const std::vector<TabletSpan>& spans) {
  if (spans.empty()) return "none";
  std::string out;
  for (const auto& s : spans) {
    if (!out.empty()) out += ',';
    out += std::to_string(s.first);
    if (s.last != s.first) {
      out += '-';  // appended apart: GCC 12 -O3 warns (-Wrestrict) on "-" + to_string
      out += std::to_string(s.last);
    }
  }
  return out;
}

std::string EncodeServerRecord(const ServerRecord& r) {
  return "dpsearch-server " + std::to_string(kServerRecordVersion) + "\naddress " + r.address + "\nindex-id " +
         r.index_id + "\ngeneration " + std::to_string(r.generation) + "\nbins " + std::to_string(r.bins) +
         "\ntablets " + std::to_string(r.tablets) + "\nhosted " + SpansToString(r.hosted) + "\n";
}

Result<ServerRecord> DecodeServerRecord(const std::string& data) {
  std::map<std::string, std::string> values;
  std::stringstream in(data);
  std::string line;
  size_t n = 0;
  auto bad = [&](const std::string& why) {
    return Status::Corruption("server record line " + std::to_string(n) + ": " + why);
  };
  while (std::getline(in, line)) {
    ++n;
    const size_t space = line.find(' ');
    if (space == std::string::npos || space == 0) return bad("expected 'key value'");
    const std::string key = line.substr(0, space);
    if (n == 1) {
      if (key != "dpsearch-server") return bad("not a dpsearch server record");
      if (line.substr(space + 1) != std::to_string(kServerRecordVersion)) {
        return bad("format version " + line.substr(space + 1) + ", this dpsearch reads " +
                   std::to_string(kServerRecordVersion));
      }
      continue;
    }
    if (!values.emplace(key, line.substr(space + 1)).second) return bad("'" + key + "' given twice");
  }
  n = 0;
  if (data.empty()) return bad("empty record");
  ServerRecord r;
  uint64_t generation = 0, bins = 0, tablets = 0;
  for (const char* key : {"address", "index-id", "generation", "bins", "tablets", "hosted"}) {
    if (!values.count(key)) return Status::Corruption(std::string("server record: no '") + key + "'");
  }
  auto field = [&](const char* key) { return Status::Corruption(std::string("server record: bad '") + key + "': '" + values[key] + "'"); };
  r.address = values["address"];
  r.index_id = values["index-id"];
  if (r.address.find(':') == std::string::npos) return field("address");
  if (r.index_id.empty()) return field("index-id");
  if (!ParseU64(values["generation"], &generation)) return field("generation");
  if (!ParseU64(values["bins"], &bins) || bins == 0 || bins > UINT32_MAX) return field("bins");
  if (!ParseU64(values["tablets"], &tablets) || tablets == 0 || tablets > bins) return field("tablets");
  if (values["hosted"] != "none" && !ParseSpans(values["hosted"], &r.hosted)) return field("hosted");
  for (size_t i = 0; i < r.hosted.size(); ++i) {
    if (r.hosted[i].last >= tablets || (i > 0 && r.hosted[i].first <= r.hosted[i - 1].last)) return field("hosted");
  }
  r.generation = generation;
  r.bins = static_cast<uint32_t>(bins);
  r.tablets = static_cast<uint32_t>(tablets);
  return r;
}

}  // namespace dps
