// One point of a sweep (a `ceiling run` with its place in the experiment) and its outcome.
#pragma once

#include "analysis/curve_analysis.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ceiling::sweep {

/// One curve of an experiment: one platform x workload x variant x scaling mode over N.
/// The labels are the names the experiment file gives them.
struct CurveSpec {
  std::string id;       ///< "platform / workload / variant / scaling", unique in the experiment
  std::string platform;
  std::string workload;
  std::string variant;  ///< "baseline" when the experiment has no variants
  analysis::Scaling scaling = analysis::Scaling::Weak;
  /// The platform's price of one node with its share of the network, in the experiment's
  /// cost unit (ResultFile::cost_unit); absent when the experiment gives no costs.
  std::optional<double> cost_per_node;
  bool operator==(const CurveSpec&) const = default;
};

/// One simulation of a sweep. run_args are the `ceiling run` arguments that reproduce it
/// exactly (platform, workload, nodes, seed, batch, overrides and options).
struct PointSpec {
  int index = 0;        ///< position in the experiment's expansion, from 0
  int curve = 0;        ///< index into the experiment's curves
  long long nodes = 0;
  std::uint64_t seed = 1;
  std::vector<std::string> run_args;
  bool operator==(const PointSpec&) const = default;
};

/// What one point's simulation gave. Times are seconds per iteration; the mean excludes the
/// warm-up iteration (replay::RunResult::measured_mean); the breakdown parts add up to it.
/// A failed point keeps its error message and zeros elsewhere.
struct PointResult {
  bool ok = false;
  /// Not run: its batch does not fit its GPU's memory (replay::memory_problem, in `error`). A
  /// property of the experiment, not a failure: never retried, not counted as failed.
  bool does_not_fit = false;
  std::string error;
  /// What the point stands on, in words: the compute calibration that priced its device (own,
  /// borrowed, per device; uncalibrated precision, CPU or GPU model), its routing, allocation and
  /// background load; empty when it did not run.
  std::string provenance;
  long long ranks = 0;
  long long batch_per_rank = 0;
  double iteration_time_s = 0;
  double warmup_time_s = 0;
  double iteration_time_min_s = 0; ///< over the measured iterations
  double iteration_time_max_s = 0;
  double samples_per_iteration = 0;
  double flop_per_iteration = 0;
  double peak_flop_per_s = 0;      ///< nominal peak of all the point's ranks at its precision
  double compute_s = 0;
  double copy_s = 0;
  double communication_s = 0;
  double synchronisation_s = 0;
  double bytes_pcie = 0;           ///< bytes per iteration summed over the links of each class
  double bytes_nic = 0;
  double bytes_fabric = 0;
  double bytes_gpu_link = 0;
  double bytes_host_memory = 0;
  bool operator==(const PointResult&) const = default;
};

/// A number of PointResult: its name (in a point's text, the store's columns, the CSV), unit
/// and member.
struct PointResultField {
  const char* name;
  const char* unit;
  double PointResult::*member;
};

/// Every number of PointResult, in the store's column order: one table for all its forms.
inline constexpr PointResultField point_result_fields[] = {
    {"iteration_time_s", "s", &PointResult::iteration_time_s},
    {"warmup_time_s", "s", &PointResult::warmup_time_s},
    {"iteration_time_min_s", "s", &PointResult::iteration_time_min_s},
    {"iteration_time_max_s", "s", &PointResult::iteration_time_max_s},
    {"samples_per_iteration", "samples", &PointResult::samples_per_iteration},
    {"flop_per_iteration", "FLOP", &PointResult::flop_per_iteration},
    {"peak_flop_per_s", "FLOP/s", &PointResult::peak_flop_per_s},
    {"compute_s", "s", &PointResult::compute_s},
    {"copy_s", "s", &PointResult::copy_s},
    {"communication_s", "s", &PointResult::communication_s},
    {"synchronisation_s", "s", &PointResult::synchronisation_s},
    {"bytes_pcie", "bytes", &PointResult::bytes_pcie},
    {"bytes_nic", "bytes", &PointResult::bytes_nic},
    {"bytes_fabric", "bytes", &PointResult::bytes_fabric},
    {"bytes_gpu_link", "bytes", &PointResult::bytes_gpu_link},
    {"bytes_host_memory", "bytes", &PointResult::bytes_host_memory},
};

struct PointRecord {
  PointSpec spec;
  PointResult result;
  bool operator==(const PointRecord&) const = default;
};

} // namespace ceiling::sweep
