// Végh's analysis of one scaling curve: per-n means, speedup, alpha_eff, its parts, the Amdahl
// fit. Formulas: ../shared/data/hardware/piz-daint.md §1 (A), (B), (D), (E).
#include "analysis/curve_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <utility>

namespace ceiling::analysis {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

} // namespace

std::string_view to_string(CurveShape shape) {
  switch (shape) {
  case CurveShape::Amdahl:
    return "amdahl";
  case CurveShape::TooFewNodeCounts:
    return "too_few_node_counts";
  case CurveShape::Slowdown:
    return "slowdown";
  case CurveShape::NonparallelFalls:
    return "nonparallel_falls";
  case CurveShape::CeilingFalls:
    return "ceiling_falls";
  case CurveShape::PoorFit:
    return "poor_fit";
  }
  return "unknown";
}

std::optional<CurveShape> curve_shape_from(std::string_view name) {
  for (const CurveShape shape : curve_shapes)
    if (to_string(shape) == name)
      return shape;
  return std::nullopt;
}

// (Its small n weigh noise most, 1 - alpha_eff there being a difference of nearly equal
// speedups: hence the upper half. At constant efficiency 1 - alpha_eff = (1 - E) / (E (r - 1)).)
double alpha_eff_drift(const std::vector<PointMetrics>& points, double n_reference) {
  if (points.size() < 3)
    return nan;
  const double half = std::sqrt(points.back().n / n_reference); // r at the middle of log r
  double count = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const PointMetrics& p : points) {
    const double r = p.n / n_reference;
    const double u = 1 - p.alpha_eff;
    if (p.n == n_reference || r < half || !(u > 0))
      continue;
    const double x = std::log(r), y = std::log(u);
    count += 1;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double spread = count * sxx - sx * sx;
  return count >= 2 && spread > 0 ? (count * sxy - sx * sy) / spread : nan;
}

