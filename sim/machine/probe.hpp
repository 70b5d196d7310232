// Micro-benchmarks of a built machine: transfers and a step-level ring all-reduce, simulated.
#pragma once

#include "units/quantity.hpp"

#include <simgrid/forward.h>

#include <utility>
#include <vector>

namespace ceiling::platform {

/// One transfer of `size` from `src` to `dst` (hosts of the same engine).
struct Transfer {
  simgrid::s4u::Host* src = nullptr;
  simgrid::s4u::Host* dst = nullptr;
};

/// Runs the engine with all `transfers` of `size` each started at once and returns the
/// simulated time until the last one ends. Alone on a route, a transfer takes
/// latency + size / bottleneck bandwidth under the default network settings.
units::Duration time_transfers(const std::vector<Transfer>& transfers, units::DataSize size);

/// Runs a ring all-reduce of `total` bytes over `ring` step by step (reduce-scatter then
/// all-gather): 2(N-1) steps in which rank i sends total/N to rank i+1, each rank starting
/// step s once it has sent and received step s-1. Returns the simulated time. N = 1: zero.
units::Duration time_ring_allreduce(const std::vector<simgrid::s4u::Host*>& ring,
                                   units::DataSize total);

} // namespace ceiling::platform
