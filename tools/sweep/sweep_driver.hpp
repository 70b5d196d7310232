// What `ceiling sweep` and `ceiling-mpi-sweep` share: the setup of a sweep (experiment, points,
// inputs, resume), the store written as each point finishes, progress. No SimGrid here: the
// points run in processes of their own (`ceiling sweep-point`).
#pragma once

#include "io/result_store.hpp"
#include "sweep/expand.hpp"
#include "sweep/experiment_spec.hpp"
#include "sweep/worker_pool.hpp"

#include <chrono>
#include <memory>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ceiling::tools {

/// Bad use of a sweep that is not a file error: printed after "ceiling: error: ", exit 2.
class SweepError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Where the result file stands when the sweep starts.
enum class ExistingOutput { Refuse, Resume, Overwrite };

/// The sweep's claim on its output: OUT.lock held with flock() while the sweep runs, so that a
/// second sweep on the same output is refused instead of mixing its points in. Removed at the
/// end. A lock file a sweep left (one killed), or an empty one, is taken; a file of that name
/// that no sweep made is refused and kept.
class OutputLock {
public:
  explicit OutputLock(const std::string& output); ///< SweepError when another sweep holds it
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  ~OutputLock();

private:
  std::string path_;
  int fd_ = -1;
};

/// Everything a sweep needs before it runs a point.
struct SweepSetup {
  sweep::ExperimentSpec experiment;
  sweep::Expansion expansion;
  std::string output;
  io::ResultFile results;        ///< the header, inputs and the points already done (resume)
  std::vector<int> to_run;       ///< point indices still missing or failed, in run order
  std::shared_ptr<OutputLock> lock;
  /// --overwrite of an existing store: it stays as it is until the first point is stored
  /// (begin_store), so that a sweep stopped before then loses nothing.
  bool overwriting = false;
  /// --resume of an existing store: it stays as it is (its command lines too) until a point is stored.
  bool resuming = false;
  /// The points stored already that do not run again (a failed one's record stays in `results`
  /// until its new run replaces it).
  std::size_t already_done() const { return expansion.points.size() - to_run.size(); }
};

/// Loads the experiment (LoadError for a bad file), reads its inputs, and with Resume reads
/// the points an earlier run of the same experiment stored in `output` (those that failed run
/// again, their records kept until replaced; a file of another tool version is refused). Creates the output's folder and takes
/// its lock (SweepError when that
/// file was made from another experiment text, StoreError when it is not a result file).
/// `output_override` replaces the experiment's output when not empty.
SweepSetup prepare_sweep(const std::string& experiment_path, const std::string& output_override,
                         ExistingOutput existing, const std::string& command_line);

/// Writes the store with its inputs and curves and no point, so that it exists from the start;
/// but an existing store that --overwrite replaces or --resume continues stays as it is until
/// store_point() writes the first point (that its temporary file can be created is checked now:
/// SweepError).
void begin_store(const SweepSetup& setup);

/// Adds a finished point (replacing the record of a failed one run again) and rewrites the store atomically (analysis of every curve included).
/// Throws SweepError, storing nothing, when an input file changed since the sweep began.
void store_point(SweepSetup& setup, sweep::PointRecord record);

/// "N failed" and, when some did not fit, ", M do not fit in device memory", over the points
/// stored in `results` (those of earlier runs of a resumed sweep too).
std::string failures(const io::ResultFile& results);

/// What a sweep stopped by a signal prints last: how many points its store holds, and that
/// --resume continues.
std::string interrupted_message(const SweepSetup& setup);

/// The result of a point's process: decoded from its output, or a failure that says how the
/// process ended (exit status or signal, and the tail of its stderr).
sweep::PointResult point_result(const sweep::WorkerPool::Finished& f);

/// The first argument of a point's command: the sweep's tool_version() after it. A point run by
/// another build (the program rebuilt while the sweep runs) refuses to run, with that error.
inline constexpr std::string_view sweep_version_option = "--sweep-version=";

/// The arguments that run point `p` in a process of its own:
/// `ceiling sweep-point --sweep-version=VERSION RUN-OPTIONS...`.
std::vector<std::string> point_command(const std::string& ceiling_program,
                                       const sweep::PointSpec& p);
/// The same for `ceiling run` options `run_args` (a run's seeds, each in a process of its own).
std::vector<std::string> point_command(const std::string& ceiling_program, const std::vector<std::string>& run_args);