namespace {

bool is_usable(const CurvePoint& p) {
  return std::isfinite(p.iteration_time_s) && p.iteration_time_s > 0;
}

/// The means over `seeds` (points of one n) and the spread of their iteration times.
PointMetrics average(std::span<const CurvePoint> seeds) {
  PointMetrics m{.n = seeds.front().n,
                 .seeds = static_cast<int>(seeds.size()),
                 .iteration_time_min_s = seeds.front().iteration_time_s,
                 .iteration_time_max_s = seeds.front().iteration_time_s};
  double samples = 0;
  double flop = 0;
  double peak = 0;
  for (const CurvePoint& p : seeds) {
    m.iteration_time_s += p.iteration_time_s;
    m.iteration_time_min_s = std::min(m.iteration_time_min_s, p.iteration_time_s);
    m.iteration_time_max_s = std::max(m.iteration_time_max_s, p.iteration_time_s);
    samples += p.samples_per_iteration;
    flop += p.flop_per_iteration;
    peak += p.peak_flop_per_s;
    m.compute_s += p.compute_s;
    m.copy_s += p.copy_s;
    m.communication_s += p.communication_s;
    m.synchronisation_s += p.synchronisation_s;
  }
  const double count = static_cast<double>(seeds.size());
  m.iteration_time_s /= count;
  std::vector<double> times;
  for (const CurvePoint& p : seeds)
    times.push_back(p.iteration_time_s);
  std::sort(times.begin(), times.end());
  const std::size_t mid = times.size() / 2;
  m.iteration_time_median_s = times.size() % 2 == 1 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  m.compute_s /= count;
  m.copy_s /= count;
  m.communication_s /= count;
  m.synchronisation_s /= count;
  samples /= count;
  flop /= count;
  peak /= count;
  m.throughput_samples_per_s = samples / m.iteration_time_s;
  m.payload_flop_per_s = flop / m.iteration_time_s;
  m.payload_efficiency = peak == 0 ? nan : m.payload_flop_per_s / peak;
  return m;
}

/// Speedup, efficiency, alpha_eff and the parts of (1 - alpha_eff) of `m` against `ref`.
void compare(PointMetrics& m, const PointMetrics& ref, Scaling scaling) {
  const double r = m.n / ref.n;
  const bool weak = scaling == Scaling::Weak;
  m.speedup = weak ? m.throughput_samples_per_s / ref.throughput_samples_per_s
                   : ref.iteration_time_s / m.iteration_time_s;
  m.efficiency = m.speedup / r;
  if (m.n == ref.n) {
    m.alpha_eff = nan;
    m.nonpar_communication = nan;
    m.nonpar_copy = nan;
    m.nonpar_synchronisation = nan;
    m.nonpar_compute = nan;
    return;
  }
  m.alpha_eff = alpha_eff(r, m.speedup);
  // (E2) measured against the reference rather than one unit: a part's time beyond what
  // perfect scaling allows (the reference's when weak, 1/r of it when strong, hence k), over
  // T(n0) (r - 1). The four add up to (k T(n) / T(n0) - 1) / (r - 1), which is (B3) since
  // S = r T(n0) / (k T(n)): by definition when strong, when the samples grow as n when weak.
  const double k = weak ? 1.0 : r;
  const double scale = ref.iteration_time_s * (r - 1);
  const auto part = [&](double x, double x_ref) { return (k * x - x_ref) / scale; };
  m.nonpar_communication = part(m.communication_s, ref.communication_s);
  m.nonpar_copy = part(m.copy_s, ref.copy_s);
  m.nonpar_synchronisation = part(m.synchronisation_s, ref.synchronisation_s);
  m.nonpar_compute = part(m.compute_s, ref.compute_s);
}

/// Amdahl's speedup (A1) at r units of the reference.
double amdahl_speedup(double r, double alpha) {
  return 1 / ((1 - alpha) + alpha / r);
}

/// (A1) is linear in u = 1 - alpha through its reciprocal: 1/S_fit = 1/r + u (1 - 1/r). The fit
/// minimises every point's relative error, S (1/r + u (1 - 1/r)) - 1 = S / S_fit - 1, whose RMS
/// is the residual (least squares in 1/S itself would let the large speedups, whose 1/S are
/// tiny, go unfitted: a near-linear weak-scaling curve got a ceiling below the speedup it had
/// reached). Linear in u, so in closed form, u = sum(S a (1 - S/r)) / sum((S a)^2) with
/// a = 1 - 1/r over the points beyond the reference; exact on an Amdahl curve.
AmdahlFit fit_amdahl(const std::vector<PointMetrics>& points, double n_reference) {
  if (points.size() < 2)
    return {.alpha = nan,
            .ceiling_speedup = nan,
            .n_half_efficiency = nan,
            .n_doubling_below_10pct = nan,
            .residual = nan,
            .alpha_eff_drift = nan,
            .amdahl_shaped = false,
            .shape = CurveShape::TooFewNodeCounts};
  double num = 0;
  double den = 0;
  for (const PointMetrics& p : points) {
    if (p.n == n_reference)
      continue;
    const double r = p.n / n_reference;
    const double sa = p.speedup * (1 - 1 / r);
    num += sa * (1 - p.speedup / r);
    den += sa * sa;
  }
  // Above 1 the curve is superlinear, which (A1) cannot be: 1, linear, is its limit. At or
  // below 0 (no speedup, or a slowdown) alpha is kept: (A1) still describes such a curve.
  const double alpha = std::min(1 - num / den, 1.0);
  AmdahlFit fit{.alpha = alpha};
  if (alpha == 1) {
    fit.ceiling_speedup = fit.n_half_efficiency = fit.n_doubling_below_10pct = inf;
  } else {
    // (D3); (A2) = 1/2 at r (1 - alpha) + alpha = 2; S(2r) / S(r) = 1.1 at
    // (1 - alpha) + alpha / r = 1.1 (1 - alpha) + 0.55 alpha / r, i.e. 0.45 alpha / r =
    // 0.1 (1 - alpha), and the ratio falls with r, so every later doubling gains less. Both
    // are r's, units of the reference: times n_reference for absolute n.
    fit.ceiling_speedup = 1 / (1 - alpha);
    fit.n_half_efficiency = n_reference * (2 - alpha) / (1 - alpha);
    // Below r = 1 (alpha < 2/11, or none at or below 0: no speedup at all) the first doubling
    // already gains less: the reference itself, as measured_n_doubling() finds it.
    fit.n_doubling_below_10pct = n_reference * std::max(1.0, 4.5 * alpha / (1 - alpha));
  }
  double squares = 0; // of the relative errors the fit minimises, S / S_fit - 1
  for (const PointMetrics& p : points) {
    if (p.n == n_reference)
      continue; // (its error is 0 by construction: counted, it would dilute the others')
    const double error = p.speedup / amdahl_speedup(p.n / n_reference, alpha) - 1;
    squares += error * error;
  }
  const std::size_t beyond = points.size() - 1;
  fit.residual = std::sqrt(squares / static_cast<double>(beyond));
  fit.alpha_eff_drift = alpha_eff_drift(points, n_reference);
  // One parameter fits one point exactly: two node counts say nothing of the shape. A slowdown
  // (alpha below 0) follows (A1) but is no Amdahl curve: its parallel fraction is 0 to 1.
  if (beyond < 2)
    fit.shape = CurveShape::TooFewNodeCounts;
  else if (alpha < 0)
    fit.shape = CurveShape::Slowdown;
  else if (fit.alpha_eff_drift <= -amdahl_drift_limit)
    fit.shape = CurveShape::NonparallelFalls;
  else if (fit.alpha_eff_drift >= amdahl_drift_limit)
    fit.shape = CurveShape::CeilingFalls;
  else if (!(fit.residual < amdahl_residual_limit))
    fit.shape = CurveShape::PoorFit;
  else
    fit.shape = CurveShape::Amdahl;
  fit.amdahl_shaped = fit.shape == CurveShape::Amdahl;
  return fit;
}

/// Where the efficiency first falls to 0.5, linear in log2(n) between that point and the one
/// before it (whose efficiency is above 0.5: the reference's is 1); NaN when it never does.
double measured_n_half(const std::vector<PointMetrics>& points) {
  for (std::size_t i = 1; i < points.size(); ++i) {
    const PointMetrics& hi = points[i];
    if (!(hi.efficiency <= 0.5))
      continue;
    const PointMetrics& lo = points[i - 1];
    const double t = (lo.efficiency - 0.5) / (lo.efficiency - hi.efficiency);
    return std::exp2(std::log2(lo.n) + t * (std::log2(hi.n) - std::log2(lo.n)));
  }
  return nan;
}

/// The first n from which the next measured n gains less than 10 % per doubling,
/// (S(n') / S(n))^(1 / log2(n' / n)) < 1.1 (at n' = 2n, S(2n) / S(n) < 1.1); NaN when none.
double measured_n_doubling(const std::vector<PointMetrics>& points) {
  for (std::size_t i = 1; i < points.size(); ++i) {
    const PointMetrics& lo = points[i - 1];
    const PointMetrics& hi = points[i];
    if (std::pow(hi.speedup / lo.speedup, 1 / std::log2(hi.n / lo.n)) < 1.1)
      return lo.n;
  }
  return nan;
}

/// The largest part of (1 - alpha_eff) at `p`, the first of equals in the order listed; "none"
/// when no part, or 1 - alpha_eff itself, is above 1e-12 (a curve at or above perfect scaling:
/// its parts are differences of equal times, whose rounding leaves some 1e-17, and a part that
/// outweighs the others of a total at or below 0 dominates nothing; a real part, even at
/// 99.9999 % efficiency on 4,096 nodes, is 2e-10 or more).
std::string dominant(const PointMetrics& p) {
  constexpr double rounding = 1e-12;
  const std::pair<double, const char*> parts[] = {
      {p.nonpar_communication, "communication"},
      {p.nonpar_copy, "copy"},
      {p.nonpar_synchronisation, "synchronisation"},
      {p.nonpar_compute, "compute"}};
  const auto* best = &parts[0];
  for (const auto& part : parts)
    if (part.first > best->first)
      best = &part;
  return best->first > rounding && 1 - p.alpha_eff > rounding ? best->second : "none";
}

} // namespace

