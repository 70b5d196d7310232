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
};

std::string_view to_string(Library l);
std::optional<Library> library_from_string(std::string_view text);
/// "mpich, openmpi", for messages.
std::string library_names();

/// The algorithm `library` picks for an all-reduce of `bytes` per rank over `ranks` ranks,
/// with elements of `element_bytes` (4 for fp32 gradients) and a built-in commutative
/// operation (a sum), and the rule that picked it, in words, for the output.
struct Selection {
  Algorithm algorithm = Algorithm::Ring;
  std::string_view rule;
};
Selection select_allreduce(Library library, int ranks, double bytes, double element_bytes);

} // namespace ceiling::collectives
