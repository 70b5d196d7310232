// The training software stack as a value: the collective library and its selection, the
// software costs it pays, the framework's fusion. Read from a software file (config/).
#pragma once

#include "collectives/collective_plan.hpp"
#include "collectives/selection.hpp"
#include "stack/placement.hpp"
#include "units/quantity.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace ceiling::stack {

/// Where the sums of a reduction are computed: nowhere (free), on one host CPU core (an MPI
/// library reducing host-staged buffers), or on the device that holds the gradients (NCCL,
/// or the CPU itself on a CPU node).
enum class Reducer { None, HostCore, Device };

std::string_view to_string(Reducer r);
std::optional<Reducer> reducer_from_string(std::string_view text);
/// "none, host-core, device", for messages.
std::string reducer_names_list();

/// How embedding (sparse) gradients are exchanged: the rows a batch touched by all-gather, then
/// their ids (Horovod's default, sparse_as_dense = False: every rank receives every other's rows), the
/// whole table as a dense gradient in the buckets (sparse_as_dense = True; DDP with
/// nn.Embedding's default sparse = False), per table whichever moves fewer bytes per rank, or
/// through the parameter servers that hold the tables (TensorFlow's: each worker pushes the rows
/// its batch touched and their ids to the table's server, which adds them into the table and
/// updates those rows, and reads the rows its batch looks up from there at the next step; only
/// with the parameter-server collective, each variable exchanged on its own and read at the
/// next step: exchange_problem).
enum class SparseGradients { AllGather, Dense, Cheaper, Servers };

std::string_view to_string(SparseGradients g);
std::optional<SparseGradients> sparse_gradients_from_string(std::string_view text);
std::string sparse_gradients_names();

/// How the buckets' exchanges follow each other: one after the other, each bucket fused up to
/// the fusion threshold (collective libraries: a rank runs its collectives in order, each once
/// every rank has joined), or each layer's variables on their own as soon as backward has made
/// their gradient, side by side (TensorFlow's dataflow: a gradient's send to its parameter
/// server is an op that runs once its input exists, beside every other; tf_cnn_benchmarks
/// variable_mgr.py, 2017, applies each variable's gradient on its server by itself).
enum class Exchange { Buckets, PerVariable };

std::string_view to_string(Exchange e);
std::optional<Exchange> exchange_from_string(std::string_view text);
std::string exchange_names();

/// When the workers get the updated variables back from their parameter servers: each
/// exchange's pull right after its push (tf_cnn_benchmarks distributed_replicated: after a
/// barrier over every worker's push of the variable), or at the next step, each variable as the
/// forward pass needs it (parameter_server mode: the variables live on the servers and each step
/// reads them; the reads start with the step, and each layer's forward waits for its own).
enum class Pull { AfterPush, NextForward };

std::string_view to_string(Pull p);
std::optional<Pull> pull_from_string(std::string_view text);
std::string pull_names();

/// How a framework with a cycle fuses its gradients: into buckets cut by size before the run,
/// in backward order, each started at the first tick after it is ready (by-size); or as Horovod
/// does at run time, each tick fusing the gradients every rank has ready (by-cycle:
/// replay::fuses_by_cycle()).
enum class Fusion { BySize, ByCycle };

std::string_view to_string(Fusion f);
std::optional<Fusion> fusion_from_string(std::string_view text);
std::string fusion_names();

/// Bytes of memory traffic per byte reduced: the receiver reads its own and the arrived
/// element and writes the sum (a += b), so 3 bytes moved per byte reduced.
inline constexpr double reduction_bytes_moved_per_byte = 3;
/// Bytes of memory traffic per byte a parameter server gathers for a read of a table's rows:
/// each row read, then written into the reply.
inline constexpr double gather_bytes_moved_per_byte = 2;

/// The largest compute jitter a stack or run may give (replay::scenario_problem).
inline constexpr double max_jitter = 10;

/// Default gradient bucket: Horovod's HOROVOD_FUSION_THRESHOLD default, 64 MiB.
inline constexpr double default_fusion_threshold_bytes = 64.0 * 1024 * 1024;

