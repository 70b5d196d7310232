// Validation comparisons: efficiency from throughputs or reported efficiencies, errors, medians.
#include "analysis/validation.hpp"

#include <doctest/doctest.h>

using namespace ceiling::analysis;

namespace {

ValidationCase series(std::vector<MeasuredPoint> points) {
  ValidationCase c{.id = "c"};
  c.measured = std::move(points);
  return c;
}

} // namespace

TEST_CASE("efficiency is throughput per worker against the smallest N's, and the error is in points") {
  // Measured 100/s on 1 worker, 180/s on 2, 320/s on 4: E = 1, 0.9, 0.8. Predicted 100, 190,
  // 292: E = 1, 0.95, 0.73. Expectation: errors 0, +5, -7 points; median |error| 6, worst -7
  // (the signed error of largest magnitude).
  const auto c = compare(series({{1, 100.0, {}}, {2, 180.0, {}}, {4, 320.0, {}}}), {100, 190, 292});
  REQUIRE(c.points.size() == 3);
  CHECK(c.points[1].measured_efficiency == doctest::Approx(0.9));
  CHECK(c.points[2].predicted_efficiency == doctest::Approx(0.73));
  CHECK(c.points[1].error_points == doctest::Approx(5));
  CHECK(c.points[2].error_points == doctest::Approx(-7));
  CHECK(c.median_abs_error_points == doctest::Approx(6));
  CHECK(c.worst_error_points == doctest::Approx(-7));
}

TEST_CASE("a series that reports efficiencies only is compared on them, from its own smallest N") {
  // Horovod's docs: 0.9 at 128 and 512 GPUs, no throughput. Predicted 128 -> 1000/s, 512 -> 3600/s:
  // E(512) = (3600/512) / (1000/128) = 0.9. Expectation: errors 100 x (1 - 0.9) = +10 at the
  // reference (kept, not counted) and 0 at 512.
  const auto c = compare(series({{128, {}, 0.9}, {512, {}, 0.9}}), {1000, 3600});
  CHECK(c.points[0].error_points == doctest::Approx(10));
  CHECK(c.points[1].error_points == doctest::Approx(0));
  CHECK(c.median_abs_error_points == doctest::Approx(0));
}

TEST_CASE("an efficiency the source reports beside a throughput stands in place of the throughputs' one") {
  // Goyal et al.: 1104/s on 8 GPUs, 32029/s on 256 (E 0.9066 from them), whose efficiency the
  // paper reports as 0.90. Predicted 1000 and 28000/s: E = 0.875. Expectation: measured E 0.90
  // exactly, the error 100 x (0.875 - 0.90) = -2.5 points; the throughput kept for the ratio.
  const auto c = compare(series({{8, 1104.0, {}}, {256, 32029.0, 0.90}}), {1000, 28000});
  CHECK(c.points[1].measured_efficiency == 0.90);
  CHECK(c.points[1].error_points == doctest::Approx(-2.5));
  CHECK(c.points[1].measured_throughput == 32029.0);
}

TEST_CASE("the summary takes the median over every point after each case's reference") {
  const auto a = compare(series({{1, 1.0, {}}, {2, 2.0, {}}}), {1, 1.8});  // -10
  const auto b = compare(series({{1, 1.0, {}}, {2, 1.0, {}}}), {1, 1.2});  // +10
  const auto d = compare(series({{1, 1.0, {}}, {4, 4.0, {}}}), {1, 3.92}); // -2
  const auto s = summarize({a, b, d});
  CHECK(s.points == 3);
  CHECK(s.median_abs_error_points == doctest::Approx(10));
  CHECK(std::abs(s.worst_error_points) == doctest::Approx(10));
}
