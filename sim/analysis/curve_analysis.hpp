// Végh's analysis of one scaling curve: speedup, efficiency, alpha_eff, the Amdahl fit and
// its ceiling, payload, and the parts of (1 - alpha_eff). Numbers in, numbers out: no SimGrid,
// no files. Formulas: ../shared/data/hardware/piz-daint.md §1 (A), (B), (D), (E).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ceiling::analysis {

/// Weak: the work per unit is fixed (the batch per rank), so the work grows with N and the
/// figure of merit is throughput. Strong: the total work is fixed (the global batch), so the
/// figure of merit is the time to solution of one global batch.
enum class Scaling { Weak, Strong };
std::string_view to_string(Scaling s);

/// One simulated point of a curve (one node count, one seed). The four parts of the
/// breakdown are seconds per iteration averaged over ranks and add up to iteration_time_s.
struct CurvePoint {
  double n = 0;                     ///< processing units counted (nodes, say), >= 1
  double iteration_time_s = 0;      ///< mean simulated iteration time
  double samples_per_iteration = 0; ///< over all ranks
  double flop_per_iteration = 0;    ///< over all ranks, forward + backward
  double peak_flop_per_s = 0;       ///< nominal peak of the n units at the run's precision
  double compute_s = 0;
  double copy_s = 0;
  double communication_s = 0;
  double synchronisation_s = 0;
};

/// The metrics of one node count, averaged over the seeds that ran it.
struct PointMetrics {
  double n = 0;
  int seeds = 0;                     ///< points averaged
  double iteration_time_s = 0;       ///< mean over seeds
  double iteration_time_min_s = 0;   ///< spread over seeds: least, median, most
  double iteration_time_median_s = 0;
  double iteration_time_max_s = 0;
  double throughput_samples_per_s = 0;
  double speedup = 0;                ///< against the smallest n; 1 there
  double efficiency = 0;             ///< speedup / (n / n_reference)
  double alpha_eff = 0;              ///< Végh (B1), NaN at the reference point
  double payload_flop_per_s = 0;     ///< delivered: flop_per_iteration / iteration_time_s
  double payload_efficiency = 0;     ///< payload / nominal peak
  // Means over seeds of the breakdown, seconds per iteration.
  double compute_s = 0;
  double copy_s = 0;
  double communication_s = 0;
  double synchronisation_s = 0;
  /// The parts of (1 - alpha_eff): each breakdown part's growth over the reference point,
  /// (k x(n) - x(n0)) / (T(n0) (n/n0 - 1)), k = 1 weak, n/n0 strong; they add up to
  /// 1 - alpha_eff exactly. NaN at the reference point.
  double nonpar_communication = 0;
  double nonpar_copy = 0;
  double nonpar_synchronisation = 0;
  /// What each rank computes beyond perfect scaling: a smaller batch per GPU runs less
  /// efficiently (strong scaling), every rank repeats the optimizer step, ranks compute unequal
  /// shares. (Stored as `nonpar_compute_imbalance`, its former name.)
  double nonpar_compute = 0;
};

/// What a curve's shape is, by the first of these that holds:
/// - TooFewNodeCounts: fewer than two points beyond the reference (one parameter fits one point);
/// - Slowdown: the fit's alpha below 0, outside Amdahl's law;
/// - NonparallelFalls: 1 - alpha_eff falls with n (drift at or below -amdahl_drift_limit), nearer
///   Gustafson's weak scaling (-1, at constant efficiency) than Amdahl: the speedup grows without
///   a ceiling in sight, and the fitted one grows with the largest n swept (the efficiency may
///   still fall, as at S = n^0.6);
/// - CeilingFalls: 1 - alpha_eff grows with n (drift at or above amdahl_drift_limit);
/// - PoorFit: the fit's residual at or above amdahl_residual_limit (or NaN);
/// - Amdahl: none of these, Amdahl-shaped.
enum class CurveShape {
  Amdahl,
  TooFewNodeCounts,
  Slowdown,
  NonparallelFalls,
  CeilingFalls,
  PoorFit
};
/// Every shape, in the order above.
inline constexpr CurveShape curve_shapes[] = {
    CurveShape::Amdahl,          CurveShape::TooFewNodeCounts, CurveShape::Slowdown,
    CurveShape::NonparallelFalls, CurveShape::CeilingFalls,     CurveShape::PoorFit};

/// The shape's name as the result store, the CSV export and the plots spell it: "amdahl",
/// "too_few_node_counts", "slowdown", "nonparallel_falls", "ceiling_falls", "poor_fit".
std::string_view to_string(CurveShape shape);
/// The shape of that name; nullopt for another text.
std::optional<CurveShape> curve_shape_from(std::string_view name);

