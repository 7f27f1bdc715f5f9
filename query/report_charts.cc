// The SVG charts of the HTML reports (bench, sweeps, simulate, report).
#include "query/report_charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "query/result_format.h"

namespace dps::report_charts {

namespace {
std::string Escape(const std::string& s) { return HtmlEscape(s); }
std::string Num(double v, const char* format = "%.1f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
}  // namespace

std::string F(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string SvgOpen() {
  return "<svg xmlns='http://www.w3.org/2000/svg' width='" + std::to_string(kWidth) + "' height='" +
         std::to_string(kHeight) + "' font-family='sans-serif' font-size='11'>";
}

// Axes with a log-scaled x (microseconds) and ticks at powers of ten.
std::string LogAxes(double lo, double hi, const std::string& ylabel) {
  std::string s;
  const int x0 = kLeft, y0 = kHeight - kBottom, x1 = kWidth - kRight;
  s += "<line x1='" + std::to_string(x0) + "' y1='" + std::to_string(y0) + "' x2='" + std::to_string(x1) +
       "' y2='" + std::to_string(y0) + "' stroke='black'/>";
  s += "<line x1='" + std::to_string(x0) + "' y1='" + std::to_string(kTop) + "' x2='" + std::to_string(x0) +
       "' y2='" + std::to_string(y0) + "' stroke='black'/>";
  for (double t = std::pow(10, std::floor(std::log10(lo))); t <= hi * 1.0001; t *= 10) {
    if (t < lo) continue;
    const double x = x0 + (std::log10(t) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * (x1 - x0);
    s += "<line x1='" + F(x) + "' y1='" + std::to_string(y0) + "' x2='" + F(x) + "' y2='" +
         std::to_string(y0 + 4) + "' stroke='black'/>";
    const std::string label = t >= 1e6 ? F(t / 1e6) + " s" : t >= 1e3 ? F(t / 1e3) + " ms" : F(t) + " µs";
    s += "<text x='" + F(x) + "' y='" + std::to_string(y0 + 16) + "' text-anchor='middle'>" + label + "</text>";
  }
  s += "<text x='4' y='" + std::to_string(kTop - 8) + "'>" + ylabel + "</text>";
  return s;
}

// Horizontal grid lines at 50, 90 and 99% for a CDF.
std::string CdfGrid() {
  const int x0 = kLeft, y0 = kHeight - kBottom, x1 = kWidth - kRight;
  std::string s;
  for (double f : {0.5, 0.9, 0.99}) {
    const double y = y0 - f * (y0 - kTop);
    s += "<line x1='" + std::to_string(x0) + "' y1='" + F(y) + "' x2='" + std::to_string(x1) + "' y2='" + F(y) +
         "' stroke='#ddd'/><text x='" + std::to_string(x0 - 4) + "' y='" + F(y + 4) +
         "' text-anchor='end'>" + F(f * 100) + "%</text>";
  }
  return s;
}

// One curve per named histogram (the fraction of queries at or below each
// bucket's highest value), on a shared log-scaled x axis.
std::string CdfOverlaySvg(const std::vector<std::pair<std::string, const LatencyHistogram*>>& curves) {
  double lo = 1e18, hi = 1;
  for (const auto& [name, h] : curves) {
    if (h->count() == 0) continue;
    lo = std::min(lo, std::max(1.0, h->MinMicros()));
    hi = std::max(hi, h->MaxMicros());
  }
  if (lo > hi) return "<p>No timings.</p>";
  lo = std::pow(10, std::floor(std::log10(lo)));
  hi = std::max(hi, lo * 10);
  const int x0 = kLeft, y0 = kHeight - kBottom, x1 = kWidth - kRight;
  // The legend goes below the chart, three names a row: on the chart it
  // hid the curves' upper ends. Past ten curves the colours repeat dashed.
  constexpr int kLegendRow = 14, kLegendColumns = 3;
  const int rows = static_cast<int>((curves.size() + kLegendColumns - 1) / kLegendColumns);
  const int height = kHeight + 8 + rows * kLegendRow;
  std::string s = "<svg xmlns='http://www.w3.org/2000/svg' width='" + std::to_string(kWidth) + "' height='" +
                  std::to_string(height) + "' font-family='sans-serif' font-size='11'>" +
                  LogAxes(lo, hi, "fraction of queries") + CdfGrid();
  size_t color = 0;
  for (const auto& [name, h] : curves) {
    if (h->count() == 0) continue;
    std::string points;
    uint64_t seen = 0;
    for (const auto& [us, n] : h->Buckets()) {
      seen += n;
      const double x =
          x0 + (std::log10(std::max(lo, us)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * (x1 - x0);
      const double y = y0 - static_cast<double>(seen) / static_cast<double>(h->count()) * (y0 - kTop);
      points += F(x) + "," + F(y) + " ";
    }
    const size_t i = color++;
    const char* c = kColors[i % 10];
    const std::string dash = i >= 10 ? "' stroke-dasharray='5,3" : "";
    s += "<polyline fill='none' stroke='" + std::string(c) + "' stroke-width='1.5" + dash + "' points='" + points +
         "'/>";
    const int lx = kLeft + static_cast<int>(i % kLegendColumns) * ((kWidth - kLeft) / kLegendColumns);
    const int ly = kHeight + 8 + static_cast<int>(i / kLegendColumns) * kLegendRow;
    s += "<line x1='" + std::to_string(lx) + "' y1='" + std::to_string(ly - 4) + "' x2='" + std::to_string(lx + 18) +
         "' y2='" + std::to_string(ly - 4) + "' stroke='" + c + "' stroke-width='2" + dash + "'/>";
    s += "<text x='" + std::to_string(lx + 22) + "' y='" + std::to_string(ly) + "' fill='" + c + "'>" + Escape(name) +
         "</text>";
  }
  return s + "</svg>";
}

// Latency percentiles (log y) against offered load (linear x), one curve
// per percentile, the knee marked.
std::string LoadSvg(const std::vector<BenchSummary>& sweep, int knee) {
  double lo = 1e18, hi = 1, top_rate = 1;
  for (const auto& p : sweep) {
    lo = std::min(lo, std::max(1.0, p.total.p50));
    hi = std::max(hi, p.total.p999);
    top_rate = std::max(top_rate, p.load.rate_qps);
  }
  lo = std::pow(10, std::floor(std::log10(lo)));
  hi = std::max(hi, lo * 10);
  const int x0 = kLeft, y0 = kHeight - kBottom, x1 = kWidth - kRight;
  auto X = [&](double qps) { return x0 + qps / top_rate * (x1 - x0); };
  auto Y = [&](double us) {
    return y0 - (std::log10(std::max(lo, us)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * (y0 - kTop);
  };
  std::string s = SvgOpen();
  s += "<line x1='" + std::to_string(x0) + "' y1='" + std::to_string(y0) + "' x2='" + std::to_string(x1) + "' y2='" +
       std::to_string(y0) + "' stroke='black'/><line x1='" + std::to_string(x0) + "' y1='" + std::to_string(kTop) +
       "' x2='" + std::to_string(x0) + "' y2='" + std::to_string(y0) + "' stroke='black'/>";
  for (double t = lo; t <= hi * 1.0001; t *= 10) {
    const std::string label = t >= 1e6 ? F(t / 1e6) + " s" : t >= 1e3 ? F(t / 1e3) + " ms" : F(t) + " µs";
    s += "<text x='" + std::to_string(x0 - 4) + "' y='" + F(Y(t) + 4) + "' text-anchor='end'>" + label + "</text>";
  }
  for (const auto& p : sweep) {
    s += "<text x='" + F(X(p.load.rate_qps)) + "' y='" + std::to_string(y0 + 16) + "' text-anchor='middle'>" +
         F(p.load.rate_qps) + "</text>";
  }
  s += "<text x='" + std::to_string((x0 + x1) / 2) + "' y='" + std::to_string(y0 + 32) +
       "' text-anchor='middle'>offered queries a second</text>";
  if (knee >= 0) {
    const double x = X(sweep[static_cast<size_t>(knee)].load.rate_qps);
    s += "<line x1='" + F(x) + "' y1='" + std::to_string(kTop) + "' x2='" + F(x) + "' y2='" + std::to_string(y0) +
         "' stroke='#999' stroke-dasharray='4,3'/><text x='" + F(x + 3) + "' y='" + std::to_string(kTop + 10) +
         "'>knee</text>";
  }
  const std::pair<const char*, double Percentiles::*> lines[] = {
      {"p50", &Percentiles::p50}, {"p99", &Percentiles::p99}, {"p99.9", &Percentiles::p999}};
  int legend_y = kTop + 12;
  for (size_t c = 0; c < 3; ++c) {
    std::string points;
    for (const auto& p : sweep) points += F(X(p.load.rate_qps)) + "," + F(Y(p.total.*lines[c].second)) + " ";
    s += "<polyline fill='none' stroke='" + std::string(kColors[c]) + "' stroke-width='1.5' points='" + points +
         "'/><text x='" + std::to_string(x0 + 10) + "' y='" + std::to_string(legend_y) + "' fill='" + kColors[c] +
         "'>" + lines[c].first + "</text>";
    legend_y += 13;
  }
  return s + "</svg>";
}

std::string CurvesSvg(const std::vector<CurvePoint>& points, const std::string& xlabel, const std::string& ylabel,
                      bool log_y) {
  constexpr int kW = 760, kH = 340, kL = 70, kR = 170, kT = 20, kB = 40;
  std::map<std::string, std::vector<std::pair<double, double>>> lines;  // line -> (x, y)
  std::vector<std::string> order;
  double x_lo = 1e18, x_hi = 1, y_lo = 1e18, y_hi = -1e18;
  for (const auto& p : points) {
    if (!lines.count(p.line)) order.push_back(p.line);
    lines[p.line].emplace_back(p.x, p.y);
    x_lo = std::min(x_lo, std::max(1e-9, p.x));
    x_hi = std::max(x_hi, p.x);
    y_lo = std::min(y_lo, p.y);
    y_hi = std::max(y_hi, p.y);
  }
  if (points.empty()) return "";
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
  s += "<text x='" + Num((kL + kW - kR) / 2.0) + "' y='" + Num(kH - 6) + "' text-anchor='middle'>" + Escape(xlabel) + "</text>";
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
    std::string line;
    for (const auto& [x, y] : pts) line += Num(X(x)) + "," + Num(Y(y)) + " ";
    const char* c = kColors[i % 10];
    s += "<polyline fill='none' stroke='" + std::string(c) + "' stroke-width='1.5' points='" + line + "'/>";
    for (const auto& [x, y] : pts) s += "<circle cx='" + Num(X(x)) + "' cy='" + Num(Y(y)) + "' r='2' fill='" + c + "'/>";
    s += "<text x='" + Num(kW - kR + 8) + "' y='" + Num(kT + 12 + 13.0 * i) + "' fill='" + c + "'>" + Escape(order[i]) +
         "</text>";
  }
  return s + "</svg>";
}


}  // namespace dps::report_charts
