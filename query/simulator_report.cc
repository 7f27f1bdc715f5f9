// `dpsearch simulate`'s outputs: a table, one JSON object, an HTML page.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "query/result_format.h"
#include "query/report_charts.h"
#include "query/simulator.h"

namespace dps {

namespace {

std::string Num(double v, const char* format = "%.1f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string Escape(const std::string& s) { return HtmlEscape(s); }

template <typename Value>
std::string Chart(const std::vector<SimRow>& rows, const std::string& ylabel, Value value, bool log_y) {
  std::vector<report_charts::CurvePoint> points;
  for (const auto& r : rows) points.push_back({r.policy, static_cast<double>(r.servers), value(r)});
  return report_charts::CurvesSvg(points, "servers (fan-out)", ylabel, log_y);
}

}  // namespace

std::string SimulationText(const std::vector<SimRow>& rows) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%8s  %-28s %10s %10s %10s %10s %10s %8s %8s %8s\n", "servers", "policy", "p50 us",
                "p90 us", "p99 us", "p99.9 us", "max us", "+req", "+work", "partial");
  out += buf;
  for (const auto& r : rows) {
    const SimResult& s = r.result;
    std::snprintf(buf, sizeof buf, "%8zu  %-28s %10.1f %10.1f %10.1f %10.1f %10.1f %7.1f%% %7.1f%% %7.2f%%\n", r.servers,
                  r.policy.c_str(), s.latency.QuantileMicros(0.5), s.latency.QuantileMicros(0.9),
                  s.latency.QuantileMicros(0.99), s.latency.QuantileMicros(0.999), s.latency.MaxMicros(),
                  100 * s.ExtraRequests(), 100 * s.ExtraWork(),
                  s.queries == 0 ? 0.0 : 100.0 * static_cast<double>(s.partial) / static_cast<double>(s.queries));
    out += buf;
  }
  return out;
}

std::string SimulationJson(const std::vector<SimRow>& rows, const std::string& description) {
  std::string j = "{\"simulation\":\"" + JsonEscape(description) + "\",\"rows\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    const SimResult& s = rows[i].result;
    j += i ? ",{" : "{";
    j += "\"servers\":" + std::to_string(rows[i].servers) + ",\"policy\":\"" + JsonEscape(rows[i].policy) + "\"";
    j += ",\"queries\":" + std::to_string(s.queries) + ",\"partial_results\":" + std::to_string(s.partial);
    j += ",\"p50_us\":" + Num(s.latency.QuantileMicros(0.5)) + ",\"p90_us\":" + Num(s.latency.QuantileMicros(0.9)) +
         ",\"p99_us\":" + Num(s.latency.QuantileMicros(0.99)) + ",\"p999_us\":" + Num(s.latency.QuantileMicros(0.999)) +
         ",\"max_us\":" + Num(s.latency.MaxMicros());
    j += ",\"requests\":" + std::to_string(s.requests) + ",\"hedged_requests\":" + std::to_string(s.hedged) +
         ",\"tied_pairs\":" + std::to_string(s.tied) + ",\"tied_cancelled\":" + std::to_string(s.tied_cancelled) +
         ",\"tied_both_started\":" + std::to_string(s.tied_both_started);
    j += ",\"extra_requests\":" + Num(s.ExtraRequests(), "%.4f") + ",\"extra_work\":" + Num(s.ExtraWork(), "%.4f");
    j += ",\"simulated_seconds\":" + Num(s.simulated_seconds, "%.3f") + "}";
  }
  return j + "]}";
}

std::string SimulationHtml(const std::vector<SimRow>& rows, const std::string& title, const std::string& description) {
  std::string h = "<!DOCTYPE html><html><head><meta charset='utf-8'><title>" + Escape(title) +
                  "</title><style>body{font-family:sans-serif;max-width:820px;margin:2em auto}"
                  "pre{background:#f6f6f6;padding:8px;overflow-x:auto}</style></head><body>";
  h += "<h1>" + Escape(title) + "</h1><p>" + Escape(description) + "</p>";
  h += "<h2>p99 against fan-out</h2><p>Each query waits for its slowest server: as the fan-out grows, a rare "
       "slow request becomes the common case (Dean and Barroso, The Tail at Scale).</p>" +
       Chart(rows, "p99 latency", [](const SimRow& r) { return r.result.latency.QuantileMicros(0.99); }, true);
  h += "<h2>p50 against fan-out</h2>" +
       Chart(rows, "p50 latency", [](const SimRow& r) { return r.result.latency.QuantileMicros(0.5); }, true);
  h += "<h2>p99.9 against fan-out</h2>" +
       Chart(rows, "p99.9 latency", [](const SimRow& r) { return r.result.latency.QuantileMicros(0.999); }, true);
  h += "<h2>Extra work against fan-out</h2><p>Tablet runs begun beyond one per tablet and query (hedges, and tied "
       "twins that started before their cancel arrived).</p>" +
       Chart(rows, "extra work", [](const SimRow& r) { return r.result.ExtraWork(); }, false);
  h += "<h2>Table</h2><pre>" + Escape(SimulationText(rows)) + "</pre>";
  h += "<h2>Machine-readable</h2><pre>" + Escape(SimulationJson(rows, description)) + "</pre></body></html>\n";
  return h;
}

}  // namespace dps
