// NCCL's own rules: which algorithm and protocol it runs (2.4.8's thresholds, 2.7.8's tuning
// model) and what a protocol costs as the replay times it.
#pragma once

#include "collectives/selection.hpp"

#include <optional>

namespace ceiling::collectives {

/// NCCL `library`'s algorithm and protocol for an all-reduce of `bytes` per rank (Nccl or Nccl27).
Selection select_nccl(Library library, const SelectionContext& c, double bytes);

/// The protocol an NCCL `library` runs an all-reduce of `bytes` with when the algorithm is
/// fixed (NCCL_ALGO; the ring or a pipelined tree): NCCL 2.4's LL threshold, or NCCL 2.7's
/// fastest protocol of that algorithm. Empty for other libraries and algorithms.
std::optional<Protocol> select_protocol(Library library, const SelectionContext& c, Algorithm algorithm,
                                        double bytes);

/// How NCCL `library` (Nccl or Nccl27) cuts a pipelined tree's share into chunks under
/// `protocol`: Simple's step (`simple_step_bytes`: its 4 MiB buffer over NCCL_STEPS, by default)
/// halved by NCCL's estimate of the trees' depth; one step of the LL buffer; NCCL 2.7's LL128
/// step halved by its own rule (TreeChunks).
TreeChunks nccl_tree_chunks(Library library, Protocol protocol, const SelectionContext& c, double simple_step_bytes);

/// NCCL 2.4.8's tree threshold in bytes (src/init.cc ncclTreeThreshold): all-reduces up to it
/// take the tree; 0: never, infinity: always.
double nccl_tree_threshold_bytes(const SelectionContext& c);

/// What a protocol costs as the replay times it, per collective of `algorithm` under NCCL
/// `library`: the wire bytes per data byte, and the latency of one step over NVLink, PCIe or
/// the network (NCCL's own per-step estimates, src/graph/tuning.cc hwLat: the replay adds to a
/// step what its route's latency leaves of it; NCCL 2.7's LL steps inside a node 1.8 times
/// longer when the collective spans nodes, `across_nodes`) and of the collective (baseLat).
struct ProtocolCosts {
  double wire_bytes_per_byte = 1;
  double nvlink_step_s = 0;
  double pci_step_s = 0;
  double net_step_s = 0;
  double base_s = 0;
};
ProtocolCosts protocol_costs(Library library, Algorithm algorithm, Protocol protocol, bool across_nodes);

/// NCCL 2.7.8's estimate of an all-reduce's time in seconds (src/graph/tuning.cc,
/// ncclTopoGetAlgoTime); +infinity for a combination it disables. `algorithm` is Ring or
/// PipelinedDoubleTree (its tree).
double nccl27_time_s(const SelectionContext& c, Algorithm algorithm, Protocol protocol, double bytes);

} // namespace ceiling::collectives
