// The HTML report of `dpsearch bench --report`: one self-contained page,
// charts drawn as inline SVG here (no script, no network).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "query/bench.h"
#include "query/result_format.h"
#include "query/latency_histogram.h"
#include "query/report_charts.h"

namespace dps {

namespace {

using namespace report_charts;

std::string Escape(const std::string& s) { return HtmlEscape(s); }

std::string CdfChart(const BenchSummary& summary) {
  if (summary.tablet_histograms.empty()) return "<p>No tablet timings.</p>";
  std::vector<std::pair<std::string, const LatencyHistogram*>> curves;
  for (const auto& [t, h] : summary.tablet_histograms) curves.emplace_back("tablet " + std::to_string(t), &h);
  return CdfOverlaySvg(curves);
}

std::string LastTabletChart(const BenchSummary& summary) {
  if (summary.finished_last.empty()) return "<p>No queries visited a tablet.</p>";
  uint64_t most = 1;
  for (const auto& [t, n] : summary.finished_last) most = std::max(most, n);
  const int x0 = kLeft, y0 = kHeight - kBottom, x1 = kWidth - kRight;
  const double bar = static_cast<double>(x1 - x0) / summary.tablet_done.size();
  std::string s = SvgOpen();
  s += "<line x1='" + std::to_string(x0) + "' y1='" + std::to_string(y0) + "' x2='" + std::to_string(x1) +
       "' y2='" + std::to_string(y0) + "' stroke='black'/>";
  size_t i = 0;
  for (const auto& [t, p] : summary.tablet_done) {
    const auto it = summary.finished_last.find(t);
    const uint64_t n = it == summary.finished_last.end() ? 0 : it->second;
    const double h = static_cast<double>(n) / most * (y0 - kTop - 10);
    const double x = x0 + i * bar + bar * 0.1;
    s += "<rect x='" + F(x) + "' y='" + F(y0 - h) + "' width='" + F(bar * 0.8) + "' height='" + F(h) +
         "' fill='" + kColors[i % 10] + "'/>";
    s += "<text x='" + F(x + bar * 0.4) + "' y='" + F(y0 - h - 3) + "' text-anchor='middle'>" +
         std::to_string(n) + "</text>";
    s += "<text x='" + F(x + bar * 0.4) + "' y='" + std::to_string(y0 + 16) + "' text-anchor='middle'>tablet " +
         std::to_string(t) + "</text>";
    ++i;
  }
  return s + "</svg>";
}

std::string TimelineChart(const BenchRecord& r) {
  if (r.bins.empty()) return "<p>The sample query visited no bin.</p>";
  double end = r.total_us;
  for (const auto& b : r.bins) end = std::max(end, b.queue_wait_us + b.service_us);
  end = std::max(end, 1.0);
  const int x0 = kLeft + 40, x1 = kWidth - kRight;
  const int row = std::max(8, std::min(24, (kHeight - kTop - kBottom) / static_cast<int>(r.bins.size())));
  const int height = kTop + kBottom + row * static_cast<int>(r.bins.size());
  std::string s = "<svg xmlns='http://www.w3.org/2000/svg' width='" + std::to_string(kWidth) + "' height='" +
                  std::to_string(height) + "' font-family='sans-serif' font-size='11'>";
  auto X = [&](double us) { return x0 + us / end * (x1 - x0); };
  std::vector<BinTiming> bins = r.bins;
  std::sort(bins.begin(), bins.end(), [](const BinTiming& a, const BinTiming& b) {
    return a.tablet != b.tablet ? a.tablet < b.tablet : a.bin < b.bin;
  });
  for (size_t i = 0; i < bins.size(); ++i) {
    const auto& b = bins[i];
    const int y = kTop + static_cast<int>(i) * row;
    s += "<text x='" + std::to_string(x0 - 4) + "' y='" + std::to_string(y + row - 3) +
         "' text-anchor='end'>t" + std::to_string(b.tablet) + " b" + std::to_string(b.bin) + "</text>";
    s += "<rect x='" + F(X(0)) + "' y='" + std::to_string(y + 1) + "' width='" + F(X(b.queue_wait_us) - X(0)) +
         "' height='" + std::to_string(row - 2) + "' fill='#ccc'><title>wait " + F(b.queue_wait_us) +
         " µs</title></rect>";
    s += "<rect x='" + F(X(b.queue_wait_us)) + "' y='" + std::to_string(y + 1) + "' width='" +
         F(std::max(1.0, X(b.queue_wait_us + b.service_us) - X(b.queue_wait_us))) + "' height='" +
         std::to_string(row - 2) + "' fill='" + kColors[b.tablet % 10] + "'><title>service " +
         F(b.service_us) + " µs, " + std::to_string(b.results) + " results</title></rect>";
  }
  const int axis = kTop + row * static_cast<int>(bins.size()) + 4;
  s += "<line x1='" + std::to_string(x0) + "' y1='" + std::to_string(axis) + "' x2='" + std::to_string(x1) +
       "' y2='" + std::to_string(axis) + "' stroke='black'/>";
  for (int k = 0; k <= 4; ++k) {
    const double us = end * k / 4;
    s += "<text x='" + F(X(us)) + "' y='" + std::to_string(axis + 14) + "' text-anchor='middle'>" + F(us) +
         " µs</text>";
  }
  if (r.ttfr_us >= 0) {
    s += "<line x1='" + F(X(r.ttfr_us)) + "' y1='" + std::to_string(kTop) + "' x2='" + F(X(r.ttfr_us)) +
         "' y2='" + std::to_string(axis) + "' stroke='green' stroke-dasharray='3,3'><title>first result</title></line>";
  }
  return s + "</svg>";
}

}  // namespace

std::string SweepHtml(const std::vector<BenchSummary>& sweep, const std::string& title) {
  std::string h = "<!DOCTYPE html><html><head><meta charset='utf-8'><title>" + Escape(title) +
                  "</title><style>body{font-family:sans-serif;max-width:800px;margin:2em auto}"
                  "pre{background:#f6f6f6;padding:8px}</style></head><body>";
  h += "<h1>" + Escape(title) + "</h1>";
  if (sweep.empty()) return h + "<p>No rates ran.</p></body></html>\n";
  h += "<p>" + Escape(sweep.front().mode.Describe()) + ", open loop: arrivals on a Poisson schedule at each offered "
       "rate, every query's latency from the moment it was due (no coordinated omission).</p>";
  h += "<pre>" + Escape(SweepText(sweep)) + "</pre>";
  h += "<h2>Latency against offered load</h2><p>Percentiles of whole-query latency (log scale) at each offered "
       "rate; the knee is the highest rate sustained before the first that saturates.</p>" +
       LoadSvg(sweep, KneeOf(sweep));
  std::vector<std::pair<std::string, const LatencyHistogram*>> curves;
  for (const auto& p : sweep) curves.emplace_back(F(p.load.rate_qps) + " qps offered", &p.total_histogram);
  h += "<h2>Latency CDF at each rate</h2>" + CdfOverlaySvg(curves);
  h += "<h2>Machine-readable summary</h2><pre>" + Escape(SweepJson(sweep)) + "</pre></body></html>\n";
  return h;
}

std::string BenchHtml(const BenchSummary& summary, const std::vector<BenchRecord>& records,
                      const std::string& title) {
  // The sample query: the one whose total latency is closest to the median
  // among those that visited several bins.
  const BenchRecord* sample = nullptr;
  for (const auto& r : records) {
    if (!r.error.empty() || r.bins.size() < 2) continue;
    if (sample == nullptr ||
        std::abs(r.total_us - summary.total.p50) < std::abs(sample->total_us - summary.total.p50)) {
      sample = &r;
    }
  }
  std::string h = "<!DOCTYPE html><html><head><meta charset='utf-8'><title>" + Escape(title) +
                  "</title><style>body{font-family:sans-serif;max-width:800px;margin:2em auto}"
                  "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;"
                  "text-align:right}pre{background:#f6f6f6;padding:8px}</style></head><body>";
  h += "<h1>" + Escape(title) + "</h1>";
  if (summary.mode.top_k > 0) {
    h += "<p><b>Ranked run</b>: each query's " + Escape(summary.mode.Describe()) +
         ". Its answer is merged once every bin has answered, so the first result waits for the slowest "
         "tablet: the straggler case at its worst.</p>";
  } else {
    h += "<p>" + Escape(summary.mode.Describe()) + " run: results stream as bins finish.</p>";
  }
  h += "<pre>" + Escape(BenchText(summary)) + "</pre>";
  h += "<p>Load: " + Escape(summary.load.Describe()) + ".";
  if (summary.load.open()) {
    h += " Each query's latency runs from the moment its Poisson arrival was due, so time spent waiting to "
         "start (every in-flight slot busy, or the system stalled) is counted, as a user would feel it.";
  } else {
    h += " A closed loop asks its next query only when the last is answered, so while the system stalls no "
         "queries arrive to suffer it: its tail understates what users at the same rate would see.";
  }
  h += "</p>";
  h += "<h2>Latency CDF per tablet</h2><p>Time from fan-out until each tablet finished its last bin, "
       "over all queries (log scale).</p>" + CdfChart(summary);
  h += "<h2>Which tablet finished last</h2><p>Queries whose slowest tablet was each one.</p>" +
       LastTabletChart(summary);
  if (sample != nullptr) {
    h += "<h2>Fan-out of one query</h2><p>Query <code>" + Escape(sample->id) + "</code> (total " +
         F(sample->total_us) + " µs, the closest to the median): per bin, queue wait (grey) then service "
         "(colour); the dashed line is the first result.</p>" + TimelineChart(*sample);
  }
  h += "<h2>Machine-readable summary</h2><pre>" + Escape(BenchJson(summary)) + "</pre></body></html>\n";
  return h;
}

}  // namespace dps
