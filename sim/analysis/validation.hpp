// Predicted against measured scaling: the efficiency per N of a validation case, the error in
// points, the median and worst. Numbers in, numbers out.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ceiling::analysis {

/// One measured point of a real series: its workers (GPUs, or CPU ranks) and what the source
/// gives: a throughput, an efficiency it reports (relative to the series' first point), or both
/// (the throughput for the throughput's ratio, the efficiency as the source reports it). A
/// series gives throughputs at every point or at none (config/validation_file checks it).
struct MeasuredPoint {
  long long workers = 1;
  std::optional<double> throughput_samples_per_s;
  std::optional<double> reported_efficiency;
  /// The software stack of this point where the source ran another than the case's (a bundled
  /// name or a path as the file resolves it); empty: the case's.
  std::string software;
  /// Samples per worker at this point where the source's batch per GPU changes with N (MLPerf's
  /// entries: a fixed global batch split over more GPUs); empty: the case's.
  std::optional<long long> batch_per_worker;
  /// Further `ceiling run` options of this point, after the case's (a setting the source
  /// changed with N).
  std::vector<std::string> options;
  /// Where its [[measured]] entry stands in the case file (0: not from a file).
  int line = 0;
  int column = 0;
  bool operator==(const MeasuredPoint&) const = default;
};

/// A real series to predict (a validation/ case file): where it ran, what it trained, and
/// what was measured. Paths are as the file resolves them.
struct ValidationCase {
  std::string path;
  std::string id;
  std::string title;
  std::string source;
  std::string platform;
  std::string workload;
  std::string software;
  int gpus_per_node = 1;         ///< workers fill nodes of this many; fewer: one node with that many
  int gpus_per_node_line = 0;    ///< where gpus_per_node stands in the file (0: not from a file)
  int gpus_per_node_column = 0;
  long long batch_per_worker = 1;  ///< samples per worker, unless a point gives its own
  /// How the series scales: weak, the case's batch per worker at every point; or each point at
  /// the batch per worker the source ran it with (MLPerf's entries: a global batch chosen per entry).
  enum class Scaling { Weak, PerPointBatch };
  Scaling scaling = Scaling::Weak;
  std::vector<std::string> options; ///< further `ceiling run` options
  int servers_per_node = 0;        ///< parameter servers per node (--servers nodes x this), 0: none given
  std::vector<MeasuredPoint> measured; ///< ascending workers
  bool operator==(const ValidationCase&) const = default;
};

struct PointComparison {
  long long workers = 1;
  std::optional<double> measured_throughput;
  double predicted_throughput = 0;
  double measured_efficiency = 0;
  double predicted_efficiency = 0;
  double error_points = 0; ///< 100 (predicted - measured efficiency)
};

struct CaseComparison {
  std::string id;
  std::vector<PointComparison> points;
  double median_abs_error_points = 0; ///< over the points after the reference (the smallest N)
  double worst_error_points = 0;      ///< signed, the largest in magnitude
};

/// Whether `ceiling validate` sets the `ceiling run` option of long name `name` ("nodes") itself
/// at every point, from a case's keys (platform, workload, nodes, software, batch, global-batch,
/// iterations, and servers where the case gives servers_per_node), or whether the option would
/// change what a run prints (json, seeds, trace, timing, help): a case's options cannot give it.
bool validate_sets_option(std::string_view name, bool servers_given);

/// Efficiency E(N) = (X(N) / N) / (X(N0) / N0), N0 the smallest N of the series, from the
/// measured throughputs, but the efficiency the source reports wherever a point gives one (beside
/// its throughput too); the same from `predicted` throughputs (one per measured point, in order).
CaseComparison compare(const ValidationCase& c, const std::vector<double>& predicted);

/// The median of the absolute errors of all points after each case's reference, and the
/// worst (signed).
struct Summary {
  int points = 0;
  double median_abs_error_points = 0;
  double worst_error_points = 0;
};
Summary summarize(const std::vector<CaseComparison>& cases);

} // namespace ceiling::analysis
