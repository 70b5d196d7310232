// Selection rules of the MPI libraries, each from the source file it names; NCCL's are in nccl.cpp.
#include "collectives/selection.hpp"

#include "collectives/nccl.hpp"

#include "support/enum_names.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace ceiling::collectives {
namespace {

constexpr support::EnumNames<Library, 4> names{{{
    {Library::Mpich, "mpich"},
    {Library::OpenMpi, "openmpi"},
    {Library::Nccl, "nccl"},
    {Library::Nccl27, "nccl-2.7"},
}}};

constexpr support::EnumNames<Protocol, 3> protocol_names{{{
    {Protocol::LL, "LL"},
    {Protocol::LL128, "LL128"},
    {Protocol::Simple, "Simple"},
}}};

/// MPICH 3.2, src/mpi/coll/allreduce.c, MPIR_Allreduce_intra: recursive doubling when the
/// message is at most MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE (default 2048 bytes), when the
/// operation is not built in, or when the count is below the largest power of two not above the
/// communicator size (too few elements to halve); otherwise Rabenseifner's reduce-scatter by
/// recursive halving and all-gather by recursive doubling. Non-powers of two fold in both.
/// fp16 gradients are summed by an operation that is not built in: MPI 3 has no half-precision
/// type, and Horovod sums them with an MPI_Op of its own (horovod/common/mpi/mpi_context.cc,
/// v0.19: MPI_Op_create(&float16_sum, 1, ...)).
Selection mpich_flat(int ranks, double bytes, double element_bytes) {
  constexpr double short_message_bytes = 2048;
  const double pof2 = static_cast<double>(std::bit_floor(static_cast<unsigned>(ranks)));
  if (element_bytes == 2)
    return {Algorithm::RecursiveDoubling, "fp16: a user-defined sum (MPI has no half type): recursive doubling"};
  if (bytes <= short_message_bytes)
    return {Algorithm::RecursiveDoubling, "at most 2048 bytes (MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE): recursive doubling"};
  if (bytes / element_bytes < pof2)
    return {Algorithm::RecursiveDoubling, "fewer elements than the power of two of the ranks: recursive doubling"};
  return {Algorithm::HalvingDoubling, "over 2048 bytes: Rabenseifner reduce-scatter + all-gather"};
}

/// With several ranks per node MPICH 3.2 takes its SMP path (MPIR_CVAR_ENABLE_SMP_ALLREDUCE,
/// on by default, for a commutative operation of any size): reduce to each node's root, the
/// flat rule among the roots, broadcast inside the node.
Selection mpich(const SelectionContext& c, double bytes) {
  if (c.ranks_per_node <= 1)
    return mpich_flat(c.ranks, bytes, c.element_bytes);
  const int nodes = (c.ranks + c.ranks_per_node - 1) / c.ranks_per_node;
  const auto across = mpich_flat(nodes, bytes, c.element_bytes);
  if (nodes == 1) // (the roots' communicator has one rank: nothing runs among the nodes)
    return {across.algorithm == Algorithm::RecursiveDoubling ? Algorithm::HierarchicalRecursiveDoubling
                                                             : Algorithm::HierarchicalHalvingDoubling,
            "one node: SMP path, reduce and broadcast inside the node"};
  if (across.algorithm == Algorithm::RecursiveDoubling)
    return {Algorithm::HierarchicalRecursiveDoubling, "several ranks per node: SMP path, recursive doubling among the nodes"};
  return {Algorithm::HierarchicalHalvingDoubling, "several ranks per node: SMP path, Rabenseifner among the nodes"};
}

/// Open MPI 3.1 and 4.0, ompi/mca/coll/tuned/coll_tuned_decision_fixed.c,
/// ompi_coll_tuned_allreduce_intra_dec_fixed: below 10,000 bytes (intermediate_message)
/// recursive doubling; for a commutative operation with more elements than ranks, the ring
/// (segmented in 1 MiB pieces when the message exceeds ranks x 1 MiB: the same bytes per link,
/// pipelined inside each step; timed here as the ring); otherwise reduce then broadcast
/// ("nonoverlapping"), timed as the store-and-forward binary tree.
Selection openmpi(int ranks, double bytes, double element_bytes) {
  constexpr double intermediate_message_bytes = 10000;
  constexpr double segment_bytes = 1 << 20;
  if (bytes < intermediate_message_bytes)
    return {Algorithm::RecursiveDoubling, "below 10,000 bytes: recursive doubling"};
  if (bytes / element_bytes > ranks) {
    if (ranks * segment_bytes >= bytes)
      return {Algorithm::Ring, "at least 10,000 bytes, at most ranks x 1 MiB: ring"};
    return {Algorithm::Ring, "over ranks x 1 MiB: segmented ring (1 MiB segments), timed as the ring"};
  }
  return {Algorithm::BinaryTree, "no more elements than ranks: reduce + broadcast, timed as the binary tree"};
}

} // namespace

std::string_view to_string(Library l) { return names.name(l); }
std::optional<Library> library_from_string(std::string_view text) { return names.parse(text); }
std::string library_names() { return names.list(); }

Selection select_allreduce(Library library, const SelectionContext& c, double bytes) {
  switch (library) {
  case Library::Mpich: return mpich(c, bytes);
  case Library::OpenMpi: return openmpi(c.ranks, bytes, c.element_bytes);
  case Library::Nccl:
  case Library::Nccl27: return select_nccl(library, c, bytes);
  }
  return {};
}

GatherSelection select_allgather(std::optional<Library> library, int ranks, double bytes) {
  const double total = bytes * ranks;
  if (library == Library::Mpich) {
    if (total < 524288 && std::has_single_bit(static_cast<unsigned>(ranks)))
      return {Gather::RecursiveDoubling, "sparse all-gather, MPICH: below 524,288 bytes in all on a power of two of ranks: recursive doubling"};
    if (total < 81920)
      return {Gather::Bruck, "sparse all-gather, MPICH: below 81,920 bytes in all: Bruck"};
    return {Gather::Ring, "sparse all-gather, MPICH: ring"};
  }
  if (library == Library::OpenMpi) {
    if (ranks == 2)
      return {Gather::Ring, "sparse all-gather, Open MPI: two processes, one exchange"};
    if (total < 50000)
      return {Gather::Bruck, "sparse all-gather, Open MPI: below 50,000 bytes in all: Bruck"};
    return {Gather::Ring, ranks % 2 == 0 ? "sparse all-gather, Open MPI: neighbour exchange, timed as the ring"
                                         : "sparse all-gather, Open MPI: ring"};
  }
  if (library == Library::Nccl || library == Library::Nccl27)
    return {Gather::Ring, "sparse all-gather, NCCL: ring"};
  return {Gather::Ring, "sparse: ring all-gather"};
}

std::string_view to_string(Protocol p) { return protocol_names.name(p); }

} // namespace ceiling::collectives
