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
  Nccl,    ///< NCCL 2.4.8: ring, or the pipelined double binary tree below a size threshold
};

/// What a selection rule may look at besides the message: the ranks, how they sit on nodes,
/// and (NCCL) whether the GPUs of a node are joined by NVLink, and NCCL's channel count.
struct SelectionContext {
  int ranks = 1;
  int ranks_per_node = 1;
  double element_bytes = 4; ///< 4 for fp32 gradients
  bool nvlink = false;
  int channels = 1;
};

std::string_view to_string(Library l);
std::optional<Library> library_from_string(std::string_view text);
/// "mpich, openmpi", for messages.
std::string library_names();

/// The algorithm `library` picks for an all-reduce of `bytes` per rank with a built-in
/// commutative operation (a sum), and the rule that picked it, in words, for the output.
struct Selection {
  Algorithm algorithm = Algorithm::Ring;
  std::string_view rule;
};
Selection select_allreduce(Library library, const SelectionContext& c, double bytes);

/// NCCL 2.4.8's tree threshold in bytes (src/init.cc ncclTreeThreshold): all-reduces up to it
/// take the tree; 0: never, infinity: always.
double nccl_tree_threshold_bytes(const SelectionContext& c);

} // namespace ceiling::collectives
