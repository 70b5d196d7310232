// UGAL and ECMP over a fabric's paths, with link loads in bytes per second.
#include "routing/spread.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ceiling::routing {

namespace {

/// The highest load-to-bandwidth ratio over `links` (a path's) with `extra` more on each, against
/// each link's `available` bandwidth.
double load_of(std::span<const double> available, const std::vector<double>& load,
               std::span<const std::uint32_t> links, double extra) {
  double worst = 0;
  for (std::uint32_t link : links)
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

/// The minimal paths of flows, kept from the first pass for the second (generating them again
/// was half of routing a large machine's flows): flow i's are paths first[i] to first[i + 1],
/// path j's links begin at links[begin[j]] and end where path j + 1's begin, its router hops
/// are hops[j]; flows are added until `budget` link ids are kept.
struct MinimalPaths {
  std::size_t budget = 0;
  std::vector<std::uint32_t> links;
  std::vector<std::uint32_t> begin{0};
  std::vector<int> hops;
  std::vector<std::uint32_t> first{0};

  std::size_t flows() const { return first.size() - 1; }
  bool full() const { return links.size() >= budget; }
  void clear() {
    links.clear();
    begin.assign(1, 0);
    hops.clear();
    first.assign(1, 0);
  }
  void add(std::span<const Path> paths) {
    for (const Path& p : paths) {
      links.insert(links.end(), p.links.begin(), p.links.end());
      begin.push_back(static_cast<std::uint32_t>(links.size()));
      hops.push_back(p.router_hops);
    }
    first.push_back(static_cast<std::uint32_t>(begin.size() - 1));
  }
  std::size_t count(std::size_t flow) const { return first[flow + 1] - first[flow]; }
  /// Path `j` of flow `flow`'s.
  std::span<const std::uint32_t> path(std::size_t flow, std::size_t j) const {
    const std::size_t k = first[flow] + j;
    return {links.data() + begin[k], begin[k + 1] - begin[k]};
  }
  int router_hops(std::size_t flow, std::size_t j) const { return hops[first[flow] + j]; }
};

/// UGAL's first look: the least loaded of flow `flow`'s minimal paths for `d`, against `load`
/// (which does not hold `d`). Within bandwidth (load at most 1), UGAL's choice.
Choice least_loaded_minimal(std::span<const double> available, const std::vector<double>& load,
                            const MinimalPaths& minimal, std::size_t flow, const Demand& d) {
  Choice best;
  for (std::uint32_t j = 0; j < minimal.count(flow); ++j) {
    const double l = load_of(available, load, minimal.path(flow, j), d.rate_bytes_per_s);
    if (l < best.load)
      best = {j, l};
  }
  return best;
}

/// UGAL's choice for a flow whose least loaded minimal path, `least`, is congested: of all its
/// paths, taken in order (consider()), the one that leaves the flow the most bandwidth (the least
/// load above 1), then the one of the fewest router hops; `path` is its index in the whole list.
struct Congested {
  std::uint32_t path;
  int hops;
  double best;
  Congested(Choice least, int least_hops) : path(least.path), hops(least_hops), best(least.load) {}
  void consider(std::uint32_t i, double path_load, int path_hops) {
    const double l = std::max(path_load, 1.0);
    const bool equal = std::abs(l - best) <= 1e-9 * best;
    if ((l < best && !equal) || (equal && path_hops < hops))
      best = std::min(l, best), path = i, hops = path_hops;
  }
};

} // namespace

std::vector<double> available_bandwidths(const Fabric& fabric, const platform::BackgroundLoad& background) {
  std::vector<double> available(fabric.link_count());
  for (std::uint32_t link = 0; link < fabric.link_count(); ++link)
    available[link] = fabric.link_bandwidth_bytes_per_s(link) * (1 - background.of(fabric.link_kind(link)));
  return available;
}

void spread(const Fabric& fabric, platform::Routing routing, std::span<const Demand> demands, std::uint64_t seed,
            std::span<const double> available, std::vector<double>& load, const PathChosen& chosen,
            std::size_t kept_path_links) {
  if (routing == platform::Routing::StaticMinimal)
    throw std::invalid_argument("routing::spread: static routing is SimGrid's own, not spread");
  if (available.size() != fabric.link_count())
    throw std::invalid_argument("routing::spread: " + std::to_string(available.size()) + " bandwidths for " +
                                std::to_string(fabric.link_count()) + " links");
  std::vector<Path> scratch;
  const auto paths_of = [&](const Demand& d, Fabric::Kinds kinds) {
    return fabric.paths(d.src_slot, d.dst_slot, seed, scratch, kinds);
  };
  if (routing == platform::Routing::Ecmp) {
    for (std::size_t i = 0; i < demands.size(); ++i) {
      const auto minimal = paths_of(demands[i], Fabric::Kinds::Minimal);
      const std::uint32_t path = ecmp(minimal, demands[i], seed);
      chosen(i, path, minimal[path].links);
    }
    return;
  }
  // First the loads minimal routing makes; then each flow placed again against all the others,
  // so that an early flow does not move onto links that later flows will fill.
  load.assign(fabric.link_count(), 0.0);
  const auto add = [&](std::span<const std::uint32_t> links, double rate) {
    for (std::uint32_t link : links)
      load[link] += rate;
  };
  MinimalPaths kept{kept_path_links}, fresh; // the first pass's, and one flow's generated again past the budget
  const auto minimal_of = [&](std::size_t i) -> std::pair<const MinimalPaths&, std::size_t> {
    if (i < kept.flows())
      return {kept, i};
    fresh.clear();
    fresh.add(paths_of(demands[i], Fabric::Kinds::Minimal));
    return {fresh, 0};
  };
  std::vector<std::uint32_t> first(demands.size()); // each flow's path after the first pass
  for (std::size_t i = 0; i < demands.size(); ++i) {
    if (i == kept.flows() && !kept.full())
      kept.add(paths_of(demands[i], Fabric::Kinds::Minimal));
    const auto [minimal, j] = minimal_of(i);
    first[i] = least_loaded_minimal(available, load, minimal, j, demands[i]).path;
    add(minimal.path(j, first[i]), demands[i].rate_bytes_per_s);
  }
  // The minimal paths come first among all (and each flow's path is still its minimal one of the
  // first pass): a flow whose least loaded minimal path is within bandwidth never needs the
  // others generated.
  for (std::size_t i = 0; i < demands.size(); ++i) {
    const Demand& d = demands[i];
    const auto [minimal, j] = minimal_of(i);
    assert(first[i] < minimal.count(j));
    add(minimal.path(j, first[i]), -d.rate_bytes_per_s);
    const Choice least = least_loaded_minimal(available, load, minimal, j, d);
    const auto count = static_cast<std::uint32_t>(minimal.count(j));
    std::uint32_t path = least.path;
    std::span<const Path> others;
    if (least.load > 1.0) { // congested: every path in turn, the minimal ones kept, the others generated
      Congested ugal(least, minimal.router_hops(j, least.path));
      for (std::uint32_t k = 0; k < count; ++k)
        ugal.consider(k, load_of(available, load, minimal.path(j, k), d.rate_bytes_per_s), minimal.router_hops(j, k));
      others = paths_of(d, Fabric::Kinds::NonMinimal); // in the scratch's memory
      for (std::uint32_t k = 0; k < others.size(); ++k)
        ugal.consider(count + k, load_of(available, load, others[k].links, d.rate_bytes_per_s), others[k].router_hops);
      path = ugal.path;
    }
    const auto links = path < count ? minimal.path(j, path) : std::span<const std::uint32_t>(others[path - count].links);
    add(links, d.rate_bytes_per_s);
    chosen(i, path, links);
  }
}

std::vector<std::uint32_t> spread(const Fabric& fabric, platform::Routing routing, std::span<const Demand> demands,
                                  std::uint64_t seed, const platform::BackgroundLoad& background,
                                  std::size_t kept_path_links) {
  std::vector<std::uint32_t> out(demands.size());
  std::vector<double> load;
  spread(fabric, routing, demands, seed, available_bandwidths(fabric, background), load,
         [&](std::size_t demand, std::uint32_t path, std::span<const std::uint32_t>) { out[demand] = path; },
         kept_path_links);
  return out;
}

} // namespace ceiling::routing
