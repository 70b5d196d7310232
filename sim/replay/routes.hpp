// Routes between ranks: their links, latency, narrowest bandwidth and link classes, from SimGrid,
// and the fabric's own paths where the machine routes adaptively or by ECMP.
#pragma once

#include "collectives/collective_plan.hpp"
#include "platform/platform_spec.hpp"
#include "replay/flat_index.hpp"
#include "replay/flow_sharing.hpp"
#include "replay/result.hpp"
#include "routing/fabric.hpp"

#include <simgrid/forward.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace ceiling::replay {

/// The route from one rank's communication host to another's.
struct Route {
  /// The links, as Routes numbers them (link_bandwidth()); a split-duplex link appears as the
  /// direction crossed. (Kept by Routes, as long as it lives.)
  std::span<const std::uint32_t> link_ids;
  double latency_s = 0;             ///< the links' latencies summed
  double bandwidth_bytes_per_s = 0; ///< the narrowest link's
  LinkBytes per_byte;               ///< links of each class crossed
  /// Every link is SimGrid's SHARED kind (as a direction of a split-duplex link is), the kind
  /// FlowSharing models, and there is at least one.
  bool shared_links_only = false;
  /// Routes' number for it, from 0 in the order built (route_count()).
  std::uint32_t id = 0;
};

/// Routes between ranks, built once per pair and kept: composed as SimGrid composes them
/// (compose()) where their links and their nodes' parts are known, else read whole from SimGrid;
/// on a fat-tree (or a single switch) the fabric's part computed, not asked of SimGrid, where
/// its links were met before (computed_fabric_part()). Under a routing other than
/// static-minimal, a flow's fabric links are the fabric's own (routing::Fabric) instead of
/// SimGrid's: the node's links before and after the fabric stay SimGrid's (the nodes' parts,
/// once known), and the links in between are one of the fabric's paths, numbered after SimGrid's
/// as they are met.
class Routes {
public:
  Routes() = default;
  /// `hosts[r]` is where rank r sends from and receives at, on node slot `slots[r]` of
  /// `spec` (a machine platform::Machine built), which routes by its interconnect.routing;
  /// `seed` salts ECMP's and Valiant's hashes; other jobs' `background` load takes its share
  /// of every fabric link's bandwidth. `compose_routes` false reads every route whole from
  /// SimGrid (the reference the tests hold compose() to).
  Routes(std::vector<simgrid::s4u::Host*> hosts, std::vector<long long> slots, const platform::PlatformSpec& spec,
         std::uint64_t seed, platform::BackgroundLoad background = {}, bool compose_routes = true);

  /// SimGrid's route from rank `src` to rank `dst` (static routing).
  const Route& between(int src, int dst);

  /// SimGrid's route between two hosts of a node (a PCIe copy between its CPU and a GPU), its
  /// links numbered as the ranks' routes number them.
  const Route& inside_node(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst);

  /// The route of each of `flows`, in flight together: SimGrid's under static routing or
  /// inside one node; else over the fabric's path that routing::spread() picks, for a flow
  /// that demands its fair share of each node link it crosses (the flows on that link divide
  /// it equally), at most its node's port into the fabric; other jobs' background load counts.
  std::vector<const Route*> spread(std::span<const collectives::Flow> flows);

  /// How many routes compose() built rather than SimGrid's routing whole (the tests').
  std::uint64_t composed_routes() const { return composed_; }
  /// How many of those had their fabric links computed (a fat-tree's: tree_), not asked of
  /// SimGrid (the tests').
  std::uint64_t computed_routes() const { return computed_; }
  /// 1 once a route SimGrid gave contradicted what was learned of the fat-tree's links (another
  /// path, or two of its links taken for one of ours), after which no route is computed and
  /// nothing more checked; 0 otherwise, always in the tests.
  std::uint64_t tree_mismatches() const { return tree_mismatches_; }

  /// Whether routes may differ from SimGrid's (a routing other than static-minimal).
  bool routes_itself() const { return fabric_.has_value(); }

  /// Routes built so far (Route::id counts them).
  std::uint32_t route_count() const { return static_cast<std::uint32_t>(routes_.size()); }

  /// Links met so far in routes, numbered from 0 in the order met, and their bandwidths.
  std::uint32_t link_count() const { return static_cast<std::uint32_t>(link_facts_.size()); }
  double link_bandwidth(std::uint32_t id) const { return link_facts_[id].bandwidth_bytes_per_s; }

