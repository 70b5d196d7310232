// Curve analysis: Végh's alpha_eff, the Amdahl fit and its closed forms, the parts of
// (1 - alpha_eff), and the per-n averaging, on curves built from closed forms.
#include "analysis/curve_analysis.hpp"

#include "support/relative.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <utility>
#include <vector>

using ceiling::analysis::analyse;
using ceiling::analysis::CurveAnalysis;
using ceiling::analysis::CurvePoint;
using ceiling::analysis::PointMetrics;
using ceiling::analysis::Scaling;
using ceiling::testing::relative;

namespace analysis = ceiling::analysis;

namespace {

constexpr double reference_time_s = 2.0; // T(n0) of the synthesised curves
constexpr double samples_per_rank = 32;  // weak: the batch per rank
constexpr double global_batch = 1024;    // strong: the batch of all ranks

/// Amdahl's speedup (A1) at r units of the reference.
double amdahl_speedup(double r, double alpha) {
  return 1 / ((1 - alpha) + alpha / r);
}

/// Samples per iteration: per rank fixed when weak, in total when strong.
double samples(double n, Scaling scaling) {
  return scaling == Scaling::Weak ? samples_per_rank * n : global_batch;
}

/// n0, 2 n0, ..., 4096 n0.
std::vector<double> doublings(double n0) {
  std::vector<double> n;
  for (double r = 1; r <= 4096; r *= 2)
    n.push_back(n0 * r);
  return n;
}

/// An exact Amdahl curve over doublings(n0): the parallel share alpha of the reference time is
/// compute (the same per rank when weak, divided by r when strong), the serial share 1 - alpha
/// is split 0.5 / 0.3 / 0.2 into communication, copy and synchronisation (multiplied by r when
/// weak, fixed when strong). The iteration time is the sum of the parts.
std::vector<CurvePoint> amdahl_curve(double alpha, Scaling scaling, double n0 = 1) {
  std::vector<CurvePoint> curve;
  for (double n : doublings(n0)) {
    const double r = n / n0;
    const bool weak = scaling == Scaling::Weak;
    const double serial = (1 - alpha) * reference_time_s * (weak ? r : 1);
    CurvePoint p{.n = n,
                 .samples_per_iteration = samples(n, scaling),
                 .compute_s = alpha * reference_time_s / (weak ? 1 : r),
                 .copy_s = 0.3 * serial,
                 .communication_s = 0.5 * serial,
                 .synchronisation_s = 0.2 * serial};
    p.iteration_time_s = p.compute_s + p.copy_s + p.communication_s + p.synchronisation_s;
    curve.push_back(p);
  }
  return curve;
}

/// A curve with the speedup S at each (n, S), the first n the reference (S = 1 there): the time
/// is reference_time_s / S when strong and reference_time_s r / S when weak, all of it compute.
std::vector<CurvePoint> curve_with_speedups(const std::vector<std::pair<double, double>>& table,
                                            Scaling scaling) {
  std::vector<CurvePoint> curve;
  for (auto [n, speedup] : table) {
    const double r = n / table.front().first;
    const double t = reference_time_s * (scaling == Scaling::Weak ? r : 1) / speedup;
    curve.push_back({.n = n,
                     .iteration_time_s = t,
                     .samples_per_iteration = samples(n, scaling),
                     .compute_s = t});
  }
  return curve;
}

/// The smallest r = 2^k above x whose doubling 2r is still on doublings(); NaN when none.
double first_doubling_above(double x) {
  for (double r = 1; 2 * r <= 4096; r *= 2)
    if (r > x)
      return r;
  return std::nan("");
}

} // namespace

TEST_SUITE_BEGIN("analysis");

