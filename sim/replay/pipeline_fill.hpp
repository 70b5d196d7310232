// The fill and drain of a pipelined phase, as lockstep rounds over the links its edges cross.
#pragma once

#include "collectives/collective_plan.hpp"
#include "replay/routes.hpp"

#include <span>

namespace ceiling::replay {

/// What the fill and drain of pipelined phase `phase` add to its steady state, in seconds per
/// byte of one chunk (before the bandwidth factor), its edges crossing `routes` (one per flow)
/// of `links`. A lockstep pipeline of K chunks over trees of depth D runs K + 2D - 1 rounds (the
/// edge from a rank at depth d to its parent carries chunk j up in round j + D - d, the edge to
/// it from its parent carries it down in round j + D + d - 1), each taking a chunk's time
/// through the busiest link of the edges that carry one in that round. The middle K - 2D + 1
/// rounds run every edge, as the steady state does, which already counts K rounds of every
/// edge; the first 2D - 1 run the edges that have started (first the deepest edges up), the last
/// 2D - 1 those not yet done (last the deepest edges down). So this is the sum of those 4D - 2
/// rounds, less 2D - 1 rounds of every edge: between 0 and 2D - 1 rounds of the steady state,
/// 2D - 1 chunk times alone on routes that no two edges share. With fewer than 2D - 1 chunks the
/// first and last rounds overlap, and the edges that are done, or not yet started, are still
/// counted: a bound.
double pipeline_fill_s_per_chunk_byte(const collectives::Phase& phase, std::span<const Route* const> routes,
                                      const Routes& links);

} // namespace ceiling::replay
