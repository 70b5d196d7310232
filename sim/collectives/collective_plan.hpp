// Collective algorithms as plans of concurrent point-to-point flows between ranks.
#pragma once

#include <cassert>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ceiling::collectives {

/// One point-to-point transfer between two ranks of the group. `reduce_bytes` of what arrives
/// are combined into the receiver's buffer (a reduction step: its arithmetic is the receiver's
/// gamma term); the rest is copied in place (a gather or broadcast step).
struct Flow {
  int src = 0;
  int dst = 0;
  double bytes = 0;
  double reduce_bytes = 0;
  /// Seconds the receiver works once the last of the phase's flows to it that carry this is in,
  /// beyond reducing, one such phase at a time (a parameter server summing every worker's push
  /// and applying the update).
  double receiver_s = 0;
  bool operator==(const Flow&) const = default;
};

/// A set of flows that run concurrently (but a dataflow phase's: below). In an exact plan a
/// phase is one step of the algorithm (the pipelined trees': one dataflow phase); in an
/// aggregated plan it stands for `steps` consecutive steps with the same pattern, each flow
/// carrying their summed bytes, and the phase pays the route latency `steps` times (SimGrid
/// charges it once; the rest is added as a delay).
///
/// A pipelined phase (`chunks` > 0) is a pipeline in steady state: every edge streams its whole
/// share at once, cut in `chunks` chunks; it stands for `steps` rounds of one chunk per edge
/// (chunks + the fill and drain: flow i carries its first chunk in round first_round[i]), so each
/// flow pays, beyond its bytes, the latencies of the first chunk's way, hop by hop (each later
/// chunk's runs beside the bytes before it), and the fill and drain rounds. Its flows form
/// `pipelines` independent pipelines (NCCL's trees, one per channel and tree), equal consecutive
/// ranges of flows, each moving at one pace, its busiest link's.
///
/// A dataflow phase (`after` not empty: one list per flow) orders its flows by what they wait
/// for instead of by steps: flow i starts once the flows after[i] (indices into this phase) have
/// arrived, those after_sent[i] (its sender's earlier sends) have sent their bytes (their
/// latency may still run beside flow i's bytes), and both its ends have reached the phase (an
/// exact pipeline: each chunk of each edge).
struct Phase {
  std::vector<Flow> flows;
  int steps = 1;
  int chunks = 0;
  int pipelines = 0;
  std::vector<int> first_round;
  std::vector<std::vector<int>> after;
  std::vector<std::vector<int>> after_sent; ///< as many lists as `after`, or none
  /// A dataflow phase's flows that leave their sender as one, each element stored to every one
  /// of them before the next: NCCL's tree sends a chunk to all of a rank's children in one call
  /// (NCCL 2.4.8 src/collectives/device/all_reduce.h, ncclAllReduceTreeKernel's down loop:
  /// send / recvCopySend with NSEND = NCCL_MAX_TREE_ARITY; 2.7.8 directSend /
  /// directRecvCopySend), whose GenericOp waits for a free slot at every child, then copies by
  /// ReduceOrCopyMulti, which stores each value it loads to every destination
  /// (common_kernel.h, ReduceCopy128bMulti). Per flow, the index of its group's first flow,
  /// itself when it is sent alone; empty where every flow is sent alone.
  std::vector<int> sent_with;
  /// A dataflow phase's flows that are the chunks of one pipeline (an exact pipelined tree's: one
  /// per tree and direction, or per tree where up and down run together, as the aggregated form
  /// has them): per flow, its pipeline's index. They share links as their pipeline's one flow
  /// does in the aggregated form (its sharing penalty: the longest latency of its edges), not as
  /// flows of their own; empty: every flow by its own route's latency.
  std::vector<int> stream;
  bool operator==(const Phase&) const = default;

  /// The flows [first, first + count) of the pipeline that flow `f` belongs to.
  struct Range {
    int first = 0;
    int count = 0;
  };
  Range pipeline_of(int f) const {
    assert(pipelines > 0 && flows.size() % static_cast<std::size_t>(pipelines) == 0);
    const int count = static_cast<int>(flows.size()) / pipelines;
    return {f / count * count, count};
  }
};

