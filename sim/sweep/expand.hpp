// An experiment expanded into its curves and points, each point a `ceiling run`.
#pragma once

#include "sweep/experiment_spec.hpp"
#include "sweep/point.hpp"

#include <span>
#include <string>
#include <vector>

namespace ceiling::sweep {

struct Expansion {
  std::vector<CurveSpec> curves;  ///< scaling x platform x workload x variant, in file order
  std::vector<PointSpec> points;  ///< per curve: node counts ascending, then seeds
};

/// The curves and points of `e`. Each point's run_args are complete `ceiling run` arguments:
/// platform and workload files, nodes, seed, iterations, the batch (weak: the workload's or the
/// experiment's batch when given; strong: --global-batch), the platform's, workload's and
/// variant's overrides and the variant's options.
Expansion expand(const ExperimentSpec& e);

/// The order in which to run points: fewest nodes first (cheap points give every curve its
/// start early), then index.
std::vector<int> run_order(std::span<const PointSpec> points);

/// The shell command that reproduces `p`: "ceiling run" and its run_args, each as a POSIX
/// shell reads it back (bare when made of safe ASCII characters, otherwise single-quoted with
/// each ' written '\''; "" is ''). Example: "ceiling run --nodes 4 --set 'nic.bandwidth=10 GB/s'".
std::string command_of(const PointSpec& p);

/// A fingerprint of `texts` (FNV-1a, 64 bits, over each text and its length), as 16 hex
/// digits: equal texts give equal digests on every machine.
std::string digest(std::span<const std::string> texts);

} // namespace ceiling::sweep