TEST_CASE("an exact Amdahl curve gives back its alpha, ceiling, n_half and n_doubling") {
  for (Scaling scaling : {Scaling::Weak, Scaling::Strong}) {
    for (double alpha : {0.5, 0.9, 0.99, 0.999}) {
      CAPTURE(analysis::to_string(scaling));
      CAPTURE(alpha);
      const auto curve = amdahl_curve(alpha, scaling);
      const CurveAnalysis a = analyse(curve, scaling);
      REQUIRE(a.points.size() == 13);
      CHECK(a.scaling == scaling);
      CHECK(a.n_reference == 1);
      // Expectation: 1/S = 1/n + (1 - alpha)(1 - 1/n) at every n, so every relative error
      // S / S_fit - 1 is 0 at alpha and the least squares return it; 1e-9 relative (rounding of
      // the synthesised times only).
      CHECK(a.fit.alpha == relative(alpha, 1e-9));
      // Expectation: (D3) 1 / (1 - alpha); E = 1 / (n (1 - alpha) + alpha) = 1/2 at
      // n = (2 - alpha) / (1 - alpha); S(2n) / S(n) = ((1 - alpha) + alpha / n) /
      // ((1 - alpha) + alpha / (2n)) = 1.1 at 0.45 alpha / n = 0.1 (1 - alpha), i.e.
      // n = 4.5 alpha / (1 - alpha). An error d in alpha moves these by d / (1 - alpha)
      // relative, hence 1e-6 relative.
      CHECK(a.fit.ceiling_speedup == relative(1 / (1 - alpha), 1e-6));
      CHECK(a.fit.n_half_efficiency == relative((2 - alpha) / (1 - alpha), 1e-6));
      CHECK(a.fit.n_doubling_below_10pct == relative(4.5 * alpha / (1 - alpha), 1e-6));
      CHECK(a.fit.residual < 1e-9);
      // Expectation: alpha_eff = alpha at every n, so log(1 - alpha_eff) is flat in log n.
      CHECK(std::abs(a.fit.alpha_eff_drift) < 1e-6);
      CHECK(a.fit.amdahl_shaped);
      CHECK(a.fit.shape == analysis::CurveShape::Amdahl);
      for (const PointMetrics& p : a.points) {
        CAPTURE(p.n);
        // Expectation: (A1) and (A2) at n; 1e-12 relative.
        CHECK(p.speedup == relative(amdahl_speedup(p.n, alpha), 1e-12));
        CHECK(p.efficiency == relative(analysis::amdahl_efficiency(p.n, alpha), 1e-12));
        // Expectation: (B1) inverts (A1), alpha_eff = alpha beyond the reference; 1e-9.
        if (p.n > 1)
          CHECK(p.alpha_eff == relative(alpha, 1e-9));
      }
      // Expectation: alpha_eff is alpha at the largest n too; 1e-9 relative.
      CHECK(a.alpha_eff_at_largest_n == relative(alpha, 1e-9));
      // Expectation: S(2n) / S(n) falls with n and is 1.1 at 4.5 alpha / (1 - alpha): the
      // measured n is the first doubling above it whose double was run (exact).
      const double doubling = first_doubling_above(4.5 * alpha / (1 - alpha));
      if (std::isnan(doubling))
        CHECK(std::isnan(a.n_doubling_below_10pct_measured));
      else
        CHECK(a.n_doubling_below_10pct_measured == doubling);
      // Expectation: the measured n_half lies between the two points around
      // (2 - alpha) / (1 - alpha), which is below 4096 for every alpha here.
      const double n_half = (2 - alpha) / (1 - alpha);
      const double below = std::exp2(std::floor(std::log2(n_half)));
      CHECK(a.n_half_efficiency_measured > below);
      CHECK(a.n_half_efficiency_measured <= 2 * below);
      CHECK(a.dominant_term == "communication");
    }
  }
}

TEST_CASE("a curve starting at n = 8 is fitted in units of 8 and reports absolute n") {
  constexpr double alpha = 0.99;
  for (Scaling scaling : {Scaling::Weak, Scaling::Strong}) {
    CAPTURE(analysis::to_string(scaling));
    const CurveAnalysis a = analyse(amdahl_curve(alpha, scaling, 8), scaling);
    CHECK(a.n_reference == 8);
    // Expectation: Amdahl in r = n / 8, so alpha as at n0 = 1; the n's of the closed forms
    // times 8: n_half = 8 x 1.01 / 0.01 = 808, n_doubling = 8 x 445.5 = 3564; 1e-6 relative.
    CHECK(a.fit.alpha == relative(alpha, 1e-9));
    CHECK(a.fit.ceiling_speedup == relative(100, 1e-6));
    CHECK(a.fit.n_half_efficiency == relative(808, 1e-6));
    CHECK(a.fit.n_doubling_below_10pct == relative(3564, 1e-6));
    // Expectation: the first r = 2^k above 445.5 is 512, n = 8 x 512 (exact).
    CHECK(a.n_doubling_below_10pct_measured == 4096);
    for (const PointMetrics& p : a.points) {
      CAPTURE(p.n);
      const double r = p.n / 8;
      // Expectation: S = (A1) at r, E = S / r, alpha_eff = (B1) at r; 1e-12 relative.
      CHECK(p.speedup == relative(amdahl_speedup(r, alpha), 1e-12));
      CHECK(p.efficiency == relative(p.speedup / r, 1e-12));
      if (r > 1) // (B1) of an Amdahl curve gives back its alpha
        CHECK(p.alpha_eff == relative(alpha, 1e-9));
    }
  }
}

