// `dpsearch simulate`'s outputs: a table, one JSON object, an HTML page.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "query/result_format.h"
#include "query/simulator.h"

namespace dps {

namespace {

std::string Num(double v, const char* format = "%.1f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string Escape(const std::string& s) { return HtmlEscape(s); }

const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                               "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// One chart: `value(row)` against servers, a line per policy, log-log.
template <typename Value>
std::string Chart(const std::vector<SimRow>& rows, const std::string& ylabel, Value value, bool log_y) {
  constexpr int kW = 760, kH = 340, kL = 70, kR = 170, kT = 20, kB = 40;
  std::map<std::string, std::vector<std::pair<double, double>>> lines;  // policy -> (servers, value)
  std::vector<std::string> order;
  double x_lo = 1e18, x_hi = 1, y_lo = 1e18, y_hi = -1e18;
  for (const auto& r : rows) {
    const double y = value(r);
    if (!lines.count(r.policy)) order.push_back(r.policy);
    lines[r.policy].emplace_back(static_cast<double>(r.servers), y);
    x_lo = std::min(x_lo, static_cast<double>(r.servers));
    x_hi = std::max(x_hi, static_cast<double>(r.servers));
    y_lo = std::min(y_lo, y);
    y_hi = std::max(y_hi, y);
  }
  if (rows.empty()) return "";
  if (log_y) {
    y_lo = std::pow(10, std::floor(std::log10(std::max(1.0, y_lo))));
    y_hi = std::max(y_hi, y_lo * 10);
  } else {
    y_lo = std::min(0.0, y_lo);
    y_hi = std::max(y_hi, y_lo + 1e-9);
  }
  x_hi = std::max(x_hi, x_lo * 2);
  auto X = [&](double x) { return kL + (std::log10(x) - std::log10(x_lo)) / (std::log10(x_hi) - std::log10(x_lo)) * (kW - kL - kR); };
  auto Y = [&](double y) {
    const double f = log_y ? (std::log10(std::max(y, y_lo)) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo))
                           : (y - y_lo) / (y_hi - y_lo);
    return kH - kB - f * (kH - kB - kT);
  };
  std::string s = "<svg xmlns='http://www.w3.org/2000/svg' width='" + std::to_string(kW) + "' height='" +
                  std::to_string(kH) + "' font-family='sans-serif' font-size='11'>";
  s += "<line x1='" + Num(kL) + "' y1='" + Num(kH - kB) + "' x2='" + Num(kW - kR) + "' y2='" + Num(kH - kB) +
       "' stroke='black'/><line x1='" + Num(kL) + "' y1='" + Num(kT) + "' x2='" + Num(kL) + "' y2='" + Num(kH - kB) +
       "' stroke='black'/>";
  for (double x = std::pow(10, std::floor(std::log10(x_lo))); x <= x_hi * 1.0001; x *= 10) {
    if (x < x_lo) continue;
    s += "<text x='" + Num(X(x)) + "' y='" + Num(kH - kB + 14) + "' text-anchor='middle'>" + Num(x, "%.0f") + "</text>";
  }
  s += "<text x='" + Num((kL + kW - kR) / 2.0) + "' y='" + Num(kH - 6) + "' text-anchor='middle'>servers (fan-out)</text>";
  if (log_y) {
    for (double y = y_lo; y <= y_hi * 1.0001; y *= 10) {
      const std::string label = y >= 1e6 ? Num(y / 1e6, "%g") + " s" : y >= 1e3 ? Num(y / 1e3, "%g") + " ms" : Num(y, "%g") + " µs";
      s += "<text x='" + Num(kL - 4) + "' y='" + Num(Y(y) + 4) + "' text-anchor='end'>" + label + "</text>";
    }
  } else {
    for (int k = 0; k <= 4; ++k) {
      const double y = y_lo + (y_hi - y_lo) * k / 4;
      s += "<text x='" + Num(kL - 4) + "' y='" + Num(Y(y) + 4) + "' text-anchor='end'>" + Num(100 * y, "%.0f") + "%</text>";
    }
  }
  s += "<text x='4' y='" + Num(kT - 6) + "'>" + Escape(ylabel) + "</text>";
  for (size_t i = 0; i < order.size(); ++i) {
    auto& pts = lines[order[i]];
    std::sort(pts.begin(), pts.end());
    std::string points;
    for (const auto& [x, y] : pts) points += Num(X(x)) + "," + Num(Y(y)) + " ";
    const char* c = kColors[i % 10];
    s += "<polyline fill='none' stroke='" + std::string(c) + "' stroke-width='1.5' points='" + points + "'/>";
    for (const auto& [x, y] : pts) s += "<circle cx='" + Num(X(x)) + "' cy='" + Num(Y(y)) + "' r='2' fill='" + c + "'/>";
    s += "<text x='" + Num(kW - kR + 8) + "' y='" + Num(kT + 12 + 13.0 * i) + "' fill='" + c + "'>" + Escape(order[i]) +
         "</text>";
  }
  return s + "</svg>";
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