/// The ranks taking part: `ranks` in all, `ranks_per_node` consecutive ones per node.
struct Group {
  int ranks = 1;
  int ranks_per_node = 1;
  /// Rings a ring all-reduce runs side by side, each with its share of the buffer (NCCL's
  /// channels): ring j visits each node's ranks from local rank j on, so the rings leave and
  /// enter the nodes at different GPUs (and their NICs). At most ranks_per_node are distinct; on
  /// one node, one. The pipelined trees take as many channels, each tree's chain inside a node
  /// following its ring (NCCL 2.4.8 src/init.cc setupChannel).
  int rings = 1;
  /// The double binary tree runs both its trees on every ring, each with half the ring's share,
  /// where otherwise the first half of the rings (rounded up) take the first tree and the others
  /// the second, and a lone ring the first alone (NCCL 2.4.8 src/init.cc setupChannel: channel c
  /// takes the first tree while c < DIVUP(nChannels, 2)). NCCL runs both on every ring where it
  /// runs each ring as two channels: 2.4 on GPUs joined by NVLink (src/misc/rings.cc across
  /// nodes, src/transport/p2p.cc on one: copyRings) and on Kepler, whose two channels at least
  /// copy a lone ring (defaultMinNrings), 2.7 always (src/graph/connect.cc, connectTrees and
  /// "Duplicate channels rings/trees"). True for the double tree as an algorithm of its own (no
  /// NCCL stack).
  bool both_trees_on_each_ring = true;
  /// The pipelined trees stream up and down at once, as NCCL 2.7's LL128 tree kernel does (its
  /// block split in two, NCCL_LL128_SPLIT; src/collectives/device/all_reduce.h,
  /// ncclAllReduceTreeLL128Kernel), where otherwise they reduce every chunk up, then broadcast.
  bool trees_up_and_down_together = false;
  /// The gradients' sum is an operation MPI has built in: not for fp16, which MPI 3 has no type
  /// for (Horovod sums it with an MPI_Op of its own). MPICH's reduce inside a node picks by it.
  bool builtin_sum = true;
};

enum class Algorithm {
  Ring,               ///< reduce-scatter then all-gather around a ring: 2(N-1) steps of B/N
  HalvingDoubling,    ///< Rabenseifner: recursive halving reduce-scatter, doubling all-gather
  RecursiveDoubling,  ///< log2 N exchanges of the whole buffer (MPICH's short-message all-reduce)
  BinaryTree,         ///< store-and-forward: reduce up a binary tree, then broadcast down, whole buffer per step
  DoubleBinaryTree,   ///< store-and-forward: two complementary binary trees, each carrying half the buffer
  Hierarchical,       ///< reduce inside each node, ring across nodes, broadcast inside
  HierarchicalHalvingDoubling, ///< reduce inside each node, Rabenseifner across nodes, broadcast inside (Caffe2 + Gloo, MPICH's SMP path)
  HierarchicalRecursiveDoubling, ///< reduce inside each node, recursive doubling across nodes, broadcast inside (MPICH's SMP path)
  ParameterServer,    ///< every rank pushes B/k to each of k servers, then pulls it back
  PipelinedTree,      ///< NCCL 2.4's tree: a chain inside each node, a binary tree across, chunks streaming; one per channel (Group::rings)
  PipelinedDoubleTree ///< NCCL 2.4's double binary tree: both trees on each ring where NCCL runs each ring as two channels (or outside NCCL), else half the rings on the mirrored tree (one channel: the first tree alone)
};

/// NCCL 2.4's tree chunk before halving: its Simple buffer (4 MiB) over NCCL_STEPS (8).
inline constexpr double default_pipeline_chunk_bytes = 512.0 * 1024;

/// How a pipelined tree cuts its share of the buffer into chunks, as NCCL sizes a tree's chunk
/// by its protocol (src/enqueue.cc: 2.4.8 ncclSaveKernel, 2.7.8 computeColl; the tree kernels of
/// src/collectives/device/all_reduce.h). A share smaller than a chunk is one chunk.
struct TreeChunks {
  enum class Rule {
    /// Simple: a step of the buffer, halved while the share holds fewer than 8 chunks per level
    /// of `depth` and the chunk is above 128 KiB, then 4 (above 64 KiB), then 1 (above 32 KiB).
    HalvedByDepth,
    /// LL: one step of the LL buffer's lines, whatever the share (the LL tree kernels).
    Step,
    /// NCCL 2.7's LL128: a step of lines, halved while the share holds fewer chunks than the
    /// first of `ll128_chunks` and the chunk is above 128 KiB, then the second (above 32 KiB).
    LL128,
  };
  Rule rule = Rule::HalvedByDepth;
  /// A step as the rule halves it: data bytes, or (LL128) the bytes of its 128-byte lines.
  double step_bytes = default_pipeline_chunk_bytes;
  /// HalvedByDepth's depth: NCCL's estimate of its trees' (nccl_tree_chunks); empty: the
  /// deepest rank's depth in the trees planned (the pipelined trees outside NCCL).
  std::optional<int> depth;
  /// LL128's chunk counts: s x 64 / ppn and s x 16 / ppn, with ppn the ranks per node and s = 1 +
  /// log2i(nodes) + ppn / 10, in NCCL's single precision (nccl_tree_chunks).
  std::array<float, 2> ll128_chunks{};
  /// The data bytes of a chunk of a tree's `share_bytes`, the trees' deepest rank at depth
  /// `deepest`.
  double chunk_bytes(double share_bytes, int deepest) const;
  bool operator==(const TreeChunks&) const = default;
};

