// UGAL and ECMP over a fabric's paths, with link loads in bytes per second.
#include "routing/spread.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ceiling::routing {

namespace {

/// The highest load-to-bandwidth ratio over `path`'s links with `extra` more on each.
double load_of(const Fabric& fabric, const std::vector<double>& load, const Path& path, double extra) {
  double worst = 0;
  for (std::uint32_t link : path.links)
    worst = std::max(worst, (load[link] + extra) / fabric.link_bandwidth_bytes_per_s(link));
  return worst;
}

std::vector<Share> ecmp(const std::vector<Path>& paths, const Demand& d, std::uint64_t seed) {
  const auto minimal = static_cast<std::uint64_t>(
      std::count_if(paths.begin(), paths.end(), [](const Path& p) { return p.minimal; }));
  return {{static_cast<std::uint32_t>(mix(seed, {d.src_slot, d.dst_slot}) % minimal), 1.0}};
}

/// Places `d`'s parts on `paths` by UGAL's rule against `load`, and adds them to it; with
/// `minimal_only`, as if the minimal paths were all.
std::vector<Share> ugal(const Fabric& fabric, std::vector<double>& load, const std::vector<Path>& paths,
                        const Demand& d, bool minimal_only) {
  const double part = d.rate_bytes_per_s / adaptive_parts;
  std::vector<Share> shares;
  for (int k = 0; k < adaptive_parts; ++k) {
    std::uint32_t chosen = 0;
    bool found = false;
    for (const Share& s : shares) // stay where the flow already is, while it fits
      if (!found && load_of(fabric, load, paths[s.path], part) <= 1.0)
        chosen = s.path, found = true;
    if (!found) {
      double best_minimal = std::numeric_limits<double>::infinity();
      for (std::uint32_t i = 0; i < paths.size(); ++i)
        if (paths[i].minimal) {
          const double l = load_of(fabric, load, paths[i], part);
          if (l < best_minimal)
            best_minimal = l, chosen = i;
        }
      if (best_minimal > 1.0 && !minimal_only) { // congested: weigh every path by its hops
        double best = best_minimal * std::max(paths[chosen].router_hops, 1);
        for (std::uint32_t i = 0; i < paths.size(); ++i)
          if (!paths[i].minimal) {
            const double cost = load_of(fabric, load, paths[i], part) * std::max(paths[i].router_hops, 1);
            if (cost < best)
              best = cost, chosen = i;
          }
      }
    }
    for (std::uint32_t link : paths[chosen].links)
      load[link] += part;
    const auto it = std::find_if(shares.begin(), shares.end(), [&](const Share& s) { return s.path == chosen; });
    if (it != shares.end())
      it->fraction += 1.0 / adaptive_parts;
    else
      shares.push_back({chosen, 1.0 / adaptive_parts});
  }
  return shares;
}

} // namespace

std::vector<std::vector<Share>> spread(const Fabric& fabric, platform::Routing routing,
                                       std::span<const Demand> demands, std::uint64_t seed) {
  if (routing == platform::Routing::StaticMinimal)
    throw std::invalid_argument("routing::spread: static routing is SimGrid's own, not spread");
  std::vector<std::vector<Share>> out;
  out.reserve(demands.size());
  std::vector<Path> paths;
  const auto paths_of = [&](const Demand& d) -> const std::vector<Path>& {
    paths.clear();
    fabric.paths(d.src_slot, d.dst_slot, seed, paths);
    return paths;
  };
  if (routing == platform::Routing::Ecmp) {
    for (const Demand& d : demands)
      out.push_back(ecmp(paths_of(d), d, seed));
    return out;
  }
  // First every flow on its minimal paths: the loads minimal routing makes. Then each flow,
  // in order, taken off and placed again by UGAL against the loads of all the others, so that
  // an early flow does not move onto links that later flows will fill.
  std::vector<double> load(fabric.link_count(), 0.0);
  for (const Demand& d : demands)
    out.push_back(ugal(fabric, load, paths_of(d), d, true));
  for (std::size_t i = 0; i < demands.size(); ++i) {
    const Demand& d = demands[i];
    const auto& candidates = paths_of(d);
    for (const Share& s : out[i])
      for (std::uint32_t link : candidates[s.path].links)
        load[link] -= s.fraction * d.rate_bytes_per_s;
    out[i] = ugal(fabric, load, candidates, d, false);
  }
  return out;
}

} // namespace ceiling::routing
