// The message times of the HPC workloads: communication patterns of a process grid, timed on
// the machine once per distinct message size, or at a documented subset of sizes.
#pragma once

#include "collectives/collective_plan.hpp"

#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ceiling::hpc {

/// Times a pattern: every flow (src and dst are ranks of the job, one per node) starts at
/// once with its bytes; the seconds until the last has arrived. The command line times patterns
/// on the simulated machine (replay::TrafficTimer: its routes and flow sharing); tests give
/// closed forms.
class PatternTimer {
public:
  virtual ~PatternTimer() = default;
  virtual double seconds(std::span<const collectives::Flow> flows) = 0;
};

/// A pattern's flows and a name for reports. A flow's `bytes` is its weight: timed at size
/// B, it carries weight x B bytes (1 for patterns of equal messages).
struct Pattern {
  std::string name;
  std::vector<collectives::Flow> flows;
};

/// How many message sizes of each pattern are timed on the machine.
/// - Every: each distinct size the workload sends (the full simulation);
/// - Sampled: at most `samples` sizes per pattern, spread evenly over the sorted distinct
///   sizes (the smallest and largest among them); a size between two samples is timed by
///   linear interpolation in bytes. A pattern's time is close to latency + bytes / rate, so
///   the interpolation error is small; tests/hpc hold the two within 1 %.
struct Sampling {
  bool every = true;
  int samples = 16;
};

/// The times of a workload's patterns. Used in two passes: `record` asks for every size the
/// run needs (and answers 0), then `resolve` times them on the machine; afterwards seconds()
/// answers from what was timed.
class CommTimes {
public:
  explicit CommTimes(PatternTimer& timer) : timer_(&timer) {}

  /// Adds a pattern; returns its id.
  int add(Pattern pattern);

  /// The seconds of pattern `id` at `bytes`: 0 while recording, else timed or interpolated.
  double seconds(int id, double bytes);

  /// Ends the recording pass: times the sizes `sampling` selects on the machine.
  void resolve(Sampling sampling);

  /// Whether pattern `id` has any flow (a grid of one row has no column messages).
  bool has_flows(int id) const { return !patterns_.at(static_cast<std::size_t>(id)).flows.empty(); }
  /// Patterns timed on the machine (calls of the PatternTimer), and the distinct
  /// (pattern, size) pairs the run asks for.
  int timed() const { return timed_; }
  int distinct_sizes() const;

private:
  PatternTimer* timer_;
  std::vector<Pattern> patterns_;
  std::vector<std::map<double, double>> sizes_; ///< per pattern: bytes -> seconds once resolved
  bool recording_ = true;
  int timed_ = 0;
  int asked_ = 0;
};

/// Ranks of a P x Q process grid, row-major as HPL's default PMAP: rank = row * Q + column.
struct Grid2 {
  int rows = 1;
  int columns = 1;
  int rank(int row, int column) const { return row * columns + column; }
  long long size() const { return static_cast<long long>(rows) * columns; }
};

/// Every process sends to the one `shift` columns to its right in its row (wrapping).
Pattern row_shift(Grid2 grid, int shift);
/// Every process sends to the one `shift` rows below it in its column (wrapping).
Pattern column_shift(Grid2 grid, int shift);
/// Every process exchanges with the one whose row number differs in bit `distance` (a power
/// of two), where that row exists: a round of a binary exchange in every column.
Pattern column_exchange(Grid2 grid, int distance);
/// Every rank below `ranks` exchanges with rank xor `distance`, where it exists: a round of a
/// recursive-doubling all-reduce.
Pattern rank_exchange(long long ranks, long long distance);

} // namespace ceiling::hpc
