// The table a sweep ends with: each curve's cells, as its analysis gives them.
#include "analysis/curve_analysis.hpp"
#include "tools/sweep/headlines.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace ceiling;

namespace {

/// A store of one strong curve whose iteration times over `nodes` are `times_s` (compute alone).
io::ResultFile one_curve(const std::vector<double>& nodes, const std::vector<double>& times_s) {
  io::ResultFile r;
  r.curves.push_back({.id = "p / w / v / strong",
                      .platform = "p",
                      .workload = "w",
                      .variant = "v",
                      .scaling = analysis::Scaling::Strong});
  std::vector<analysis::CurvePoint> points;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    points.push_back({.n = nodes[i],
                      .iteration_time_s = times_s[i],
                      .samples_per_iteration = 64,
                      .compute_s = times_s[i]});
  r.analyses.push_back(analysis::analyse(points, analysis::Scaling::Strong));
  return r;
}

/// The table's line of the curve.
std::string row_of(const std::string& table) {
  const auto at = table.find("p / w / v / strong");
  REQUIRE(at != std::string::npos);
  return table.substr(at, table.find('\n', at) - at);
}

} // namespace

TEST_CASE("a curve at perfect scaling has an unbounded ceiling and never falls to E = 0.5") {
  // T(n) = 1/n exactly: S = n, E = 1, 1 - alpha_eff = 0 at every n, the fit's alpha 1.
  const auto r = one_curve({1, 2, 4, 8}, {1.0, 0.5, 0.25, 0.125});
  REQUIRE(r.analyses[0].fit.alpha == 1);
  REQUIRE(r.analyses[0].fit.amdahl_shaped);
  const std::string table = tools::headlines(r);
  const std::string row = row_of(table);
  CHECK(row.find("never f") != std::string::npos);
  CHECK(row.find("unbounded") != std::string::npos);
  CHECK(row.find("inf") == std::string::npos);
  CHECK(table.find("unbounded: alpha clamped to 1") != std::string::npos);
}

TEST_CASE("an Amdahl curve's row gives its fitted ceiling and N at E = 0.5") {
  // T(n) = 0.1 + 0.9 / n: alpha = 0.9, ceiling 1 / 0.1 = 10, the fit's E = 0.5 at
  // (2 - alpha) / (1 - alpha) = 11 (no measured point reaches it).
  const std::vector<double> nodes{1, 2, 4, 8};
  std::vector<double> times;
  for (double n : nodes)
    times.push_back(0.1 + 0.9 / n);
  const auto r = one_curve(nodes, times);
  const std::string row = row_of(tools::headlines(r));
  CHECK(row.find("11 f") != std::string::npos);
  CHECK(row.find("       10 ") != std::string::npos);
}