std::string_view to_string(Scaling s) {
  switch (s) {
  case Scaling::Weak:
    return "weak";
  case Scaling::Strong:
    return "strong";
  }
  return "unknown";
}

CurveAnalysis analyse(std::span<const CurvePoint> points, Scaling scaling) {
  std::vector<CurvePoint> usable;
  std::copy_if(points.begin(), points.end(), std::back_inserter(usable), is_usable);
  // Stable: the seeds of one n are summed in input order, so the means are reproducible.
  std::stable_sort(usable.begin(), usable.end(),
                   [](const CurvePoint& a, const CurvePoint& b) { return a.n < b.n; });

  CurveAnalysis out{.scaling = scaling, .n_reference = nan};
  for (auto first = usable.begin(); first != usable.end();) {
    const auto last =
        std::find_if(first, usable.end(), [&](const CurvePoint& p) { return p.n != first->n; });
    out.points.push_back(average(std::span<const CurvePoint>(first, last)));
    first = last;
  }
  if (!out.points.empty()) {
    out.n_reference = out.points.front().n;
    const PointMetrics ref = out.points.front();
    for (PointMetrics& m : out.points)
      compare(m, ref, scaling);
  }
  out.fit = fit_amdahl(out.points, out.n_reference);
  out.n_half_efficiency_measured = measured_n_half(out.points);
  out.n_doubling_below_10pct_measured = measured_n_doubling(out.points);
  out.alpha_eff_at_largest_n = out.points.empty() ? nan : out.points.back().alpha_eff;
  out.dominant_term = out.points.size() < 2 ? "none" : dominant(out.points.back());
  return out;
}

double alpha_eff(double n, double speedup) {
  if (n == 1)
    return nan;
  return n / (n - 1) * (speedup - 1) / speedup;
}

double amdahl_efficiency(double n, double alpha) {
  return 1 / (n * (1 - alpha) + alpha);
}

} // namespace ceiling::analysis
