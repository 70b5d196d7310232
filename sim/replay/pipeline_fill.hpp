// A pipeline's lockstep rounds: the fill and drain of a pipelined phase over the links its edges
// cross, and the pace its edges keep where CM02 weighs them unlike.
#pragma once

#include "collectives/collective_plan.hpp"
#include "replay/flow_sharing.hpp"
#include "replay/routes.hpp"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace ceiling::replay {

/// What the fill and drain of pipelined phase `phase` add to its steady state, in seconds per
/// byte of one chunk (before the bandwidth factor), its edges crossing `routes` (one per flow)
/// of `links`. A lockstep pipeline of K chunks runs K + E rounds (E = steps - chunks), edge i
/// carrying its chunks in the K rounds from phase.first_round[i] (at most E), each round taking
/// a chunk's time through the busiest link of the edges that carry one in that round. The
/// steady state already counts K rounds of every edge; the first E rounds run the edges that
/// have started, the last E those not yet done. So this is the sum of those 2E rounds, less E
/// rounds of every edge: between 0 and E rounds of the steady state, E chunk times alone where no
/// two edges share a link. With fewer than E chunks the first and last rounds overlap, and the
/// edges that are done, or not yet started, are still counted: a bound.
double pipeline_fill_s_per_chunk_byte(const collectives::Phase& phase,
                                      std::span<const Route* const> routes, const Routes& links);

/// The latency of the first chunk's way through pipelined phase `phase` (one per edge, as each
/// chunk after it pays its own beside the bytes of the one before), its edges crossing `routes`
/// (one per flow): the longest chain of the edges that carry chunk 0, edge i in round
/// first_round[i], after the edge of its pipeline that brought the chunk to i's sender in the
/// round before, each paying its route's latency (before the latency factor). Up a tree, a
/// deepest rank's way to the root; down, the root's way to a deepest rank.
double pipeline_latency_s(const collectives::Phase& phase, std::span<const Route* const> routes);

/// The pace a pipeline keeps when each of its edges moves a chunk per round in lockstep (NCCL's
/// FIFOs let no edge run far ahead of the others): a round is a chunk on every edge, all sent at
/// once (each chunk's latency runs beside the bytes of the one before), shared out as CM02 shares
/// flows, each link among its edges by one over their route latencies, the edges done first
/// leaving the rest of the round to the others; the pace is a chunk over the round (of any size:
/// nothing else is in it). Where every edge weighs alike, the busiest link's share (the level
/// that fixes its edges is the least, and none of them speeds up before the round ends), which
/// the pipeline's links give anyway: +infinity. Runs its rounds in a FlowSharing of its own
/// (one after another on its clock), whose paths (SharingPaths) copy a link or route the first
/// time a round needs it.
class LockstepRounds {
public:
  /// `bandwidth_of(link)`: the bandwidth of the routes' link `link` (Routes::link_bandwidth), in
  /// bytes per second; `latency_factor`: the network model's.
  LockstepRounds(std::function<double(std::uint32_t)> bandwidth_of, double latency_factor);
  /// Over the links of `routes` (Routes::link_bandwidth), as SharingPaths.
  LockstepRounds(const Routes& routes, double latency_factor)
      : LockstepRounds([&routes](std::uint32_t link) { return routes.link_bandwidth(link); }, latency_factor) {}

  /// The pace of a pipeline whose edges take `routes` (each sharable()), in bytes per second
  /// before the bandwidth factor; +infinity where their sharing penalties are all alike.
  double pace_bytes_per_s(std::span<const Route* const> routes);

private:
  double latency_factor_;
  FlowSharing sharing_;
  SharingPaths paths_; ///< of sharing_
  double clock_s_ = 0; ///< where the last round ended
};

} // namespace ceiling::replay
