// A pipeline's lockstep rounds: the fill and drain of a pipelined phase over the links its edges
// cross, and the latency of its first chunk's way.
#pragma once

#include "collectives/collective_plan.hpp"
#include "replay/routes.hpp"

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

} // namespace ceiling::replay