TEST_CASE("a curve at one efficiency beyond its first nodes gets a ceiling above the speedup it reached") {
  // Weak scaling's shape: the efficiency drops once the network comes in, then stays.
  constexpr double efficiency = 0.95;
  std::vector<std::pair<double, double>> table;
  double sum = 0, sum_squares = 0; // of r - 1 beyond the reference
  for (double n : doublings(1)) {
    table.emplace_back(n, n == 1 ? 1 : efficiency * n);
    sum += n - 1;
    sum_squares += (n - 1) * (n - 1);
  }
  for (Scaling scaling : {Scaling::Weak, Scaling::Strong}) {
    CAPTURE(analysis::to_string(scaling));
    const CurveAnalysis a = analyse(curve_with_speedups(table, scaling), scaling);
    // Expectation: each point's relative error S (1/r + u (1 - 1/r)) - 1 is
    // E (r - 1) u - (1 - E), least squares at u = (1 - E) / E x sum(r - 1) / sum((r - 1)^2):
    // a ceiling of about 52,000, far above the 0.95 x 4096 reached (a fit in 1/S itself, which
    // leaves the large speedups unfitted, gave one below it); 1e-9 relative.
    const double ceiling = efficiency / (1 - efficiency) * sum_squares / sum;
    CHECK(a.fit.ceiling_speedup == relative(ceiling, 1e-9));
    CHECK(a.fit.ceiling_speedup > a.points.back().speedup);
    // Expectation: the residual is the RMS of the errors E (r - 1) u - (1 - E) over the 12
    // points beyond the reference (whose error is 0 by construction); 1e-9 relative.
    const double u = 1 / ceiling;
    double squares = 0;
    for (const auto& entry : table)
      if (entry.first > 1)
        squares += std::pow(efficiency * (entry.first - 1) * u - (1 - efficiency), 2);
    CHECK(a.fit.residual == relative(std::sqrt(squares / 12), 1e-9));
  }
}

TEST_CASE("a Gustafson-shaped curve is not Amdahl-shaped: its 1 - alpha_eff falls with n") {
  // (Gustafson's with a serial fraction of 0.01 keeps within 1 % of an Amdahl curve up to
  // 4,096: over the range swept the two shapes are the same.)
  for (Scaling scaling : {Scaling::Weak, Scaling::Strong}) {
    for (double serial : {0.1, 0.3}) {
      CAPTURE(analysis::to_string(scaling));
      CAPTURE(serial);
      // Gustafson's scaled speedup S = n - (n - 1) s grows without bound; Amdahl's saturates.
      std::vector<std::pair<double, double>> table;
      for (double n : doublings(1))
        table.emplace_back(n, n - (n - 1) * serial);
      const CurveAnalysis a = analyse(curve_with_speedups(table, scaling), scaling);
      CHECK(a.fit.residual > analysis::amdahl_residual_limit);
      CHECK_FALSE(a.fit.amdahl_shaped);
      // Expectation: 1 - alpha_eff = (n - S) / ((n - 1) S) = s / S, which falls as 1/n: drift about
      // -1, the shape named before the residual's.
      CHECK(a.fit.alpha_eff_drift < -analysis::amdahl_drift_limit);
      CHECK(a.fit.shape == analysis::CurveShape::NonparallelFalls);
    }
  }
}

TEST_CASE("a noisy Amdahl curve is Amdahl-shaped only while the noise is small") {
  constexpr double alpha = 0.99;
  // Deterministic pseudo-noise: minstd_rand's sequence is fixed by the standard.
  const auto noisy = [](double amplitude) {
    std::minstd_rand generator(20240601);
    std::vector<std::pair<double, double>> table;
    for (double n : doublings(1)) {
      const double u = static_cast<double>(generator() - std::minstd_rand::min()) /
                       static_cast<double>(std::minstd_rand::max() - std::minstd_rand::min());
      const double factor = n == 1 ? 1 : 1 + amplitude * (2 * u - 1);
      table.emplace_back(n, amdahl_speedup(n, alpha) * factor);
    }
    return table;
  };
  SUBCASE("noise of up to 30 % is not") {
    const CurveAnalysis a =
        analyse(curve_with_speedups(noisy(0.3), Scaling::Strong), Scaling::Strong);
    CHECK(a.fit.residual > analysis::amdahl_residual_limit);
    CHECK_FALSE(a.fit.amdahl_shaped);
    // (1 - alpha_eff about flat: the residual is the reason)
    CHECK(std::abs(a.fit.alpha_eff_drift) < analysis::amdahl_drift_limit);
    CHECK(a.fit.shape == analysis::CurveShape::PoorFit);
  }
  SUBCASE("noise of up to 1 % is") {
    const CurveAnalysis a =
        analyse(curve_with_speedups(noisy(0.01), Scaling::Strong), Scaling::Strong);
    CHECK(a.fit.residual < analysis::amdahl_residual_limit);
    CHECK(a.fit.amdahl_shaped);
  }
}