/// "ring", "halving-doubling", "recursive-doubling", "binary-tree", "double-binary-tree",
/// "hierarchical", "hierarchical-halving-doubling", "hierarchical-recursive-doubling",
/// "parameter-server", "pipelined-tree", "pipelined-double-tree".
std::string_view to_string(Algorithm a);
std::optional<Algorithm> algorithm_from_string(std::string_view text);
/// All names, comma-separated, for messages and --help.
std::string algorithm_names();

/// The all-reduce of `bytes` per rank as exact steps (one phase per step; the pipelined trees:
/// one dataflow phase of every chunk on every edge). `servers` is the
/// parameter-server count (ignored by the others). One rank: no phases. Ring, halving-doubling
/// and the trees cost O(N) flows per step; the ring has 2(N-1) steps, so its exact plan holds
/// O(N^2) flows.
/// `chunks` cuts the pipelined trees' shares.
std::vector<Phase> allreduce_steps(Algorithm a, Group g, double bytes, int servers = 1, const TreeChunks& chunks = {});

/// The same all-reduce with consecutive steps of the same pattern merged (see Phase): a ring
/// becomes one phase of N flows carrying 2(N-1)/N B each. Built directly, without the exact
/// steps, so that it stays O(N) for a ring of any size.
std::vector<Phase> allreduce_phases(Algorithm a, Group g, double bytes, int servers = 1, const TreeChunks& chunks = {});

/// A parameter-server exchange in which server s (rank s) holds `server_bytes[s]` of the
/// buffer, placed whole or split: every other rank pushes each server its part, then pulls it
/// back (2 steps; servers with nothing get no flows). The servers' work goes in receiver_s
/// (see Flow), set by the caller.
/// With `stride` > 1 only every stride-th rank takes part (the nodes' first ranks, server s on
/// rank s x stride).
std::vector<Phase> parameter_server_phases(int ranks, const std::vector<double>& server_bytes, int stride = 1);

/// The same among the nodes' first ranks, after a reduce of the `bytes` inside each node and
/// before the broadcast that mirrors it (TensorFlow's distributed_replicated: the GPUs of a
/// worker aggregate locally, the worker exchanges with the servers).
std::vector<Phase> node_parameter_server_phases(Group g, double bytes, const std::vector<double>& server_bytes);

/// How an all-gather runs (sparse gradients: every rank contributes its rows).
enum class Gather {
  Ring,              ///< N-1 steps in which rank i passes one block to rank i+1
  RecursiveDoubling, ///< log2 N steps, partners at distance 1, 2, 4, ... swapping all they hold (a power of two)
  Bruck,             ///< ceil(log2 N) steps: rank i sends min(2^k, N - 2^k) blocks to rank i - 2^k
};
/// "ring", "recursive-doubling", "bruck".
std::string_view to_string(Gather g);

/// The all-gather in which every rank contributes `bytes`, as `how` runs it (RecursiveDoubling
/// needs a power of two of ranks); aggregated, the ring is one phase of (N-1) `bytes` per flow,
/// the others their few steps.
std::vector<Phase> allgather_steps(Group g, double bytes, Gather how = Gather::Ring);
std::vector<Phase> allgather_phases(Group g, double bytes, Gather how = Gather::Ring);

/// Merges consecutive phases whose flows have the same (src, dst) pattern; used by tests to
/// hold the direct aggregated plans against the exact ones.
std::vector<Phase> merge_equal_patterns(const std::vector<Phase>& steps);

/// Alpha-beta(-gamma) time of an all-reduce when no link is shared: every step costs
/// alpha + overhead + the slowest flow's bytes / bandwidth + its reduced bytes x gamma (the
/// receiver's arithmetic); an aggregated phase pays alpha + overhead once per step it stands for.
/// Not for pipelined or dataflow phases (the pipelined trees).
double alpha_beta_seconds(const std::vector<Phase>& plan, double alpha_s, double bytes_per_s,
                          double overhead_s = 0, double gamma_s_per_byte = 0);

} // namespace ceiling::collectives
