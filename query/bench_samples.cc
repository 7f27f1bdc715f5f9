#include "query/bench_samples.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace dps {

namespace {
constexpr char kHeader[] = "# dpsearch bench samples 2";

std::string Micros(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}
}  // namespace

std::string FormatSamples(const std::vector<BenchRecord>& records) {
  size_t tablets = 0;
  for (const auto& r : records) {
    for (const auto& t : r.tablets) tablets = std::max<size_t>(tablets, t.tablet + 1);
  }
  std::string out = std::string(kHeader) + "\n";
  for (const auto& r : records) {
    if (!r.error.empty()) continue;
    std::vector<double> service(tablets, 0), done(tablets, 0);
    double slowest = 0;
    for (const auto& t : r.tablets) {
      service[t.tablet] = t.service_us;
      done[t.tablet] = t.done_us;
      slowest = std::max(slowest, t.done_us);
    }
    std::string id = r.id;
    std::replace_if(id.begin(), id.end(), [](char c) { return c == '\t' || c == '\n'; }, ' ');
    // Appended piecewise: GCC 12 warns falsely on `"\t" + string` (-Wrestrict, PR 105329).
    out += id;
    out += '\t';
    // An open loop's wait to start is the load's, not the query's: the
    // simulation makes its own.
    out += Micros(std::max(0.0, r.total_us - r.start_lag_us - slowest));
    for (size_t t = 0; t < tablets; ++t) {
      out += '\t';
      out += Micros(service[t]);
      out += ',';
      out += Micros(done[t]);
    }
    out += '\n';
  }
  return out;
}

Result<std::vector<QuerySample>> ParseSamples(const std::string& text, const std::string& source) {
  std::vector<QuerySample> out;
  size_t line_no = 0, pos = 0, tablets = 0;
  auto error = [&](const std::string& what) {
    return Status::InvalidArgument(source + ":" + std::to_string(line_no) + ": " + what);
  };
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line_no == 1) {
      if (line != kHeader) return error("not a samples file (the first line must be '" + std::string(kHeader) + "')");
      continue;
    }
    std::vector<std::string> fields;
    for (size_t start = 0;;) {
      const size_t tab = line.find('\t', start);
      fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    if (fields.size() < 3) return error("expected ID, overhead and at least one tablet's service time");
    if (out.empty()) tablets = fields.size() - 2;
    if (fields.size() - 2 != tablets) {
      return error(std::to_string(fields.size() - 2) + " tablets, the lines before have " + std::to_string(tablets));
    }
    QuerySample s;
    s.id = fields[0];
    auto number = [](std::string_view text, double* v) {
      const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *v);
      return ec == std::errc() && p == text.data() + text.size() && std::isfinite(*v) && *v >= 0;
    };
    if (!number(fields[1], &s.overhead_us)) return error("field 2 '" + fields[1] + "' is not a finite number >= 0");
    for (size_t i = 2; i < fields.size(); ++i) {
      const size_t comma = fields[i].find(',');
      double service = 0, done = 0;
      if (comma == std::string::npos || !number(std::string_view(fields[i]).substr(0, comma), &service) ||
          !number(std::string_view(fields[i]).substr(comma + 1), &done)) {
        return error("field " + std::to_string(i + 1) + " '" + fields[i] + "' is not SERVICE_US,DONE_US (numbers >= 0)");
      }
      s.tablet_service_us.push_back(service);
      s.tablet_done_us.push_back(done);
    }
    out.push_back(std::move(s));
  }
  if (line_no == 0) return Status::InvalidArgument(source + ": empty (expected '" + std::string(kHeader) + "')");
  if (out.empty()) return Status::InvalidArgument(source + ": no samples");
  return out;
}

Result<std::vector<QuerySample>> ReadSamplesFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(path + ": cannot open (" + std::string(std::strerror(errno)) + ")");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::InvalidArgument(path + ": cannot read (" + std::string(std::strerror(errno)) + ")");
  return ParseSamples(text.str(), path);
}

}  // namespace dps
