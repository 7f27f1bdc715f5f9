#include "query/bench_compare.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "query/report_charts.h"
#include "query/result_format.h"

namespace dps {

namespace {

using simdjson::dom::element;
using simdjson::dom::object;

double Number(const object& o, const char* key, double fallback = 0) {
  double d = 0;
  if (o[key].get_double().get(d) == simdjson::SUCCESS) return d;
  int64_t i = 0;
  if (o[key].get_int64().get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  uint64_t u = 0;
  if (o[key].get_uint64().get(u) == simdjson::SUCCESS) return static_cast<double>(u);
  return fallback;
}

std::string Text(const object& o, const char* key) {
  std::string_view v;
  return o[key].get_string().get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A bench object's latency histogram; false when it has none.
bool HistogramOf(const object& o, LatencyHistogram* h, std::string* error) {
  simdjson::dom::array buckets;
  if (o["latency_histogram"].get_array().get(buckets) != simdjson::SUCCESS) return false;
  for (element b : buckets) {
    simdjson::dom::array pair;
    double us = 0;  // get_double takes integers too
    uint64_t n = 0;
    if (b.get_array().get(pair) != simdjson::SUCCESS || pair.size() != 2 ||
        pair.at(0).get_double().get(us) != simdjson::SUCCESS || pair.at(1).get_uint64().get(n) != simdjson::SUCCESS ||
        !(us >= 0) || n > (uint64_t{1} << 40)) {
      *error = "latency_histogram: expected [microseconds, count] pairs";
      return false;
    }
    h->RecordMicros(us, n);
  }
  return true;
}

BenchSummary PointOf(const object& o) {
  BenchSummary s;
  s.load.rate_qps = Number(o, "offered_qps");
  s.achieved_qps = Number(o, "achieved_qps");
  s.total.p50 = Number(o, "p50_us");
  s.total.p90 = Number(o, "p90_us");
  s.total.p99 = Number(o, "p99_us");
  s.total.p999 = Number(o, "p999_us");
  s.total.max = Number(o, "max_us");
  return s;
}

}  // namespace

Status AddToComparison(const std::string& text, const std::string& source, Comparison* c) {
  simdjson::dom::parser parser;
  std::istringstream lines(text);
  std::string line;
  for (size_t line_no = 1; std::getline(lines, line); ++line_no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto where = [&](const std::string& why) {
      return Status::InvalidArgument(source + ":" + std::to_string(line_no) + ": " + why);
    };
    object o;
    if (auto e = parser.parse(line).get_object().get(o); e != simdjson::SUCCESS) {
      return where(std::string("not a JSON object (") + simdjson::error_message(e) + ")");
    }
    std::string name = Text(o, "config");
    if (name.empty()) name = BaseName(source);
    simdjson::dom::array rows;
    if (o["rows"].get_array().get(rows) == simdjson::SUCCESS) {  // simulate --json
      for (element r : rows) {
        object row;
        if (r.get_object().get(row) != simdjson::SUCCESS) return where("rows: expected objects");
        c->simulated.push_back({name, Text(row, "policy"), Number(row, "servers"), Number(row, "p50_us"),
                                Number(row, "p99_us"), Number(row, "p999_us"), Number(row, "extra_work")});
      }
      continue;
    }
    simdjson::dom::array sweep;
    if (o["sweep"].get_array().get(sweep) == simdjson::SUCCESS) {  // bench --rate A,B,...
      ComparedSweep s{name, {}};
      for (element p : sweep) {
        object point;
        if (p.get_object().get(point) != simdjson::SUCCESS) return where("sweep: expected objects");
        s.points.push_back(PointOf(point));
      }
      c->sweeps.push_back(std::move(s));
      continue;
    }
    LatencyHistogram h;
    std::string error;
    if (!HistogramOf(o, &h, &error)) {
      if (!error.empty()) return where(error);
      c->skipped.push_back(name);
      continue;
    }
    const std::string group = Text(o, "mode") + ", " + (Text(o, "load") == "open" ? "open loop" : "closed loop");
    auto it = std::find_if(c->runs.begin(), c->runs.end(), [&](const ComparedRun& r) { return r.name == name; });
    if (it == c->runs.end()) {
      c->runs.push_back(ComparedRun{name, group, {}, 0, 0, 0, 0, 0});
      it = c->runs.end() - 1;
    }
    it->latency.Merge(h);
    ++it->rounds;
    it->queries += static_cast<uint64_t>(Number(o, "queries"));
    it->requests += static_cast<uint64_t>(Number(o, "requests"));
    it->hedged += static_cast<uint64_t>(Number(o, "hedged_requests"));
    it->partial += static_cast<uint64_t>(Number(o, "partial_results"));
  }
  return Status::OK();
}

std::string ComparisonHtml(const Comparison& c, const std::string& title) {
  using namespace report_charts;
  std::string h = "<!DOCTYPE html><html><head><meta charset='utf-8'><title>" + HtmlEscape(title) +
                  "</title><style>body{font-family:sans-serif;max-width:820px;margin:2em auto}"
                  "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
                  "td:first-child{text-align:left}</style></head><body><h1>" + HtmlEscape(title) + "</h1>";
  // Bench runs: a CDF overlay and a table per group (mode and load).
  std::vector<std::string> groups;
  for (const auto& r : c.runs) {
    if (std::find(groups.begin(), groups.end(), r.group) == groups.end()) groups.push_back(r.group);
  }
  for (const auto& g : groups) {
    std::vector<std::pair<std::string, const LatencyHistogram*>> curves;
    std::string table = "<table><tr><th>configuration</th><th>rounds</th><th>queries</th><th>p50 µs</th><th>p99 µs</th>"
                        "<th>p99.9 µs</th><th>max µs</th><th>requests / query</th><th>partial</th></tr>";
    for (const auto& r : c.runs) {
      if (r.group != g) continue;
      curves.emplace_back(r.name, &r.latency);
      char buf[512];
      std::snprintf(buf, sizeof buf,
                    "<tr><td>%s</td><td>%zu</td><td>%llu</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td>"
                    "<td>%.2f</td><td>%llu</td></tr>",
                    HtmlEscape(r.name).c_str(), r.rounds, static_cast<unsigned long long>(r.queries),
                    r.latency.QuantileMicros(0.5), r.latency.QuantileMicros(0.99), r.latency.QuantileMicros(0.999),
                    r.latency.MaxMicros(), r.queries ? static_cast<double>(r.requests) / r.queries : 0.0,
                    static_cast<unsigned long long>(r.partial));
      table += buf;
    }
    h += "<h2>Latency CDF: " + HtmlEscape(g) + "</h2><p>Every configuration's whole-query latency (its rounds "
         "merged), log scale.</p>" + CdfOverlaySvg(curves) + table + "</table>";
  }
  for (const auto& s : c.sweeps) {
    std::vector<BenchSummary> points = s.points;
    std::sort(points.begin(), points.end(),
              [](const BenchSummary& a, const BenchSummary& b) { return a.load.rate_qps < b.load.rate_qps; });
    h += "<h2>Latency against offered load: " + HtmlEscape(s.name) + "</h2>" + LoadSvg(points, KneeOf(points));
  }
  std::vector<std::string> sims;
  for (const auto& r : c.simulated) {
    if (std::find(sims.begin(), sims.end(), r.simulation) == sims.end()) sims.push_back(r.simulation);
  }
  for (const auto& name : sims) {
    std::vector<CurvePoint> p99, p999;
    for (const auto& r : c.simulated) {
      if (r.simulation != name) continue;
      p99.push_back({r.policy, r.servers, r.p99_us});
      p999.push_back({r.policy, r.servers, r.p999_us});
    }
    h += "<h2>Tail against fan-out (simulated): " + HtmlEscape(name) + "</h2>" +
         CurvesSvg(p99, "servers (fan-out)", "p99 latency", true) +
         CurvesSvg(p999, "servers (fan-out)", "p99.9 latency", true);
  }
  if (!c.skipped.empty()) {
    h += "<p>Lines without a latency histogram, not drawn:";
    for (const auto& s : c.skipped) h += " " + HtmlEscape(s);
    h += ".</p>";
  }
  return h + "</body></html>\n";
}

}  // namespace dps