  /// Per phase and flow of `routes` (a plan's flows as spread() routes them): whether the
  /// flow's route shares no link with any other flow of the plan, counting the two directions
  /// of a split-duplex link apart. A flow with an empty route is never alone.
  std::vector<std::vector<char>> alone(const std::vector<std::vector<const Route*>>& routes) const;

private:
  /// A route's links outside the fabric: the source node's before it and the destination's
  /// after (spans into Routes' own storage), or, for a route inside one node, that route.
  struct NodeEnds {
    std::span<const std::uint32_t> up, down;
    const Route* inside = nullptr;
  };
  /// The node links of the route from rank `src` to rank `dst`: the nodes' parts where both are
  /// known, else those of SimGrid's route, read (between()).
  NodeEnds node_ends(int src, int dst);
  /// Rank `src` to rank `dst` over fabric path `path` (an index into Fabric::paths()), whose
  /// links are `path_links`, with the nodes' links `ends`.
  const Route& over_path(int src, int dst, std::uint32_t path, std::span<const std::uint32_t> path_links,
                         const NodeEnds& ends);
  /// Route `found.first`, or where `found.second` (a lookup that gave the id of the next route)
  /// a new one of that id, empty, that the caller fills (append(), finish()); whether it is new.
  std::pair<Route&, bool> found_route(std::pair<std::uint32_t, bool> found);
  /// Fills a new `route` with SimGrid's from `src` to `dst`.
  void read_simgrid(Route& route, const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst);
  /// Fills a new `route` from rank `src` to rank `dst` of another node zone of the fabric as
  /// SimGrid 3.32's NetZoneImpl::get_global_route_with_netzones builds it, without its
  /// walk up the zones and its recursion into the nodes: the fabric zone's own route between the
  /// two node zones (its latencies summed there first), then each node's links between its
  /// host and its gateway, as an earlier route read whole from SimGrid gave them (its links
  /// before the first fabric link, after the last), their latencies added link by link in
  /// SimGrid's order, so that links and latency are SimGrid's to the bit
  /// (tests/platform/network_test.cpp). Machine adds no bypass route, which SimGrid would try
  /// first, and a node zone's gateway is its own. False, the route left empty, where a node's
  /// part is not known yet or a fabric link has not been met yet (read_simgrid() numbers the
  /// links in the order SimGrid lists them).
  bool compose(Route& route, int src, int dst);
  /// Where the fabric's links of `ids` (a route's) begin and end: the node's links before and
  /// after; both ends where it has none.
  std::pair<std::span<const std::uint32_t>::iterator, std::span<const std::uint32_t>::iterator>
  fabric_part(std::span<const std::uint32_t> ids) const;
  /// The zones that hold ranks `src` and `dst` (their nodes').
  std::pair<const simgrid::kernel::routing::NetZoneImpl*, const simgrid::kernel::routing::NetZoneImpl*>
  node_zones(int src, int dst) const;
  /// Whether ranks `src` and `dst` are in two node zones of one fabric zone.
  bool across_one_fabric(int src, int dst) const;
  /// Keeps the node parts of `route`, read whole from SimGrid from rank `src` to rank `dst` on
  /// another node, where not known yet, and learns the fat-tree links of its fabric part.
  void keep_node_parts(const Route& route, int src, int dst);
  /// The fabric part of the route from rank `src` to rank `dst` of a fat-tree, computed
  /// (Fabric::simgrid_static_path) into composed_ids_, its latencies summed in order into
  /// `latency_s`; false, nothing written, where there is no fat-tree or one of its links has
  /// not been learned yet.
  bool computed_fabric_part(int src, int dst, double& latency_s);
  /// Learns which of our links the fat-tree's links on the path from rank `src` to rank `dst`
  /// are, from that route's fabric part `ids` as SimGrid gave it; a path that does not match
  /// what was learned before, or that would make two of the tree's links one of ours (it never
  /// should), stops the computing (tree_mismatches()).
  void learn_tree_links(int src, int dst, std::span<const std::uint32_t> ids);
  /// The id of link `link` of SimGrid, numbered the first time it is met.
  std::uint32_t id_of(const simgrid::s4u::Link* link);
  /// Appends link `id` to the route being built (its links wait in building_ until finish()).
  void append(Route& route, std::uint32_t id);
  /// Stores the links of the route being built.
  void finish(Route& route);