TEST_CASE("alpha_eff is one minus the Karp-Flatt serial fraction") {
  const std::vector<std::pair<double, double>> table{{2, 1.9}, {3, 0.5}, {4, 3.5},   {8, 8},
                                                     {8, 9},   {16, 10}, {1024, 100}};
  for (const auto& entry : table) { // not a structured binding: clang 14 cannot capture one
    const double n = entry.first, speedup = entry.second;
    CAPTURE(n);
    CAPTURE(speedup);
    // Expectation: (B3), 1 - (1/S - 1/n) / (1 - 1/n); 1e-12 relative.
    const double karp_flatt = (1 / speedup - 1 / n) / (1 - 1 / n);
    CHECK(analysis::alpha_eff(n, speedup) == relative(1 - karp_flatt, 1e-12));
  }
  // Expectation: no speedup, no parallelism: S - 1 = 0 in (B1), exact.
  CHECK(analysis::alpha_eff(4, 1) == 0);
  CHECK(std::isnan(analysis::alpha_eff(1, 1)));

  SUBCASE("and the analysis computes it per point") {
    const std::vector<std::pair<double, double>> curve{{1, 1},   {2, 1.9}, {4, 3.5},
                                                       {16, 10}, {64, 30}, {1024, 100}};
    for (Scaling scaling : {Scaling::Weak, Scaling::Strong}) {
      CAPTURE(analysis::to_string(scaling));
      const CurveAnalysis a = analyse(curve_with_speedups(curve, scaling), scaling);
      REQUIRE(a.points.size() == curve.size());
      CHECK(std::isnan(a.points[0].alpha_eff));
      for (std::size_t i = 1; i < curve.size(); ++i) {
        const double n = curve[i].first, speedup = curve[i].second; // clang 14: no binding in CAPTURE
        CAPTURE(n);
        // Expectation: the speedup built in, and (B3) of it; 1e-12 relative.
        CHECK(a.points[i].speedup == relative(speedup, 1e-12));
        const double karp_flatt = (1 / speedup - 1 / n) / (1 - 1 / n);
        CHECK(a.points[i].alpha_eff == relative(1 - karp_flatt, 1e-12));
      }
      CHECK(a.alpha_eff_at_largest_n == a.points.back().alpha_eff);
    }
  }
}

TEST_CASE("Amdahl's efficiency is its speedup over n") {
  for (double n : {1.0, 2.0, 7.0, 1024.0}) {
    for (double alpha : {0.0, 0.5, 0.99, 1.0}) {
      CAPTURE(n);
      CAPTURE(alpha);
      // Expectation: (A2) = (A1) / n; 1e-12 relative.
      CHECK(analysis::amdahl_efficiency(n, alpha) == relative(amdahl_speedup(n, alpha) / n, 1e-12));
    }
  }
}

TEST_CASE("scaling modes are named") {
  CHECK(analysis::to_string(Scaling::Weak) == "weak");
  CHECK(analysis::to_string(Scaling::Strong) == "strong");
}

TEST_CASE("the seeds of one n are averaged, and unusable points are ignored") {
  // Three seeds at n = 1, two at n = 2, interleaved; four points without a usable time.
  const auto at = [](double n, double t, double flop) {
    return CurvePoint{.n = n,
                      .iteration_time_s = t,
                      .samples_per_iteration = global_batch,
                      .flop_per_iteration = flop,
                      .peak_flop_per_s = 1e13 * n,
                      .compute_s = 0.7 * t,
                      .copy_s = 0.1 * t,
                      .communication_s = 0.15 * t,
                      .synchronisation_s = 0.05 * t};
  };
  const std::vector<CurvePoint> points{at(2, 0.7, 6e12), at(1, 1.4, 5e12),      at(2, 0, 1e12),
                                       at(1, 1.0, 4e12), at(4, INFINITY, 1e12), at(2, 0.5, 4e12),
                                       at(1, NAN, 1e12), at(1, 1.2, 6e12),      at(2, -1, 1e12)};
  const CurveAnalysis a = analyse(points, Scaling::Strong);
  REQUIRE(a.points.size() == 2);
  const PointMetrics& one = a.points[0];
  const PointMetrics& two = a.points[1];
  CHECK(one.n == 1);
  CHECK(two.n == 2);
  CHECK(one.seeds == 3);
  CHECK(two.seeds == 2);
  // Expectation: means (1.0 + 1.4 + 1.2) / 3 = 1.2 and (0.7 + 0.5) / 2 = 0.6, min, median
  // (the middle one, or the mean of the two middle ones) and max exact; the parts are the same
  // shares of the mean; 1e-12 relative.
  CHECK(one.iteration_time_s == relative(1.2, 1e-12));
  CHECK(one.iteration_time_min_s == 1.0);
  CHECK(one.iteration_time_median_s == 1.2);
  CHECK(one.iteration_time_max_s == 1.4);
  CHECK(two.iteration_time_s == relative(0.6, 1e-12));
  CHECK(two.iteration_time_min_s == 0.5);
  CHECK(two.iteration_time_median_s == relative(0.6, 1e-12));
  CHECK(two.iteration_time_max_s == 0.7);
  CHECK(one.compute_s == relative(0.7 * 1.2, 1e-12));
  CHECK(two.copy_s == relative(0.1 * 0.6, 1e-12));
  CHECK(two.communication_s == relative(0.15 * 0.6, 1e-12));
  CHECK(two.synchronisation_s == relative(0.05 * 0.6, 1e-12));
  // Expectation: strong S = 1.2 / 0.6 = 2, E = 1, throughput 1024 / T; payload is the mean
  // flop over the mean time, 5e12 / 1.2 and 5e12 / 0.6; 1e-12 relative.
  CHECK(two.speedup == relative(2, 1e-12));
  CHECK(two.efficiency == relative(1, 1e-12));
  CHECK(one.throughput_samples_per_s == relative(global_batch / 1.2, 1e-12));
  CHECK(one.payload_flop_per_s == relative(5e12 / 1.2, 1e-12));
  CHECK(two.payload_flop_per_s == relative(5e12 / 0.6, 1e-12));
}

