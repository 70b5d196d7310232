// What every rank does in one iteration, in seconds and bytes, before any simulation.
#pragma once

#include "collectives/collective_plan.hpp"
#include "replay/result.hpp"
#include "replay/scenario.hpp"
#include "workload/cost_model.hpp"
#include "workload/device_memory.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ceiling::replay {

/// One gradient exchange: a dense bucket's all-reduce, or a sparse table's all-gather of the rows
/// a batch touched or of their ids.
struct Reduction {
  std::string name;
  double bytes = 0;                      ///< per rank: the bucket, or the rows (ids) it touched
  double result_bytes = 0;               ///< per rank afterwards: the bucket, or all ranks' rows (ids)
  /// A sparse gradient's: its all-gather (`gather` set), or on parameter servers its push or
  /// the next step's read of its rows.
  bool sparse = false;
  std::vector<collectives::Phase> plan;  ///< over ranks 0..N-1
  /// A dense bucket's all-reduce algorithm and why the stack ran it (the library's rule, or
  /// fixed by the stack or --collective); a sparse gradient's all-gather's rule.
  collectives::Algorithm algorithm = collectives::Algorithm::Ring;
  std::string_view rule;
  /// A sparse gradient's all-gather, as the stack's gather_library, else its library, runs it
  /// (collectives::select_allgather).
  std::optional<collectives::Gather> gather;
  /// NCCL's protocol (NCCL stacks, ring and pipelined trees); the plan's flow bytes are its wire
  /// bytes (collectives::ProtocolCosts).
  std::optional<collectives::Protocol> protocol;
  /// Per phase of `plan`: the protocol's latency of one step, the mean over the phase's flows of
  /// NCCL's estimate for the link each crosses (NVLink, PCIe, network); each flow pays what its
  /// route's latency leaves of it, per step (a pipeline: per fill and drain round). Empty
  /// without a protocol.
  std::vector<double> protocol_step_s;
  /// Runs beside the other reductions, each rank joining on its own (stack::Exchange::PerVariable:
  /// as soon as its gradient is ready; a next step's read: when the step starts), instead of
  /// after its earlier ones once every rank has joined.
  bool concurrent = false;
  /// NCCL's base latency of the protocol (0 without one): the collective's launch is the larger
  /// of it and the stack's (SoftwareCosts::collective_launch_s).
  double protocol_base_s = 0;
  /// A sparse all-gather's rows per rank: the first dimension of what it gathers.
  double rows = 0;
  /// A sparse gradient's ids (its indices), gathered apart from its rows' values (Horovod's
  /// allreduce of an IndexedSlices: two all-gathers, horovod/tensorflow/__init__.py, 0.19): the
  /// bytes of one id (4 or 8); 0 for the rows' values.
  int id_bytes = 0;
};

/// What the software stack costs, in seconds, derived from the stack and the platform.
struct SoftwareCosts {
  double message_overhead_s = 0;  ///< per message: the LogGP send + receive overhead
  /// Per message of a sparse gradient's all-gather: the same, or the MPI library's where one
  /// gathers beside NCCL (the stack's gather_library: Horovod 0.19 runs its all-gathers through
  /// MPI_Allgatherv, whose messages pay the platform's LogGP overheads, node.nic.send_overhead
  /// and receive_overhead, even where NCCL's kernels drive the all-reduces).
  double gather_message_overhead_s = 0;
  /// The per-message overhead of collective `r`: an all-gather's, or the others'.
  double message_overhead_of(const Reduction& r) const {
    return r.gather ? gather_message_overhead_s : message_overhead_s;
  }
  double reduce_s_per_byte = 0;   ///< per byte a receiver combines: the gamma term
  double collective_launch_s = 0; ///< per collective, before its first message
  double copy_overhead_s = 0;     ///< per host<->device copy, before it starts
};

