// Routes between ranks: their links, latency, narrowest bandwidth and link classes, from SimGrid.
#pragma once

#include "collectives/collective_plan.hpp"
#include "replay/result.hpp"

#include <simgrid/forward.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ceiling::replay {

/// The route from one rank's communication host to another's.
struct Route {
  /// The links, as Routes numbers them (link_bandwidth()); a split-duplex link appears as the
  /// direction crossed.
  std::vector<std::uint32_t> link_ids;
  double latency_s = 0;             ///< the links' latencies summed
  double bandwidth_bytes_per_s = 0; ///< the narrowest link's
  LinkBytes per_byte;               ///< links of each class crossed
  /// Every link is SimGrid's SHARED kind (as a direction of a split-duplex link is), the kind
  /// FlowSharing models, and there is at least one.
  bool shared_links_only = false;
};

/// Routes between ranks, asked of SimGrid once per pair and kept.
class Routes {
public:
  Routes() = default;
  /// `hosts[r]` is where rank r sends from and receives at.
  explicit Routes(std::vector<simgrid::s4u::Host*> hosts) : hosts_(std::move(hosts)) {}

  const Route& between(int src, int dst);

  /// Links met so far in routes, numbered from 0 in the order met, and their bandwidths.
  std::uint32_t link_count() const { return static_cast<std::uint32_t>(link_facts_.size()); }
  double link_bandwidth(std::uint32_t id) const { return link_facts_[id].bandwidth_bytes_per_s; }

  /// Per phase and flow of `plan`: whether the flow's route shares no link with any other
  /// flow of the plan, counting the two directions of a split-duplex link apart. A flow with
  /// an empty route is never alone.
  std::vector<std::vector<char>> alone(const std::vector<collectives::Phase>& plan);

private:
  /// Keys src x ranks + dst of a ring step by step are multiples of ranks + 1 apart: the
  /// standard hash (the key itself, modulo a prime bucket count) can put them all in one
  /// bucket, as it does at 256 ranks. Mixing the bits first (splitmix64's finaliser) spreads them.
  struct MixedHash {
    std::size_t operator()(unsigned long long x) const {
      x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
      x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
      return static_cast<std::size_t>(x ^ (x >> 31));
    }
  };

  std::vector<simgrid::s4u::Host*> hosts_;
  std::unordered_map<unsigned long long, Route, MixedHash> cache_; ///< by src x ranks + dst
  /// What a route needs of each link, read from SimGrid once.
  struct LinkFacts {
    double bandwidth_bytes_per_s;
    LinkBytes per_byte; ///< 1 in the link's class
    bool shared;        ///< SimGrid's SHARED kind
  };
  std::unordered_map<const simgrid::s4u::Link*, std::uint32_t> link_ids_; ///< looked up, never walked
  std::vector<LinkFacts> link_facts_;                                     ///< by link id
};

} // namespace ceiling::replay