TEST_CASE("the parts of 1 - alpha_eff add up to it and the largest is named") {
  const char* const names[] = {"communication", "copy", "synchronisation", "compute"};
  // Each part x (communication, copy, synchronisation, compute) has a parallel share p,
  // divided by r when strong, a serial share s, and a growth g log2(r).
  const double p[] = {0.05, 0.05, 0.05, 0.8};
  constexpr double s = 0.01;
  constexpr double t0 = 0.99; // sum of p and s
  for (Scaling scaling : {Scaling::Weak, Scaling::Strong}) {
    for (int largest = 0; largest < 4; ++largest) {
      CAPTURE(analysis::to_string(scaling));
      CAPTURE(names[largest]);
      const bool weak = scaling == Scaling::Weak;
      double g[4] = {0.01, 0.01, 0.01, 0.01};
      g[largest] = 0.05;
      std::vector<CurvePoint> curve;
      for (double n : {1.0, 2.0, 4.0, 8.0, 32.0}) {
        double x[4];
        for (int i = 0; i < 4; ++i)
          x[i] = p[i] / (weak ? 1 : n) + s + g[i] * std::log2(n);
        curve.push_back({.n = n,
                         .iteration_time_s = x[0] + x[1] + x[2] + x[3],
                         .samples_per_iteration = samples(n, scaling),
                         .compute_s = x[3],
                         .copy_s = x[1],
                         .communication_s = x[0],
                         .synchronisation_s = x[2]});
      }
      const CurveAnalysis a = analyse(curve, scaling);
      REQUIRE(a.points.size() == 5);
      CHECK(std::isnan(a.points[0].nonpar_communication));
      CHECK(std::isnan(a.points[0].nonpar_compute));
      for (std::size_t k = 1; k < a.points.size(); ++k) {
        const PointMetrics& m = a.points[k];
        CAPTURE(m.n);
        const double r = m.n;
        const double parts[] = {m.nonpar_communication, m.nonpar_copy, m.nonpar_synchronisation,
                                m.nonpar_compute};
        for (int i = 0; i < 4; ++i) {
          CAPTURE(names[i]);
          // Expectation: (k x(r) - x(1)) / (T0 (r - 1)); weak (k = 1): g log2(r) / (T0 (r - 1));
          // strong (k = r): (s (r - 1) + g r log2(r)) / (T0 (r - 1)); 1e-9 relative.
          const double expected = weak ? g[i] * std::log2(r) / (t0 * (r - 1))
                                       : (s * (r - 1) + g[i] * r * std::log2(r)) / (t0 * (r - 1));
          CHECK(parts[i] == relative(expected, 1e-9));
        }
        // Expectation: the four add up to 1 - alpha_eff exactly; 1e-9 relative.
        CHECK(parts[0] + parts[1] + parts[2] + parts[3] == relative(1 - m.alpha_eff, 1e-9));
      }
      CHECK(a.dominant_term == names[largest]);
    }
  }
}

TEST_CASE("an exact Amdahl curve's serial parts are its (1 - alpha) shares") {
  constexpr double alpha = 0.9;
  for (Scaling scaling : {Scaling::Weak, Scaling::Strong}) {
    CAPTURE(analysis::to_string(scaling));
    const CurveAnalysis a = analyse(amdahl_curve(alpha, scaling), scaling);
    REQUIRE(a.points.size() >= 3);
    for (std::size_t k = 1; k < a.points.size(); ++k) {
      const PointMetrics& m = a.points[k];
      CAPTURE(m.n);
      // Expectation: communication, copy and synchronisation hold 0.5, 0.3 and 0.2 of
      // 1 - alpha at every n, compute is perfectly parallel (0, 1e-12 absolute); 1e-9 relative.
      CHECK(m.nonpar_communication == relative(0.5 * (1 - alpha), 1e-9));
      CHECK(m.nonpar_copy == relative(0.3 * (1 - alpha), 1e-9));
      CHECK(m.nonpar_synchronisation == relative(0.2 * (1 - alpha), 1e-9));
      CHECK(std::abs(m.nonpar_compute) < 1e-12);
    }
  }
}