  std::vector<simgrid::s4u::Host*> hosts_;
  std::deque<Route> routes_; ///< by Route::id (a deque: the routes handed out never move)
  /// Every route's links, one after the other in chunks filled up to the capacity they were
  /// given, so that their ids never move (Route::link_ids), nor when Routes itself is moved.
  std::vector<std::vector<std::uint32_t>> link_chunks_;
  std::vector<std::uint32_t> building_; ///< the links of the route being built
  FlatIndex pair_routes_;  ///< between()'s, by src x ranks + dst
  FlatIndex path_routes_;  ///< over_path()'s, by (src x ranks + dst) x max_paths + path
  /// inside_node()'s routes' ids (looked up, never walked).
  std::map<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>, std::uint32_t> node_routes_;
  /// What a route needs of each link, read from SimGrid (or the fabric) once.
  struct LinkFacts {
    double bandwidth_bytes_per_s;
    double latency_s;
    LinkBytes per_byte; ///< 1 in the link's class
    bool shared;        ///< SimGrid's SHARED kind; every fabric link is
  };
  // Routing of the fabric's own.
  std::vector<long long> slots_;
  platform::PlatformSpec spec_;
  platform::BackgroundLoad background_;
  std::optional<routing::Fabric> fabric_;
  platform::Routing routing_ = platform::Routing::StaticMinimal;
  std::uint64_t seed_ = 0;
  std::vector<std::uint32_t> fabric_ids_; ///< by fabric link id: ours, or none yet
  std::vector<double> fabric_available_;  ///< by fabric link id: its bandwidth the background load leaves
  std::vector<double> fabric_load_;       ///< routing::spread()'s working memory
  std::vector<simgrid::s4u::Link*> simgrid_links_; ///< scratch
  FlatIndex link_ids_;               ///< by the address of SimGrid's link's implementation
  // compose()'s.
  bool composes_ = true; ///< false where asked, or under a SimGrid other than 3.32
  std::uint64_t composed_ = 0; ///< routes composed so far
  std::vector<simgrid::kernel::resource::StandardLinkImpl*> fabric_links_; ///< scratch
  /// By rank: its links from its host to its gateway (up) or back, once a route gave them.
  struct NodePart {
    bool known = false;
    std::vector<std::uint32_t> link_ids;
  };
  std::vector<NodePart> up_parts_, down_parts_;
  std::vector<std::uint32_t> composed_ids_; ///< compose()'s scratch: the fabric's links
  /// A fat-tree's (or a single switch's, a one-level fat-tree) fabric, whose static paths
  /// compose() computes instead of asking SimGrid, once it has learned their links.
  std::optional<routing::Fabric> tree_;
  std::vector<std::uint32_t> tree_ids_;  ///< by the tree's link id: ours, or none yet
  std::vector<std::uint32_t> tree_link_of_; ///< by our link id: the tree's, or none
  std::uint64_t tree_mismatches_ = 0;
  std::vector<std::uint32_t> tree_path_; ///< scratch: the tree's path between the ranks tree_path_of_
  std::pair<int, int> tree_path_of_{-1, -1};
  std::uint64_t computed_ = 0;           ///< routes whose fabric part was computed
  std::vector<LinkFacts> link_facts_; ///< by link id
};

/// Whether FlowSharing can share flows on `route`: SimGrid's SHARED links only, at most
/// FlowSharing::max_hops of them.
inline bool sharable(const Route& route) {
  return route.shared_links_only && route.link_ids.size() <= FlowSharing::max_hops;
}

/// The FlowSharing paths of routes: a link is added to the FlowSharing the first time a route
/// crosses it, and each route once (kept by its Route::id, or with a sharing penalty by its
/// address: the routes must be one Routes' and outlive it).
class SharingPaths {
public:
  /// `bandwidth_of(link)`: the bandwidth of the routes' link `link`, in bytes per second.
  SharingPaths(std::function<double(std::uint32_t)> bandwidth_of, FlowSharing& sharing)
      : bandwidth_of_(std::move(bandwidth_of)), sharing_(sharing) {}
  /// Over the links of `routes` (Routes::link_bandwidth).
  SharingPaths(const Routes& routes, FlowSharing& sharing)
      : SharingPaths([&routes](std::uint32_t link) { return routes.link_bandwidth(link); }, sharing) {}

  /// The path of `route`, which must be sharable() and one of the routes of the Routes these
  /// paths are for (kept by its Route::id); its flows' sharing penalty `sharing_penalty_s` where
  /// given, else the route's latency (FlowSharing::add_path).
  std::uint32_t of(const Route& route, std::optional<double> sharing_penalty_s = std::nullopt);

  /// A new path for a pipeline over the `edges`' routes, each sharable(); its flows' sharing
  /// penalty `sharing_penalty_s` where given, else the longest edge latency
  /// (FlowSharing::add_pipeline).
  std::uint32_t of_pipeline(std::span<const Route* const> edges, std::optional<double> sharing_penalty_s = std::nullopt);

private:
  /// FlowSharing's id of Routes' link `id`, added the first time.
  std::uint32_t link(std::uint32_t id);

  std::function<double(std::uint32_t)> bandwidth_of_;
  FlowSharing& sharing_;
  std::vector<std::uint32_t> links_; ///< by Routes' link id: FlowSharing's, or none
  std::vector<std::uint32_t> paths_; ///< by Route::id: FlowSharing's, or none
  std::map<std::pair<const Route*, double>, std::uint32_t> penalized_; ///< those given a sharing penalty
};

} // namespace ceiling::replay
