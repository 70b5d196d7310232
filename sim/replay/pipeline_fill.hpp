// The fill and drain of a pipelined phase, as lockstep rounds over the links its edges cross.
#pragma once

#include "collectives/collective_plan.hpp"
#include "replay/routes.hpp"

#include <span>

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

} // namespace ceiling::replay
