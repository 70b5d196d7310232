// How flows in flight together are spread over the fabric's paths: UGAL-style by load, or ECMP.
#pragma once

#include "platform/platform_spec.hpp"
#include "routing/fabric.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace ceiling::routing {

/// A flow to route: its slots and the most it can send, its whole route's narrowest bandwidth
/// (the node's own links included), in bytes per second.
struct Demand {
  long long src_slot = 0;
  long long dst_slot = 0;
  double rate_bytes_per_s = 0;
};

/// A share of a flow's bytes on one of its paths: `path` indexes Fabric::paths(src, dst, salt).
struct Share {
  std::uint32_t path = 0;
  double fraction = 1;
};

/// Parts a flow is cut into by adaptive routing; each takes a path of its own choosing.
inline constexpr int adaptive_parts = 4;

/// The paths of `demands`, all in flight together, under `routing` (Adaptive or Ecmp; the
/// salt of Fabric::paths() is `seed`), one list of shares per demand, the shares summing to 1:
/// - Ecmp: each flow whole on one minimal path, picked by a hash of the seed and its slots;
/// - Adaptive: first every flow on its minimal paths (each part on the least loaded), then
///   flow by flow, in order, the flow taken off and each of its adaptive_parts parts (a quarter
///   of its rate) placed again as UGAL's choice (Kim, Dally, Towles and Abts, ISCA 2008) decides
///   it with link loads for queues: on a path the flow already uses while that keeps every
///   link's load at most its bandwidth; else on the least loaded minimal path if it stays within
///   bandwidth; else on the path, minimal or not, of least load x router hops (the load of a
///   path: the highest ratio of load to bandwidth over its links, this part included). Loads
///   are the rates of the parts placed. A flow alone keeps one path; flows that would share a
///   link beyond its bandwidth move apart, onto longer paths when the minimal ones are full.
/// This is a fluid, per-phase approximation of Aries' per-packet adaptive routing: the choice
/// sees every flow of the phase at once and does not change while they run.
std::vector<std::vector<Share>> spread(const Fabric& fabric, platform::Routing routing,
                                       std::span<const Demand> demands, std::uint64_t seed);

} // namespace ceiling::routing