/// The per-rank work of one iteration, the same on every rank before jitter. Backward runs as
/// segments: segment i ends when reductions[i] becomes ready; the last segment has no
/// reduction after it (the first layers' backward, once every gradient is out). Forward runs as
/// one segment, or, when the workers read the variables from their parameter servers at each
/// step (stack::Pull::NextForward), as pulls + 1 segments: segment j + 1 waits for the pull
/// reductions[backward_reductions() + j] to have reached the rank.
struct IterationPlan {
  int ranks = 1;
  int ranks_per_node = 1;
  double input_copy_bytes = 0;             ///< host -> device per rank (GPU nodes only)
  double forward_s = 0;                    ///< the whole forward pass
  std::vector<double> forward_segments_s;  ///< pulls + 1 entries, summing to forward_s
  std::vector<double> backward_segments_s; ///< backward_reductions() + 1 entries
  /// Backward's exchanges, in the order backward makes them ready, then the `pulls` reads of
  /// the next step, in forward order.
  std::vector<Reduction> reductions;
  int pulls = 0;
  /// Horovod's fusion at run time (fuses_by_cycle()): `reductions` are then each layer's gradient,
  /// in backward order (a dense one unplanned, with its name and bytes), and the replay fuses the
  /// ones ready on every rank at each cycle into responses (plan_response()).
  bool fused_by_cycle = false;
  int backward_reductions() const { return static_cast<int>(reductions.size()) - pulls; }
  double optimizer_s = 0;
  double flop_per_rank = 0;                ///< forward + backward, one iteration
  platform::Precision compute_precision = platform::Precision::Fp32;
  SoftwareCosts costs;
  /// Which compute calibration prices the device: its own, or the workload's (in words).
  std::string calibration;
  /// Parameter servers: the gradient bytes each receives from every worker per iteration; empty
  /// without parameter servers. Server s is rank s x server_rank_stride (the ranks per node
  /// where the nodes are the workers: local_aggregation; else 1).
  std::vector<double> server_bytes;
  int server_rank_stride = 1;
  /// The embedding tables whose gradient is exchanged dense, whole with the dense gradients
  /// (densified()), in layer order; none on one rank, which exchanges nothing.
  std::vector<DenseTable> dense_tables;
};

/// Whether `s` all-gathers sparse gradients: two ranks or more, a trained embedding table the
/// stack does not exchange dense (densified()) nor leave on parameter servers.
bool gathers_sparse_gradients(const Scenario& s);

/// The costs of `s`'s software stack on its platform; requires scenario_problem(s) to be empty.
SoftwareCosts software_costs(const Scenario& s);

/// Largest rank count for Fidelity::Exact: its ring plan holds 2(N-1) N flows per bucket.
inline constexpr long long max_exact_ranks = 2048;
/// The most iterations a run may ask for: each keeps its result (and trace events) in memory.
inline constexpr int max_iterations = 1'000'000;
/// The largest jitter accepted (see scenario_problem()).
using stack::max_jitter;

/// Why a scenario cannot run, and the input that holds the cause: a key of its software stack's,
/// platform or workload file (the caller locates it there: file, line and column), else a run
/// option (the message names it).
struct ScenarioProblem {
  enum class Input { Options, Software, Platform, Workload };
  /// A run option's problem.
  ScenarioProblem(std::string message_) : message(std::move(message_)) {}
  ScenarioProblem(Input input_, std::string key_, std::string message_)
      : input(input_), key(std::move(key_)), message(std::move(message_)) {}
  Input input = Input::Options;
  std::string key; ///< the dotted key in that file ("software.library", "node.gpu.compute_capability"); empty: an option's
  std::string message;
  /// A platform's key that the software stack makes wrong (its library, its reducer): the stack's
  /// overrides are named beside the file's.
  bool made_by_stack = false;
};

/// Why the scenario cannot run (unknown precision on the device, too many nodes, a parameter
/// server count outside 1..N, a stack its platform cannot run), or nullopt.
std::optional<ScenarioProblem> scenario_problem(const Scenario& s);

/// One rank's memory lower bound (workload/device_memory.hpp) for `s`'s batch and precisions, in
/// its GPU's device memory or, on CPU nodes (one rank each), the node's host memory; nullopt on
/// CPU nodes whose platform file gives no node.cpu.host_memory.
std::optional<workload::DeviceMemory> device_memory_estimate(const Scenario& s);

/// Why `s`'s batch cannot fit in its GPU's memory, with the numbers, or nullopt when the
/// estimate fits (or the nodes have no GPU). scenario_problem() reports it unless
/// allow_oversubscribed_memory; then `ceiling run` prints it as a warning.
std::optional<std::string> memory_problem(const Scenario& s);

/// The plan of `s`; requires scenario_problem(s) to be empty.
IterationPlan make_iteration_plan(const Scenario& s);

/// The collective flows of one iteration of `s`, counted without planning them (a sweep's cost
/// estimate; in exact fidelity the pipelined trees' chunks are read from their aggregated plan,
/// O(N)): its buckets as make_iteration_plan() cuts them (by size; by layer where each variable is
/// exchanged on its own or Horovod fuses by cycle), each with the algorithm its stack picks, and
/// two all-gathers per sparse gradient (as one phase each, in either fidelity). `alone`: the
/// rings', the pipelined trees' (each tree one flow, or exact each chunk) and the all-gathers',
/// timed in closed form where alone on their routes; `shared`: those of the algorithms whose flows
/// share links (halving and doubling, store-and-forward trees, parameter servers). Within 10 % of
/// the plans on one and two ranks a node, in both fidelities (tests/replay/replay_test.cpp).
struct FlowCount {
  double alone = 0;
  double shared = 0;
};
FlowCount estimated_flows(const Scenario& s);

