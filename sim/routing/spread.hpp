// How flows in flight together choose their paths: UGAL-style by load, or ECMP.
#pragma once

#include "platform/platform_spec.hpp"
#include "routing/fabric.hpp"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace ceiling::routing {

/// A flow to route: its slots and the most it can send, in bytes per second (its fair share
/// of its node's links, at most its node's port into the fabric: a path can carry it whole).
struct Demand {
  long long src_slot = 0;
  long long dst_slot = 0;
  double rate_bytes_per_s = 0;
};

/// The link ids of minimal paths spread() keeps from its first pass for its second (16 MiB).
constexpr std::size_t default_kept_path_links = std::size_t{1} << 22;

/// Each fabric link's bandwidth in bytes per second that other jobs' `background` load leaves to
/// the flows: what spread() weighs loads against.
std::vector<double> available_bandwidths(const Fabric& fabric, const platform::BackgroundLoad& background);

/// Where spread() hands over each demand's path, once, demand after demand in order: the demand's
/// index, the path's index into Fabric::paths(src, dst, seed) and the path's links (valid during
/// the call).
using PathChosen = std::function<void(std::size_t demand, std::uint32_t path, std::span<const std::uint32_t> links)>;

/// The path of each of `demands`, all in flight together, under `routing` (Adaptive or Ecmp):
/// - Ecmp: one of the flow's minimal paths, picked by a hash of the seed and its slots;
/// - Adaptive: first every flow on its least loaded minimal path, in order; then flow by flow,
///   in order, the flow taken off and placed again as UGAL's choice (Kim, Dally, Towles and
///   Abts, ISCA 2008) makes it, with link loads for queues: the least loaded minimal path if
///   it stays within bandwidth, else the path, minimal or not, that leaves the flow the most
///   bandwidth (least load above 1), the one of fewer router hops among equals. The load of a
///   path is the highest ratio of load to bandwidth over its links, the flow included; a
///   link's load is the rates of the flows placed on it. A flow alone keeps a minimal path;
///   flows that would overfill a link move apart, onto longer paths when the minimal ones are
///   full.
/// This is a fluid, per-phase approximation of Aries' per-packet adaptive routing: the choice
/// is made per flow, sees every flow of the phase at once, and holds while they run.
/// Loads are weighed against `available` (available_bandwidths(): other jobs' background load
/// takes its share of each link first); `load` is working memory, one entry per link, whatever it
/// holds. The second pass reads the flows' minimal paths as the first generated them, kept flow by
/// flow until `kept_path_links` link ids are kept (16 MiB by default; a parameter server's fans on
/// a large dragonfly would keep hundreds of MiB), and generates those of the flows past that
/// again: the same choices either way. Each choice is final when `chosen` hears it.
void spread(const Fabric& fabric, platform::Routing routing, std::span<const Demand> demands, std::uint64_t seed,
            std::span<const double> available, std::vector<double>& load, const PathChosen& chosen,
            std::size_t kept_path_links = default_kept_path_links);

/// The same, the paths' indices alone, against the bandwidths `background` leaves.
std::vector<std::uint32_t> spread(const Fabric& fabric, platform::Routing routing,
                                  std::span<const Demand> demands, std::uint64_t seed,
                                  const platform::BackgroundLoad& background = {},
                                  std::size_t kept_path_links = default_kept_path_links);

} // namespace ceiling::routing
