// The inline SVG charts of dpsearch's HTML reports (bench, rate sweeps,
// simulate, report): no script, no network, one self-contained page.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "query/bench.h"
#include "query/latency_histogram.h"

namespace dps::report_charts {

inline constexpr int kWidth = 760, kHeight = 320, kLeft = 60, kBottom = 40, kTop = 20, kRight = 20;
inline constexpr const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string F(double v);  // "%.1f"
std::string SvgOpen();    // kWidth x kHeight
// Axes with a log-scaled x (microseconds), ticks at powers of ten.
std::string LogAxes(double lo, double hi, const std::string& ylabel);
// Horizontal grid lines at 50, 90 and 99% for a CDF.
std::string CdfGrid();

// One CDF per named histogram on a shared log-scaled x axis.
std::string CdfOverlaySvg(const std::vector<std::pair<std::string, const LatencyHistogram*>>& curves);
// p50, p99 and p99.9 (log y) against offered load (linear x), the knee marked (-1: none).
std::string LoadSvg(const std::vector<BenchSummary>& sweep, int knee);

struct CurvePoint {
  std::string line;  // legend
  double x = 0, y = 0;
};
// Lines of points, log x; y log (latencies, µs) or linear (fractions, as %).
std::string CurvesSvg(const std::vector<CurvePoint>& points, const std::string& xlabel, const std::string& ylabel,
                      bool log_y);

}  // namespace dps::report_charts
