// The HDF5 result store of a sweep: inputs, points, curves and their analysis. The schema is
// documented in README.md ("Result store"); nothing here knows about SimGrid.
#pragma once

#include "analysis/curve_analysis.hpp"
#include "sweep/point.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace ceiling::io {

/// A file the results came from, kept verbatim: kind is "experiment", "platform" (one an experiment
/// runs on, or one a workload's calibration was measured on), "workload" or "software".
struct InputFile {
  std::string kind;
  std::string path;
  std::string text;
  bool operator==(const InputFile&) const = default;
};

/// Everything a result file holds. `points` are the finished points (ok or failed) in index
/// order; `analyses[i]` belongs to `curves[i]`.
struct ResultFile {
  std::string tool_version;
  std::string simgrid_version;
  std::string command_line;
  std::string experiment_path;
  std::string title;
  std::string question;
  std::string digest;          ///< fingerprint of the experiment and input texts (resume checks it)
  long long points_total = 0;  ///< points the experiment expands to
  std::string cost_unit;       ///< of CurveSpec::cost_per_node; "" when the experiment has no costs
  std::vector<InputFile> inputs;
  std::vector<sweep::CurveSpec> curves;
  std::vector<sweep::PointRecord> points;
  std::vector<analysis::CurveAnalysis> analyses;
};

/// The analysis of each of `curves` from its finished `points`, as the sweep stores it (and as
/// read_results() checks the stored one against).
std::vector<analysis::CurveAnalysis> curve_analyses(const std::vector<sweep::CurveSpec>& curves,
                                                    const std::vector<sweep::PointRecord>& points);
/// Recomputes `results`' analyses from its points (curve_analyses).
void analyse_curves(ResultFile& results);

/// A result file that cannot be read (missing, not HDF5, not ours, truncated, or of another
/// format version) or written, or a CSV table that cannot be written. what() reads
/// "PATH: error: what is wrong".
class StoreError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Writes `results` to `path` atomically: to "PATH.tmp" first, flushed to disk, then renamed,
/// so an interruption never leaves a partial file under `path`. Throws StoreError when the
/// file cannot be written.
void write_results(const std::string& path, const ResultFile& results);

/// Reads a file written by write_results(); throws StoreError for anything else.
ResultFile read_results(const std::string& path);

} // namespace ceiling::io