/// Least-squares Amdahl fit S(r) = 1 / ((1 - alpha) + alpha / r), r = n / n_reference (the
/// fit counts n in units of the reference point), minimising the points' relative errors
/// S / S_fit - 1, and what follows from it. The two n's are converted back to absolute n: the
/// closed forms in r times n_reference. An alpha above 1
/// (superlinear) is clamped to 1; one at or below 0 (no speedup, or a slowdown) is kept, and
/// the closed forms are evaluated as they stand. Every number is NaN, and amdahl_shaped false,
/// when the curve has fewer than two distinct n.
struct AmdahlFit {
  double alpha = 0;
  double ceiling_speedup = 0;         ///< over the reference, 1 / (1 - alpha); +inf at alpha = 1
  double n_half_efficiency = 0;       ///< fitted E = 0.5 at r = (2 - alpha) / (1 - alpha)
  double n_doubling_below_10pct = 0;  ///< doubling gains < 10 % from r = 4.5 alpha / (1 - alpha), at least 1
  double residual = 0;                ///< RMS over the points beyond the reference of S / S_fit - 1
  /// The slope of log(1 - alpha_eff) against log n over the upper half (in log n) of the
  /// curve: 0 on Amdahl's curve, -1 at constant efficiency (weak scaling's, Gustafson's);
  /// NaN with too few points.
  double alpha_eff_drift = 0;
  /// At least two points beyond the reference, the residual below amdahl_residual_limit, the
  /// drift, where known, within amdahl_drift_limit of 0, and alpha at least 0 (a slowdown, whose
  /// fit has alpha below 0, is outside Amdahl's law, whose parallel fraction is 0 to 1): shape
  /// Amdahl.
  bool amdahl_shaped = false;
  /// Which of those holds first (CurveShape).
  CurveShape shape = CurveShape::TooFewNodeCounts;
};

/// The slope of log(1 - alpha_eff) against log n over the points of the upper half (in log n)
/// of a curve's `points` (ascending, alpha_eff against `n_reference`): 0 where alpha_eff holds,
/// as on Amdahl's curve; -1 where the efficiency holds, as under Gustafson's weak scaling. NaN
/// where fewer than two points there have 1 - alpha_eff > 0.
double alpha_eff_drift(const std::vector<PointMetrics>& points, double n_reference);

/// The residual below which a curve can count as Amdahl-shaped: its speedup follows Amdahl's
/// within a few per cent over the n swept.
inline constexpr double amdahl_residual_limit = 0.05;
/// The drift of 1 - alpha_eff from which a curve does not: nearer Gustafson's -1 than Amdahl's
/// 0 (a near-linear weak-scaling curve fits Amdahl's about as well as the residual limit, within
/// it over hundreds of n, about at it over thousands, at a ceiling that grows with the largest n
/// swept: its 1 - alpha_eff falls as 1/n), or growing as sqrt(n) or
/// faster (a ceiling that falls as n grows).
inline constexpr double amdahl_drift_limit = 0.5;

struct CurveAnalysis {
  Scaling scaling = Scaling::Weak;
  double n_reference = 0;                ///< the smallest n
  std::vector<PointMetrics> points;      ///< one per distinct n, ascending
  AmdahlFit fit;
  /// Measured (interpolated in log n) where the efficiency first falls to 0.5, and the
  /// first n from which the next measured n gains less than 10 % per doubling (node counts
  /// that are not powers of two apart counted in doublings, log2 of their ratio); NaN when
  /// not reached.
  double n_half_efficiency_measured = 0;
  double n_doubling_below_10pct_measured = 0;
  double alpha_eff_at_largest_n = 0;
  /// "communication", "copy", "synchronisation" or "compute": the largest part of
  /// (1 - alpha_eff) at the largest n; "none" when the curve has one n or no part is above
  /// 1e-12 (the rounding of equal times).
  std::string dominant_term;
};

/// Analyses a curve. Points may come in any order and repeat an n (several seeds): they are
/// averaged per n. Points whose iteration time is not positive or not finite are ignored. An
/// empty input gives an empty analysis: no points, NaN numbers, dominant_term "none".
CurveAnalysis analyse(std::span<const CurvePoint> points, Scaling scaling);

/// Végh (B1): alpha_eff = n / (n - 1) x (S - 1) / S, identical to 1 - the Karp-Flatt serial
/// fraction; NaN at n = 1.
double alpha_eff(double n, double speedup);

/// Amdahl's efficiency (A2), E = 1 / (n (1 - alpha) + alpha): Végh's efficiency surface.
double amdahl_efficiency(double n, double alpha);

} // namespace ceiling::analysis