/// "dragonfly / resnet50 / baseline / weak, 64 nodes, seed 1".
std::string point_label(const SweepSetup& setup, const sweep::PointSpec& p);

/// This build's version: the project's release (CMake), "+", the id of the sources a result
/// depends on ("0.1.0+1a2b3c4d5e6f"); result stores record it, and --resume refuses another's.
std::string tool_version();

/// The `ceiling` program beside this one (or one folder up: the MPI program's build folder is
/// tools/mpi_sweep/).
std::string ceiling_program_path();

/// The program that runs points: $CEILING_POINT_PROGRAM when set (a wrapper, such as a script
/// that runs `ceiling` under valgrind: it is called as PROGRAM sweep-point --sweep-version=VERSION RUN-OPTIONS...),
/// else ceiling_program_path().
std::string point_program_path();

/// Prints how a sweep ended on standard output: "wrote OUT: N points, F failed ..." and the table of
/// its curves (headlines()).
void print_sweep_end(const SweepSetup& setup);

/// A progress display: a bar redrawn in place on a terminal, a line per point otherwise.
class Progress {
public:
  /// Lines: a line per point, terminal or not (the MPI sweep's rank 0, which Open MPI gives a
  /// pseudo-terminal whatever mpirun itself writes to).
  enum class Display { BarOnTerminal, Lines };
  Progress(int total, int already_done, std::FILE* out, Display display = Display::BarOnTerminal);
  /// One more point finished; `line` says which and how it went.
  void point_done(const sweep::PointResult& result, double weight, double weight_left, const std::string& line);
  void finish();
  int failed() const { return failed_; }

private:
  void draw(double weight_left);
  int total_;
  int done_;
  int failed_ = 0;
  double weight_done_ = 0;
  std::FILE* out_;
  bool terminal_;
  std::chrono::steady_clock::time_point start_;
};

/// A point's process finished: stores its record (store_point) and shows it on `progress`, its
/// line saying the time per iteration, that it does not fit or why it failed, its `weight` (the
/// ETA's) taken off `weight_left`.
void record_finished(SweepSetup& setup, const sweep::WorkerPool::Finished& finished, double weight,
                     double& weight_left, Progress& progress);

/// What a point costs in wall time, roughly, for the ETA (measured on 2026-12-06: the collectives
/// benchmark, README, Speed, and points of the bundled experiments timed one by one): a point's
/// process takes about 0.2 s whatever its size (0.09-0.20 s alone at 1 to 1,024 nodes, 0.2 on
/// average in the quickstart sweep's two at a time, 0.26 in the interconnect sweep's smallest
/// points, each on the whole 4,096-node machine); the machine builds in about 25 us per node
/// (0.09-0.36 s at 4,096 Piz Daint nodes, 0.25-1.5 s on the 16,384-node bench machines); an
/// iteration costs about 1 ms plus 0.4 us per flow (0.2-0.8 us where flows are alone on their
/// routes or share a fat-tree's or a torus's links), three times as much where they share an
/// adaptive dragonfly's (1.2-1.6 us: each route's latency gives each flow its own start and end).
/// 57 points of the bundled experiments took 0.46 to 1.28 times their estimate, timed one by one
/// (the smallest, 0.09-0.10 s alone, about 0.2 s two at a time in a sweep).
struct PointCost {
  static constexpr double start_up_s = 0.2;
  static constexpr double build_s_per_node = 25e-6;
  static constexpr double iteration_s = 1e-3;
  static constexpr double s_per_flow = 0.4e-6;
  static constexpr double dragonfly_sharing = 3; ///< a flow sharing an adaptive dragonfly's links, in flows
  /// A point that does not fit its GPU's memory: a process that loads its inputs and refuses it
  /// (0.08 s measured).
  static constexpr double refused_s = 0.1;
  /// A point of `nodes` nodes and `iterations` iterations of `flows_per_iteration` flows each
  /// (counted in flows that share no dragonfly's links).
  static double seconds(double nodes, int iterations, double flows_per_iteration) {
    return start_up_s + build_s_per_node * nodes + iterations * (iteration_s + s_per_flow * flows_per_iteration);
  }
};

/// A point's cost, for the ETA where no scenario is at hand (the MPI sweep): PointCost with the
/// ring's flows of two buckets, one per node and bucket.
double point_weight(const sweep::ExperimentSpec& e, const sweep::PointSpec& p);

} // namespace ceiling::tools
