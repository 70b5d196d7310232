// An experiment file as values: one question, the platforms, workloads, variants and node
// counts it sweeps. Read by config/experiment_file; expanded into points by sweep/expand.
#pragma once

#include "analysis/curve_analysis.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ceiling::sweep {

/// Where an entry stands in the experiment file, for messages (line and column from 1).
struct EntryLocation {
  std::string path;
  int line = 0;
  int column = 0;
  bool operator==(const EntryLocation&) const = default;
};

/// A platform or workload of the experiment: a file, resolved against the experiment file's
/// folder, with `--set` overrides ("interconnect.link_bandwidth=25 GB/s").
struct InputEntry {
  std::string name;
  std::string file;
  std::vector<std::string> set;
  /// Workloads only: samples per rank (weak scaling) and over all ranks (strong scaling);
  /// unset: the experiment's, else the workload file's batch_per_worker (weak).
  std::optional<long long> batch;
  std::optional<long long> global_batch;
  /// Platforms only: optional costs, in the experiment's cost unit, for performance per cost.
  std::optional<double> cost_per_node;
  EntryLocation where;
  EntryLocation global_batch_where; ///< where `global_batch` is written (the table's place when absent)
  EntryLocation set_where;          ///< where `set` is written (the table's place when absent)
  std::vector<EntryLocation> set_element_where; ///< where each of `set` is written
  bool operator==(const InputEntry&) const = default;
};

/// A variant: `ceiling run` options ("--collective", "halving-doubling") and overrides, the
/// same for every platform and workload.
struct VariantSpec {
  std::string name;
  std::vector<std::string> run_args; ///< its options as "--name", value pairs, then its "--set"s
  EntryLocation where;
  std::vector<EntryLocation> option_where; ///< where each option is written, in run_args' order
  EntryLocation set_where;                 ///< where `set` is written (the table's place when absent)
  std::vector<EntryLocation> set_element_where; ///< where each of overrides() is written
  bool operator==(const VariantSpec&) const = default;

  /// Its overrides: the values of its "--set"s (run_args holds name, value pairs).
  std::vector<std::string> overrides() const {
    std::vector<std::string> set;
    for (std::size_t i = 0; i + 1 < run_args.size(); i += 2)
      if (run_args[i] == "--set")
        set.push_back(run_args[i + 1]);
    return set;
  }
};

struct ExperimentSpec {
  std::string path;      ///< the experiment file as given
  std::string text;      ///< its exact text
  std::string title;
  std::string question;
  std::string output;    ///< the result file, relative to the current directory
  EntryLocation output_where;             ///< where `output` is written (the table's place when absent)
  std::vector<InputEntry> platforms;
  std::vector<InputEntry> workloads;
  std::vector<VariantSpec> variants;      ///< at least one ("baseline" when the file has none)
  std::vector<long long> nodes;           ///< ascending, distinct
  EntryLocation nodes_where;              ///< where `nodes` is written
  std::vector<analysis::Scaling> scalings;
  std::optional<long long> batch;         ///< default per-rank batch of every workload
  std::optional<long long> global_batch;  ///< default global batch of strong scaling
  int iterations = 3;                     ///< per point; the first is the warm-up
  std::vector<std::uint64_t> seeds{1};
  std::string cost_unit;                  ///< of cost_per_node ("kCHF"), "" without costs
  EntryLocation where;                    ///< the [experiment] table
  EntryLocation global_batch_where;       ///< where `global_batch` is written (the table's place when absent)
  bool operator==(const ExperimentSpec&) const = default;
};

} // namespace ceiling::sweep
