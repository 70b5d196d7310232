// UGAL and ECMP over a fabric's paths, with link loads in bytes per second.
#include "routing/spread.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ceiling::routing {

namespace {

/// The highest load-to-bandwidth ratio over `path`'s links with `extra` more on each, against
/// each link's `available` bandwidth.
double load_of(const std::vector<double>& available, const std::vector<double>& load, const Path& path, double extra) {
  double worst = 0;
  for (std::uint32_t link : path.links)
    worst = std::max(worst, (load[link] + extra) / available[link]);
  return worst;
}

std::uint32_t ecmp(std::span<const Path> paths, const Demand& d, std::uint64_t seed) {
  const auto minimal = static_cast<std::uint64_t>(
      std::count_if(paths.begin(), paths.end(), [](const Path& p) { return p.minimal; }));
  return static_cast<std::uint32_t>(mix(seed, {d.src_slot, d.dst_slot}) % minimal);
}

/// A path of `paths` and its load.
struct Choice {
  std::uint32_t path = 0;
  double load = std::numeric_limits<double>::infinity();
};

/// UGAL's first look: the least loaded of `paths`' minimal ones for `d`, against `load` (which
/// does not hold `d`). Within bandwidth (load at most 1), UGAL's choice.
Choice least_loaded_minimal(const std::vector<double>& available, const std::vector<double>& load,
                            std::span<const Path> paths, const Demand& d) {
  Choice best;
  for (std::uint32_t i = 0; i < paths.size(); ++i)
    if (paths[i].minimal) {
      const double l = load_of(available, load, paths[i], d.rate_bytes_per_s);
      if (l < best.load)
        best = {i, l};
    }
  return best;
}

/// UGAL's choice for `d` when its least loaded minimal path, `minimal`, is congested: of all
/// `paths`, the one that leaves the flow the most bandwidth, then the fewest hops.
std::uint32_t most_bandwidth_left(const std::vector<double>& available, const std::vector<double>& load,
                                  std::span<const Path> paths, const Demand& d, Choice minimal) {
  std::uint32_t chosen = minimal.path;
  double best = minimal.load;
  for (std::uint32_t i = 0; i < paths.size(); ++i) {
    const double l = std::max(load_of(available, load, paths[i], d.rate_bytes_per_s), 1.0);
    const bool equal = std::abs(l - best) <= 1e-9 * best;
    if ((l < best && !equal) || (equal && paths[i].router_hops < paths[chosen].router_hops))
      best = std::min(l, best), chosen = i;
  }
  return chosen;
}

} // namespace

std::vector<std::uint32_t> spread(const Fabric& fabric, platform::Routing routing, std::span<const Demand> demands,
                                  std::uint64_t seed, const platform::BackgroundLoad& background) {
  if (routing == platform::Routing::StaticMinimal)
    throw std::invalid_argument("routing::spread: static routing is SimGrid's own, not spread");
  std::vector<std::uint32_t> out;
  out.reserve(demands.size());
  std::vector<Path> scratch;
  const auto paths_of = [&](const Demand& d, bool minimal_only = false) {
    return fabric.paths(d.src_slot, d.dst_slot, seed, scratch, minimal_only);
  };
  if (routing == platform::Routing::Ecmp) {
    for (const Demand& d : demands)
      out.push_back(ecmp(paths_of(d, true), d, seed));
    return out;
  }
  // First the loads minimal routing makes; then each flow placed again against all the others,
  // so that an early flow does not move onto links that later flows will fill.
  std::vector<double> load(fabric.link_count(), 0.0);
  std::vector<double> available(fabric.link_count());
  for (std::uint32_t link = 0; link < fabric.link_count(); ++link)
    available[link] = fabric.link_bandwidth_bytes_per_s(link) * (1 - background.of(fabric.link_kind(link)));
  const auto add = [&](const Path& p, double rate) {
    for (std::uint32_t link : p.links)
      load[link] += rate;
  };
  for (const Demand& d : demands) {
    const auto candidates = paths_of(d, true);
    out.push_back(least_loaded_minimal(available, load, candidates, d).path);
    add(candidates[out.back()], d.rate_bytes_per_s);
  }
  // The minimal paths come first among all (and each flow's path is still its minimal one of the
  // first pass): a flow whose least loaded minimal path is within bandwidth never needs the
  // others generated.
  for (std::size_t i = 0; i < demands.size(); ++i) {
    const Demand& d = demands[i];
    auto candidates = paths_of(d, true);
    assert(out[i] < candidates.size());
    add(candidates[out[i]], -d.rate_bytes_per_s);
    const Choice minimal = least_loaded_minimal(available, load, candidates, d);
    if (minimal.load <= 1.0) {
      out[i] = minimal.path;
    } else {
      candidates = paths_of(d); // all of them, in the scratch's memory
      out[i] = most_bandwidth_left(available, load, candidates, d, minimal);
    }
    add(candidates[out[i]], d.rate_bytes_per_s);
  }
  return out;
}

} // namespace ceiling::routing
