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
constexpr char kHeader[] = "# dpsearch bench samples 1";

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
    std::vector<double> service(tablets, 0);
    double slowest = 0;
    for (const auto& t : r.tablets) {
      service[t.tablet] = t.service_us;
      slowest = std::max(slowest, t.done_us);
    }
    std::string id = r.id;
    std::replace_if(id.begin(), id.end(), [](char c) { return c == '\t' || c == '\n'; }, ' ');
    // Appended piecewise: GCC 12 warns falsely on `"\t" + string` (-Wrestrict, PR 105329).
    out += id;
    out += '\t';
    out += Micros(std::max(0.0, r.total_us - slowest));
    for (double s : service) {
      out += '\t';
      out += Micros(s);
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
    for (size_t i = 1; i < fields.size(); ++i) {
      double v = 0;
      const auto [p, ec] = std::from_chars(fields[i].data(), fields[i].data() + fields[i].size(), v);
      if (ec != std::errc() || p != fields[i].data() + fields[i].size() || !std::isfinite(v) || v < 0) {
        return error("field " + std::to_string(i + 1) + " '" + fields[i] + "' is not a finite number >= 0");
      }
      if (i == 1) {
        s.overhead_us = v;
      } else {
        s.tablet_service_us.push_back(v);
      }
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