TEST_CASE("a curve of one n has no fit and no dominant term") {
  // Two seeds of n = 4: one distinct n.
  const std::vector<CurvePoint> points{
      {.n = 4, .iteration_time_s = 1.0, .samples_per_iteration = 128, .compute_s = 1.0},
      {.n = 4, .iteration_time_s = 3.0, .samples_per_iteration = 128, .compute_s = 3.0}};
  const CurveAnalysis a = analyse(points, Scaling::Weak);
  REQUIRE(a.points.size() == 1);
  CHECK(a.n_reference == 4);
  CHECK(a.points[0].seeds == 2);
  CHECK(a.points[0].speedup == 1);
  CHECK(a.points[0].efficiency == 1);
  CHECK(std::isnan(a.points[0].alpha_eff));
  CHECK(std::isnan(a.points[0].nonpar_communication));
  CHECK(std::isnan(a.fit.alpha));
  CHECK(std::isnan(a.fit.ceiling_speedup));
  CHECK(std::isnan(a.fit.n_half_efficiency));
  CHECK(std::isnan(a.fit.n_doubling_below_10pct));
  CHECK(std::isnan(a.fit.residual));
  CHECK_FALSE(a.fit.amdahl_shaped);
  CHECK(std::isnan(a.n_half_efficiency_measured));
  CHECK(std::isnan(a.n_doubling_below_10pct_measured));
  CHECK(std::isnan(a.alpha_eff_at_largest_n));
  CHECK(a.dominant_term == "none");
}

TEST_CASE("an empty curve gives an empty analysis") {
  const auto check_empty = [](const CurveAnalysis& a) {
    CHECK(a.scaling == Scaling::Strong);
    CHECK(a.points.empty());
    CHECK(std::isnan(a.n_reference));
    CHECK(std::isnan(a.fit.alpha));
    CHECK_FALSE(a.fit.amdahl_shaped);
    CHECK(std::isnan(a.n_half_efficiency_measured));
    CHECK(std::isnan(a.n_doubling_below_10pct_measured));
    CHECK(std::isnan(a.alpha_eff_at_largest_n));
    CHECK(a.dominant_term == "none");
  };
  SUBCASE("no points") {
    check_empty(analyse({}, Scaling::Strong));
  }
  SUBCASE("no usable point") {
    const std::vector<CurvePoint> points{{.n = 1, .iteration_time_s = 0},
                                         {.n = 2, .iteration_time_s = NAN}};
    check_empty(analyse(points, Scaling::Strong));
  }
}

TEST_CASE("payload is the flop rate delivered, its efficiency the share of the peak") {
  // Weak: 3 Tflop per rank and iteration, a peak of 10 Tflop/s per rank.
  std::vector<CurvePoint> curve;
  for (auto [n, t] : std::vector<std::pair<double, double>>{{1, 1.0}, {2, 1.1}, {4, 1.25}})
    curve.push_back({.n = n,
                     .iteration_time_s = t,
                     .samples_per_iteration = samples(n, Scaling::Weak),
                     .flop_per_iteration = 3e12 * n,
                     .peak_flop_per_s = 1e13 * n,
                     .compute_s = t});
  const CurveAnalysis a = analyse(curve, Scaling::Weak);
  REQUIRE(a.points.size() == 3);
  for (const PointMetrics& m : a.points) {
    CAPTURE(m.n);
    // Expectation: 3e12 n / T and (3e12 n / T) / (1e13 n) = 0.3 / T; 1e-12 relative.
    CHECK(m.payload_flop_per_s == relative(3e12 * m.n / m.iteration_time_s, 1e-12));
    CHECK(m.payload_efficiency == relative(0.3 / m.iteration_time_s, 1e-12));
  }
  SUBCASE("no peak: no efficiency") {
    for (CurvePoint& p : curve)
      p.peak_flop_per_s = 0;
    const CurveAnalysis without = analyse(curve, Scaling::Weak);
    CHECK(std::isnan(without.points[1].payload_efficiency));
    CHECK(without.points[1].payload_flop_per_s == relative(3e12 * 2 / 1.1, 1e-12));
  }
}

TEST_CASE("the measured n_half is interpolated in log2(n) where the efficiency reaches 0.5") {
  // Strong, S = E n for the efficiencies E given.
  const auto with_efficiencies = [](const std::vector<std::pair<double, double>>& n_e) {
    std::vector<std::pair<double, double>> table;
    for (auto [n, e] : n_e)
      table.emplace_back(n, e * n / n_e.front().first);
    return analyse(curve_with_speedups(table, Scaling::Strong), Scaling::Strong);
  };
  SUBCASE("between two points") {
    // Expectation: E = 0.8 at log2 n = 2, 0.4 at 4: 0.5 at 2 + 2 (0.8 - 0.5) / (0.8 - 0.4)
    // = 3.5, n = 2^3.5; 1e-12 relative.
    const auto a = with_efficiencies({{1, 1}, {4, 0.8}, {16, 0.4}, {64, 0.2}});
    CHECK(a.n_half_efficiency_measured == relative(std::exp2(3.5), 1e-12));
  }
  SUBCASE("between two points of a curve starting at 3") {
    // Expectation: as above in units of 3, n = 3 x 2^3.5; 1e-12 relative.
    const auto a = with_efficiencies({{3, 1}, {12, 0.8}, {48, 0.4}});
    CHECK(a.n_half_efficiency_measured == relative(3 * std::exp2(3.5), 1e-12));
  }
  SUBCASE("on a point") {
    // Expectation: E = 0.5 exactly at n = 4; 1e-12 relative.
    const auto a = with_efficiencies({{1, 1}, {2, 0.75}, {4, 0.5}, {8, 0.3}});
    CHECK(a.n_half_efficiency_measured == relative(4, 1e-12));
  }
  SUBCASE("never") {
    const auto a = with_efficiencies({{1, 1}, {2, 0.9}, {4, 0.6}});
    CHECK(std::isnan(a.n_half_efficiency_measured));
  }
}

