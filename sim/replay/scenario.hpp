// One simulation to run: a machine, a workload, a node count and the replay options.
#pragma once

#include "collectives/collective_plan.hpp"
#include "machine/engine.hpp"
#include "platform/platform_spec.hpp"
#include "stack/software_stack.hpp"
#include "workload/gradient_buckets.hpp"
#include "workload/workload_spec.hpp"

#include <cstdint>
#include <optional>

namespace ceiling::replay {

/// Where a GPU's gradient goes before the network: through host memory (a device->host copy
/// before and a host->device copy after each reduction, as Cray MPI did on Piz Daint), or
/// straight from GPU memory (GPU-direct RDMA).
enum class Staging { Host, Direct };

/// Exact: every step of every collective as its own flows. Aggregated: consecutive steps with
/// the same pattern merged into one flow per rank (README, "The replay model").
enum class Fidelity { Aggregated, Exact };

/// Numeric formats of compute and gradients. Mixed: compute and activations at fp16,
/// gradients reduced in fp32 (master weights, as PyTorch AMP with DDP).
enum class PrecisionMode { Fp64, Fp32, Fp16, Mixed };

std::string_view to_string(Staging s);
std::string_view to_string(Fidelity f);
std::string_view to_string(PrecisionMode p);
std::optional<PrecisionMode> precision_mode_from_string(std::string_view text);
platform::Precision compute_precision(PrecisionMode p);
platform::Precision gradient_precision(PrecisionMode p);

struct ReplayOptions {
  /// The collective library, its algorithm choice, software costs and fusion threshold.
  stack::SoftwareStack software;
  int servers = 1;                          ///< parameter-server count
  std::optional<PrecisionMode> precision;   ///< default: the workload's precision
  std::optional<Staging> staging;           ///< default: Direct when the NIC has GPU-direct
  std::optional<bool> overlap;              ///< reduce buckets while backward goes on; default: the stack's
  bool input_overlap = true;                ///< copy the next batch during this iteration
  Fidelity fidelity = Fidelity::Aggregated;
  int iterations = 5;                       ///< the first is reported apart as warm-up
  /// The seed of everything drawn: compute jitter, which GPU gets which pace of the device
  /// spread (device_time_factors), a random allocation, ECMP's and Valiant routing's hashes.
  std::uint64_t seed = 1;
  /// How the job's nodes are chosen among the machine's (platform::allocate()).
  platform::Allocation allocation;
  /// Other jobs' traffic on the fabric (needs the replay to time the flows: replay_times_flows()).
  platform::BackgroundLoad background;
  /// Per-rank compute slowdown: each rank's compute this iteration is multiplied by
  /// 1 + |x|, x drawn from a normal distribution of this standard deviation (0: off); default:
  /// the stack's (stack::SoftwareStack::jitter).
  std::optional<double> jitter;
  /// Run a batch whose device-memory estimate exceeds the GPU's memory (with a warning) instead
  /// of refusing it (memory_problem()).
  bool allow_oversubscribed_memory = false;
  platform::NetworkSettings network;
  bool record_timeline = false;
  /// On SIGINT or SIGTERM, finish the current iteration (or drop it, when it has not ended
  /// 0.5 s after the signal), start no other and return what is done
  /// (RunResult::stopped_by, dropped_iteration). A second signal acts at once, as if none
  /// were handled.
  bool stop_at_interrupt = false;
  /// From this many ranks on, transfers are carried by pooled courier actors instead of being
  /// started by maestro (same simulated result, different cost; see replay/transfers.hpp).
  int courier_transfers_from_ranks = 6144;
  /// The least solve of shared flows after which a parameter server's fans may go on level
  /// clocks (FlowSharing::clock_fans_from; same results, different cost); 0: never. On by default
  /// since paired whole processes measured 0.48 times the solver's alone for the parameter server
  /// on 4,096 Piz Daint nodes and 1.07 (within noise) on the 16,384-node bench fat-tree.
  std::size_t fan_clock_flows = 1024;
  /// Send every PCIe copy through SimGrid, even where the replay computes the copies' sharing
  /// itself (host staging under CM02 without cross-traffic: see replay/shared_link.hpp). For
  /// validation; the results agree.
  bool copies_through_simgrid = false;
  /// Send every collective flow through SimGrid, even one that shares no link with another
  /// flow of its collective, which the replay otherwise times in closed form (aggregated
  /// fidelity, CM02 without cross-traffic, no copy in SimGrid). For validation; the results
  /// agree.
  bool flows_through_simgrid = false;

  /// Whether buckets are reduced while backward goes on: `overlap`, else the stack's.
  bool overlaps_backward() const { return overlap.value_or(software.overlap); }
  /// The compute jitter: `jitter`, else the stack's.
  double compute_jitter() const { return jitter.value_or(software.jitter); }
};

struct Scenario {
  platform::PlatformSpec platform;
  workload::WorkloadSpec workload;
  long long nodes = 1;
  ReplayOptions options;
};

} // namespace ceiling::replay
