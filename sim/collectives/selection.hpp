// Which all-reduce algorithm a collective library runs for a message size and a rank count.
#pragma once

#include "collectives/collective_plan.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace ceiling::collectives {

/// Collective libraries whose algorithm selection is modelled, each from its source.
enum class Library {
  Mpich,   ///< MPICH 3.2 (and Cray MPICH 7, derived from it): MPIR_Allreduce_intra
  OpenMpi, ///< Open MPI 3.1 / 4.0, coll/tuned fixed decision rules
  Nccl,    ///< NCCL 2.4.8: ring, or the pipelined double binary tree below a size threshold; LL or Simple by size
  Nccl27,  ///< NCCL 2.7.8: ring or tree, and LL, LL128 or Simple, whichever its tuning model finds fastest
};

/// NCCL's protocols: how a step's data and its ready flag travel (NCCL src/include/devcomm.h).
/// LL: 8-byte stores of 4 data bytes and a 4-byte flag, no fence (half the bandwidth, the least
/// latency); LL128: 128-byte lines of 120 data bytes and a flag (NVLink's ordering needed);
/// Simple: whole buffers, then a fence and a flag (the full bandwidth, the most latency).
enum class Protocol { LL, LL128, Simple };

/// What a selection rule may look at besides the message: the ranks, how they sit on nodes,
/// and (NCCL) whether the GPUs of a node are joined by NVLink, NCCL's channel count, the GPUs'
/// compute capability and the bandwidths its tuning model weighs.
struct SelectionContext {
  int ranks = 1;
  int ranks_per_node = 1;
  double element_bytes = 4; ///< 4 for fp32 gradients
  bool nvlink = false;
  int channels = 1; ///< NCCL's channels as its rules count them (replay::nccl_channels)
  /// The GPUs' CUDA compute capability, major x 10 + minor (60 for a P100, 70 for a V100);
  /// 0 when unknown (NCCL's rules need it: scenario checks refuse NCCL without it).
  int compute_capability = 0;
  /// NCCL 2.7's bus bandwidths, bytes per second: inside a node (NVLink or PCIe, per GPU) and
  /// between nodes (the node's NICs).
  double intra_bytes_per_s = 0;
  double inter_bytes_per_s = 0;
};

std::string_view to_string(Library l);
std::string_view to_string(Protocol p);
std::optional<Library> library_from_string(std::string_view text);
/// The libraries' names, "mpich, openmpi, nccl, nccl-2.7" (not none), for messages.
std::string library_names();

/// The algorithm `library` picks for an all-reduce of `bytes` per rank with a built-in
/// commutative operation (a sum), and the rule that picked it, in words, for the output.
struct Selection {
  Algorithm algorithm = Algorithm::Ring;
  std::string_view rule;
  /// NCCL's protocol for the message (NCCL libraries only).
  std::optional<Protocol> protocol;
};
Selection select_allreduce(Library library, const SelectionContext& c, double bytes);

/// An all-gather's algorithm (a sparse gradient's rows) and why.
struct GatherSelection {
  Gather gather = Gather::Ring;
  std::string_view rule;
};
/// How `library` (none: the stack's own, a ring) gathers `bytes` from each of `ranks`: MPICH 3.2
/// (src/mpi/coll/allgatherv.c: below 524,288 bytes in all on a power of two of ranks,
/// recursive doubling; else below 81,920 bytes in all, Bruck; else the ring), Open MPI 4.0
/// (coll_tuned_decision_fixed.c, ompi_coll_tuned_allgatherv_intra_dec_fixed: on two processes
/// one exchange; below 50,000 bytes in all, Bruck; else the ring on an odd count, the neighbour
/// exchange on an even one, which moves the ring's bytes in N/2 steps and is timed as the ring);
/// NCCL, or no library: the ring (an NCCL stack names its MPI library for them apart:
/// stack::SoftwareStack::gather_library).
GatherSelection select_allgather(std::optional<Library> library, int ranks, double bytes);

} // namespace ceiling::collectives