TEST_CASE("the measured n_doubling is the first n whose next node count gains less than 10 % per doubling") {
  // 1 -> 2 gains 50 %, 2 -> 3 33 % (63 % per doubling), 3 -> 6 5 %.
  const std::vector<std::pair<double, double>> table{{1, 1}, {2, 1.5}, {3, 2.0}, {6, 2.1}};
  const CurveAnalysis a = analyse(curve_with_speedups(table, Scaling::Strong), Scaling::Strong);
  CHECK(a.n_doubling_below_10pct_measured == 3);
  SUBCASE("node counts three times apart: Amdahl's alpha = 0.5 gains 1.5^0.63 = 1.29, 1.2^0.63 = 1.12, then 1.07^0.63 = 1.04 per doubling") {
    std::vector<std::pair<double, double>> triples;
    for (double n : {1.0, 3.0, 9.0, 27.0})
      triples.emplace_back(n, amdahl_speedup(n, 0.5));
    const auto b = analyse(curve_with_speedups(triples, Scaling::Strong), Scaling::Strong);
    CHECK(b.n_doubling_below_10pct_measured == 9);
  }
  SUBCASE("never") {
    const std::vector<std::pair<double, double>> steep{{1, 1}, {3, 2.9}, {5, 4.8}};
    const auto b = analyse(curve_with_speedups(steep, Scaling::Strong), Scaling::Strong);
    CHECK(std::isnan(b.n_doubling_below_10pct_measured));
  }
}

TEST_CASE("a superlinear curve's alpha is clamped to 1 and its ceiling is infinite") {
  // S = 1.1 (n - 1) + 1 > n beyond the reference.
  std::vector<std::pair<double, double>> table;
  for (double n : {1.0, 2.0, 4.0, 8.0})
    table.emplace_back(n, 1.1 * (n - 1) + 1);
  const CurveAnalysis a = analyse(curve_with_speedups(table, Scaling::Strong), Scaling::Strong);
  CHECK(a.fit.alpha == 1);
  CHECK(std::isinf(a.fit.ceiling_speedup));
  CHECK(std::isinf(a.fit.n_half_efficiency));
  CHECK(std::isinf(a.fit.n_doubling_below_10pct));
  CHECK(a.dominant_term == "none"); // every part of 1 - alpha_eff is negative: none dominates
}

TEST_CASE("a curve above perfect scaling names no dominant part, though one of its parts is positive") {
  // Strong scaling of 64 samples: 1 s of compute on 1 node; on 2 nodes 0.40 s of compute and
  // 0.05 s of communication, S = 1 / 0.45 = 2.22 > 2: 1 - alpha_eff = 2 (0.45 - 0.5) / 1 < 0,
  // its communication part 2 x 0.05 > 0 outweighed by its compute part 2 (0.40 - 0.5) < 0.
  const std::vector<CurvePoint> points{
      {.n = 1, .iteration_time_s = 1.0, .samples_per_iteration = 64, .compute_s = 1.0},
      {.n = 2, .iteration_time_s = 0.45, .samples_per_iteration = 64, .compute_s = 0.40, .communication_s = 0.05}};
  const CurveAnalysis a = analyse(points, Scaling::Strong);
  REQUIRE(a.points.size() == 2);
  CHECK(a.points[1].alpha_eff > 1);
  CHECK(a.points[1].nonpar_communication == doctest::Approx(0.1));
  CHECK(a.dominant_term == "none");
}

TEST_CASE("a curve that never speeds up fits alpha 0 and gains less than 10 % from its first doubling") {
  std::vector<CurvePoint> flat;
  for (double n : {1.0, 2.0, 4.0, 8.0})
    flat.push_back({.n = n, .iteration_time_s = 1, .samples_per_iteration = 64,
                    .compute_s = 1});
  // Expectation: strong scaling at a constant time is S = 1 everywhere, so alpha = 0 exactly,
  // the ceiling 1, E = 0.5 at n = 2 by (2 - 0) / (1 - 0), and every doubling gains less than
  // 10 % (none gains at all): from the reference on, n = 1, as measured, not 4.5 alpha /
  // (1 - alpha) = 0.
  const CurveAnalysis a = analyse(flat, Scaling::Strong);
  CHECK(a.fit.alpha == 0);
  CHECK(a.fit.ceiling_speedup == 1);
  CHECK(a.fit.n_half_efficiency == 2);
  CHECK(a.fit.n_doubling_below_10pct == 1);
  CHECK(a.n_doubling_below_10pct_measured == 1);
}

