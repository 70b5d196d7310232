// What a replay returns: per-iteration times, breakdowns, bytes per link class, a timeline.
#pragma once

#include "replay/sharing_work.hpp"

#include <string>
#include <vector>

namespace ceiling::replay {

/// Where a rank's time went, exclusive and summing to the iteration time: computing, copying
/// over PCIe while not computing, communicating while neither, and waiting for other ranks
/// (to join a collective or to finish the iteration). Averaged over ranks.
struct Breakdown {
  double compute_s = 0;
  double copy_s = 0;
  double communication_s = 0;
  double synchronisation_s = 0;
  /// Adds each part of `b` divided by `divisor` (for means over ranks or iterations).
  void add_divided(const Breakdown& b, double divisor) {
    compute_s += b.compute_s / divisor;
    copy_s += b.copy_s / divisor;
    communication_s += b.communication_s / divisor;
    synchronisation_s += b.synchronisation_s / divisor;
  }
};

/// Bytes that crossed links of each class in one iteration, summed over links (a flow that
/// crosses three fabric links counts three times there).
struct LinkBytes {
  double pcie = 0;
  double nic = 0;
  double fabric = 0;
  double gpu_link = 0;
  double host_memory = 0; ///< transfers between GPUs of one node staged through host memory
  bool operator==(const LinkBytes&) const = default;
  /// Adds each class of `b` multiplied by `factor` (link counts times a flow's bytes).
  void add_times(const LinkBytes& b, double factor) {
    add_each(b, [factor](double x) { return x * factor; });
  }
  /// Adds each class of `b` divided by `divisor` (for means over iterations).
  void add_divided(const LinkBytes& b, double divisor) {
    add_each(b, [divisor](double x) { return x / divisor; });
  }

private:
  template <class F> void add_each(const LinkBytes& b, F f) {
    pcie += f(b.pcie);
    nic += f(b.nic);
    fabric += f(b.fabric);
    gpu_link += f(b.gpu_link);
    host_memory += f(b.host_memory);
  }
};

struct IterationResult {
  double time_s = 0;
  Breakdown breakdown;
  LinkBytes bytes;
};

/// One activity of one rank, for traces.
struct TimelineEvent {
  int rank = 0;
  std::string category; ///< compute, copy, communication, collective (a rank's time in one: joining to its end)
  std::string name;
  double start_s = 0;
  double end_s = 0;
  /// A copy from device to host memory (a PCIe link's other direction from the host->device
  /// copies, which can run beside it).
  bool to_host = false;
};

/// One gradient exchange of the iteration and the algorithm the software stack ran for it.
struct ReductionSummary {
  std::string name;      ///< "bucket 3", "sparse embedding"
  double bytes = 0;      ///< per rank
  std::string algorithm; ///< "halving-doubling", ...
  std::string rule;      ///< why: the library's rule in words, or "fixed"
  std::string protocol;  ///< NCCL's protocol ("LL", "LL128", "Simple"); empty for other libraries
  /// A sparse gradient's: an all-gather (bytes: the rows this rank looked up, or their ids), or on
  /// parameter servers its push (the rows and their ids) or the next step's read of the rows.
  bool sparse = false;
  bool gathered = false;   ///< a sparse gradient's all-gather (else, if sparse, on parameter servers)
  double result_bytes = 0; ///< per rank afterwards: what came back (0 for a push whose rows the next step reads)
  bool read = false;       ///< a next step's read from the parameter servers
};

/// An embedding table whose gradient the stack exchanges dense, whole with the dense gradients
/// (software.sparse_gradients: dense, or cheaper where a dense all-reduce moves fewer bytes).
struct DenseTable {
  std::string name; ///< its layer's
  double bytes = 0; ///< its whole gradient, per rank
};

struct RunResult {
  int ranks = 0;
  /// In the order backward makes them ready; fused by cycle, the last complete iteration's
  /// responses in the order they ran.
  std::vector<ReductionSummary> reductions;
  std::string calibration; ///< which compute calibration priced the device, in words
  /// Where the job sits: its node slots (ascending) and how many of the topology's domains
  /// (platform::domain_size: dragonfly groups, leaf switches, torus planes) they touch.
  std::vector<long long> slots;
  long long domains_spanned = 0;
  /// Parameter servers: the gradient bytes each receives from every worker per iteration, by
  /// server; server s is rank s x server_rank_stride (IterationPlan).
  std::vector<double> server_bytes;
  int server_rank_stride = 1;
  std::vector<DenseTable> dense_tables; ///< in layer order; empty where no table goes dense
  double samples_per_iteration = 0;      ///< batch x ranks
  double flop_per_iteration = 0;         ///< all ranks, forward + backward
  std::vector<IterationResult> iterations; ///< the first is warm-up
  int stopped_by = 0; ///< the signal that interrupted the run (even one that let it finish), or 0
  /// The signal came while an iteration was under way that took too long to finish: it was
  /// dropped (the finished ones are all in `iterations`).
  bool dropped_iteration = false;
  std::vector<TimelineEvent> timeline;
  /// Wall-clock seconds this process spent building the machine and on each iteration: for
  /// benchmarks only, never part of the deterministic output.
  double build_wall_s = 0;
  /// Of build_wall_s: the iteration plan and SimGrid's machine; the rest reads routes and plans
  /// the flows.
  double machine_wall_s = 0;
  std::vector<double> iteration_wall_s;
  /// The simulation's work over all iterations, for benchmarks: transfers started (comms
  /// through SimGrid's network model), collective flows timed in closed form instead, copies
  /// the replay shared out itself (SharedLink), and times the simulated clock moved forward.
  long long transfers = 0;
  long long flows_in_closed_form = 0; ///< collective flows alone on their route (not in SimGrid)
  long long flows_shared = 0;         ///< collective flows shared out by the replay (FlowSharing)
  long long link_copies = 0;
  bool transfers_by_couriers = false; ///< the transfer driver: couriers, or maestro
  long long clock_advances = 0;
  SharingWork sharing; ///< what sharing out the flows cost (FlowSharing::work())
  /// Mean over the iterations after the first (the first alone when there is one).
  IterationResult measured_mean() const;
};

} // namespace ceiling::replay