/// Whether `s`'s stack fuses at run time what is ready within each cycle (stack::Fusion::ByCycle,
/// Horovod's way): its background loop wakes every cycle, takes
/// the tensors every rank has ready and fuses them, in order, into responses of up to the fusion
/// threshold (a larger tensor alone), each with tensors of its own kind (fuse_together()),
/// looking past others while they fit the threshold too (horovod/common/operations.cc,
/// controller.cc FuseResponses, v0.19.0).
bool fuses_by_cycle(const Scenario& s);

/// Whether Horovod fuses units `a` and `b` into one response: one response type (all-reduce or
/// all-gather) and one dtype (gradients, or a sparse gradient's ids of one width).
inline bool fuse_together(const Reduction& a, const Reduction& b) {
  return a.sparse == b.sparse && a.id_bytes == b.id_bytes;
}

/// The responses Horovod makes of `plan`'s units [first, last), ready at one cycle, in order
/// (controller.cc FuseResponses, v0.19.0): the first unit left takes each later one that fuses
/// with it (fuse_together) while their sizes stay within `threshold_bytes`; it looks past one
/// that does not while its size and those passed over do too, and stops at the first that
/// neither fuses nor is passed over. Those passed over come first in the next response. Sizes
/// as Horovod counts them for the response's first unit: behind an all-reduce, a unit's bytes,
/// an all-gather's rows at a byte each (its response's tensor_sizes()[0] times the size of its
/// type, which Horovod 0.19 leaves at UINT8 for all-gathers); behind an all-gather, what an
/// all-gather gathers from every rank (TotalByteSizeOfAllgatherOutput), an all-reduce's bytes
/// (Horovod multiplies its elements by its tensor's trailing dimensions, which a workload does
/// not give: a lower bound).
std::vector<std::vector<int>> fuse_responses(const IterationPlan& plan, int first, int last, double threshold_bytes);

/// The collective of `plan`'s `units` (fuse_together() alike), fused: one all-reduce of their
/// summed bytes, the algorithm (and protocol) the stack picks for that size, or one all-gather
/// of their rows; a sparse unit alone as planned.
Reduction plan_response(const Scenario& s, const IterationPlan& plan, std::span<const int> units);

/// The rings NCCL runs side by side: the stack's `channels`, else one per NIC port of the node
/// (NCCL 2.4 builds one ring per NIC across nodes: src/misc/rings.cc, src/transport/net.cc
/// netGetRings; on one node it builds NVLink rings, which the model does not derive); at most
/// the GPUs of a node, through which the rings leave it.
int nccl_rings(const Scenario& s);

/// The channels NCCL's own rules count: NCCL 2.4's (tree and LL thresholds) count its
/// communicator's, the rings copied on NVLink GPUs included, at least 2 on Kepler and at most
/// 16; NCCL 2.7's (LL128's cap) its search's, nccl_rings().
int nccl_channels(const Scenario& s);

/// Ranks per node: one per GPU, or one for a CPU node.
int ranks_per_node(const platform::PlatformSpec& p);

/// The ranks of `s`: nodes x ranks_per_node.
long long rank_count(const Scenario& s);

/// The workers that exchange with parameter servers: every rank, or one per node under local
/// aggregation.
long long parameter_server_workers(const Scenario& s);

/// The resolved staging: the option, else Direct when the NIC has GPU-direct; CPU nodes never
/// stage.
Staging resolved_staging(const Scenario& s);

/// Whether the replay computes the PCIe copies' sharing itself (replay/shared_link.hpp): GPU
/// nodes staging through host memory, under CM02 without cross-traffic or TCP window cap,
/// unless copies_through_simgrid.
bool replay_times_copies(const Scenario& s);

/// Whether the replay times the collective flows itself (in closed form or by FlowSharing), in
/// either fidelity: CM02 without cross-traffic or TCP window cap, and no copy inside SimGrid
/// (CPU nodes; GPU nodes staging through host memory, whose copies replay_times_copies() times;
/// or GPU-direct, whose input copies FlowSharing shares with the flows: replay_shares_copies()),
/// unless flows_through_simgrid or copies_through_simgrid.
bool replay_times_flows(const Scenario& s);

/// Whether FlowSharing times the PCIe copies together with the flows: GPU-direct (the flows
/// cross the PCIe links that the input copies use) when the replay times the flows.
bool replay_shares_copies(const Scenario& s);

/// The resolved precision mode: the option, else the workload's precision.
PrecisionMode resolved_precision(const Scenario& s);

} // namespace ceiling::replay