TEST_CASE("a curve that slows down as (A1) does with alpha below 0 is not Amdahl-shaped") {
  // Expectation: S(n) = 1 / ((1 - alpha) + alpha / n) with alpha = -0.5 (S = 1 / (1.5 - 0.5 / n):
  // 0.8 at 2, 0.727 at 4, 0.696 at 8) fits back exactly (residual 0, 1 - alpha_eff flat), but a
  // parallel fraction below 0 is no Amdahl curve, and the fit's ceiling, 2/3, is below the
  // reference.
  const double alpha = -0.5;
  std::vector<std::pair<double, double>> table;
  for (double n : {1.0, 2.0, 4.0, 8.0})
    table.emplace_back(n, amdahl_speedup(n, alpha));
  const CurveAnalysis a = analyse(curve_with_speedups(table, Scaling::Strong), Scaling::Strong);
  CHECK(a.fit.alpha == doctest::Approx(alpha).epsilon(1e-12));
  CHECK(a.fit.residual < 1e-12);
  CHECK(a.fit.ceiling_speedup == doctest::Approx(2.0 / 3).epsilon(1e-12));
  CHECK_FALSE(a.fit.amdahl_shaped);
  CHECK(a.fit.shape == analysis::CurveShape::Slowdown);
}

TEST_CASE("a curve of two node counts is never Amdahl-shaped: one parameter fits one point exactly") {
  const std::vector<std::pair<double, double>> table{{1, 1}, {4096, 3000}};
  for (Scaling scaling : {Scaling::Weak, Scaling::Strong}) {
    CAPTURE(analysis::to_string(scaling));
    const CurveAnalysis a = analyse(curve_with_speedups(table, scaling), scaling);
    // Expectation: (A1) through S(4096) = 3000 exactly, residual 0 (1e-12), and still no shape.
    CHECK(a.fit.residual < 1e-12);
    CHECK_FALSE(a.fit.amdahl_shaped);
    CHECK(a.fit.shape == analysis::CurveShape::TooFewNodeCounts);
  }
}

TEST_CASE("at constant efficiency 1 - alpha_eff falls as 1/n: drift -1, not Amdahl-shaped, though the fit is close") {
  // Weak scaling at E = 0.95 from 2 nodes on, as a ring on a fat-tree gives: the Amdahl fit
  // stays within the residual limit, at a ceiling that grows with the largest n swept.
  std::vector<std::pair<double, double>> table;
  for (double n : doublings(1))
    table.emplace_back(n, n == 1 ? 1 : 0.95 * n);
  const CurveAnalysis a = analyse(curve_with_speedups(table, Scaling::Weak), Scaling::Weak);
  // Expectation: 1 - alpha_eff = (1 - E) / (E (n - 1)), whose log against log n has the slope
  // -n / (n - 1) at n: from -1.016 at 64 to -1.0002 at 4,096 over the upper half; 0.02.
  CHECK(a.fit.alpha_eff_drift == relative(-1, 0.02));
  CHECK(a.fit.residual < analysis::amdahl_residual_limit);
  CHECK_FALSE(a.fit.amdahl_shaped);
  CHECK(a.fit.shape == analysis::CurveShape::NonparallelFalls);
}

TEST_CASE("a curve whose 1 - alpha_eff grows with n has a ceiling that falls: not Amdahl-shaped") {
  // Weak scaling whose time grows as 1 + c n^2 (a cost per rank paid by every rank): S = n / (1 + c
  // n^2).
  constexpr double c = 1e-7;
  std::vector<std::pair<double, double>> table;
  for (double n : doublings(1))
    table.emplace_back(n, n / (1 + c * n * n) * (1 + c)); // (S = 1 at n = 1)
  const CurveAnalysis a = analyse(curve_with_speedups(table, Scaling::Weak), Scaling::Weak);
  // Expectation: with T(n) / T(1) = 1 + e(n), 1 - alpha_eff = e(n) / (n - 1), here
  // c (n^2 - 1) / ((1 + c) (n - 1)) = c (n + 1) / (1 + c): slope n / (n + 1) in log n, from 0.985
  // at 64 to 0.9998 at 4,096 over the upper half; 0.02.
  CHECK(a.fit.alpha_eff_drift == relative(1, 0.02));
  CHECK_FALSE(a.fit.amdahl_shaped);
  CHECK(a.fit.shape == analysis::CurveShape::CeilingFalls);
}

TEST_CASE("curve shapes are named as the store spells them, and read back") {
  for (const auto shape : analysis::curve_shapes) {
    CAPTURE(analysis::to_string(shape));
    CHECK(analysis::curve_shape_from(analysis::to_string(shape)) == shape);
  }
  CHECK(analysis::to_string(analysis::CurveShape::NonparallelFalls) == "nonparallel_falls");
  CHECK(analysis::to_string(analysis::CurveShape::PoorFit) == "poor_fit");
  CHECK_FALSE(analysis::curve_shape_from("Amdahl").has_value());
  CHECK_FALSE(analysis::curve_shape_from("").has_value());
}

TEST_SUITE_END();