struct SoftwareStack {
  std::string name = "ideal";
  std::string description = "no software costs, a fixed ring all-reduce";
  /// The framework the stack computes with (one of workload::framework_names): a workload's
  /// device calibration measured under it prices the run before one of another framework's.
  /// Empty: none named (a stack that several frameworks run, such as Horovod's).
  std::string framework;
  /// The collective library; its selection rule picks each bucket's algorithm when
  /// `collective` is empty ("auto"). Empty for the ideal stack, which needs a fixed algorithm.
  std::optional<collectives::Library> library;
  std::optional<collectives::Algorithm> collective = collectives::Algorithm::Ring;
  /// Every point-to-point message pays the platform's LogGP send and receive overheads
  /// (node.nic.send_overhead, receive_overhead: the MPI library's CPU time per message).
  bool message_overheads = false;
  /// Every host<->device copy pays the platform's copy call overhead (node.pcie.copy_overhead:
  /// the CUDA driver's cost of a cudaMemcpy) before it starts.
  bool copy_overheads = false;
  /// Paid once per collective before its first message: the library call (MPI) or kernel
  /// launch (NCCL).
  units::Duration collective_launch;
  Reducer reducer = Reducer::None;
  /// The stack's own code needs GPUs (a GPU collective library that the `library` key does not
  /// name, such as TensorFlow 1.x's NCCL 1): CPU nodes are refused.
  bool needs_gpus = false;
  /// The framework's cycle (Horovod's HOROVOD_CYCLE_TIME): its background loop wakes every
  /// cycle, or as soon as the last cycle's collectives are done, and takes the buckets ready by
  /// then; 0: collectives start as soon as every rank is ready.
  units::Duration cycle;
  /// By cycle: only with a cycle, buckets, no DDP bucketing and no parameter server
  /// (exchange_problem).
  Fusion fusion = Fusion::BySize;
  /// Whether a bucket's collective may run while backward goes on. False: every collective
  /// starts after backward (TensorFlow 1.x's NcclManager, whose all-reduce stream waits for all
  /// the work queued on the compute stream once the last GPU joins). `--overlap` overrides.
  bool overlap = true;
  /// Each cycle that finds new buckets first agrees on them over MPI (Horovod's response-cache
  /// coordination: one small all-reduce over all ranks, recursive doubling, whose messages pay
  /// the platform's route latencies and MPI overheads).
  bool negotiation = false;
  /// Per variable: only with the parameter-server collective, without a cycle, negotiation,
  /// collective launch cost or first bucket (exchange_problem; files and runs refuse the rest);
  /// fusion_threshold is unused.
  Exchange exchange = Exchange::Buckets;
  /// Next forward: only with the per-variable exchange and without local aggregation.
  Pull pull = Pull::AfterPush;
  units::DataSize fusion_threshold = units::DataSize::from_bytes(default_fusion_threshold_bytes);
  /// PyTorch DDP's bucketing when set: buckets filled in parameter order, the first up to this
  /// (kDefaultFirstBucketBytes), the others up to fusion_threshold (workload::plan_buckets_ddp);
  /// else Horovod's, in backward order up to fusion_threshold.
  std::optional<units::DataSize> first_bucket;
  /// DDP's buckets as rebuilt after the first iteration (PyTorch 1.6 on): filled in the order the
  /// gradients became ready instead of parameter order (workload::plan_buckets_ddp). Every
  /// iteration, the warm-up included, runs them.
  bool rebuild_buckets = false;
  SparseGradients sparse = SparseGradients::AllGather;
  /// The MPI library (MPICH or Open MPI) that gathers sparse gradients' rows where an NCCL
  /// library runs the all-reduces: Horovod 0.19 has no NCCL all-gather and gathers through
  /// MPI_Allgatherv (horovod/common/operations.cc, CreateOperationManager: MPI_CUDAAllgather,
  /// MPIHierarchicalAllgather or MPIAllgather). None: the library's own rule (an MPI library's,
  /// or NCCL's ring).
  std::optional<collectives::Library> gather_library;
  /// How a parameter server's variables are placed (parameter-server collective).
  Placement placement = Placement::Even;
  /// Parameter servers: the GPUs of a node first reduce their gradients to its first rank, which
  /// alone exchanges with the servers (on the nodes' first ranks), then broadcasts the result
  /// (TensorFlow's distributed_replicated).
  bool local_aggregation = false;
  /// NCCL's rings side by side (its channels before it copies them for the trees); default: the
  /// node's NIC ports, as NCCL 2.4 builds one ring per NIC across nodes (src/misc/rings.cc,
  /// src/transport/net.cc netGetRings).
  std::optional<int> channels;
  /// How much a worker's compute varies from one iteration to the next: each rank computes
  /// 1 + |N(0, jitter)| times its calibrated time, drawn per rank and iteration (the framework's
  /// and its host's step-time spread; synchronous training waits for the slowest). 0: none.
  /// `--jitter` overrides it.
  double jitter = 0;
  /// The pipelined trees' largest chunk (NCCL: Simple's, 512 KiB, halved for small buffers; its
  /// LL and LL128 chunks are its own: collectives::nccl_tree_chunks).
  units::DataSize pipeline_chunk = units::DataSize::from_bytes(collectives::default_pipeline_chunk_bytes);
  /// Whether the library is NCCL (2.4 or 2.7): its protocols, channels and rules apply.
  bool runs_nccl() const {
    return library == collectives::Library::Nccl || library == collectives::Library::Nccl27;
  }
  /// Whether the stack runs on GPUs only: an NCCL library, or `needs_gpus` (NCCL 1's ring
  /// under the fixed algorithm of `tf-replicated-nccl`).
  bool runs_on_gpus_only() const { return runs_nccl() || needs_gpus; }
  bool operator==(const SoftwareStack&) const = default;
};

/// What a stack sets that its exchange or pull does not allow: the key and why.
struct StackProblem {
  std::string_view key;
  std::string message;
};

/// The first combination `s` may not have: fusion by cycle without a cycle, with per-variable
/// exchanges, DDP's buckets or the parameter server; a per-variable exchange with another collective than
/// the parameter server, a cycle, a negotiation, a collective launch cost or DDP's first bucket
/// (the exchanges run side by side, each rank on its own: nothing takes turns or waits for a
/// cycle, and there is no collective call); reading at the next forward without the per-variable
/// exchange, or with local aggregation (the GPUs of a worker would read from its CPU: not
/// modelled). Software files report it at its key; runs refuse it (replay::scenario_problem).
std::optional<StackProblem> exchange_problem(const SoftwareStack& s);

} // namespace ceiling::stack
