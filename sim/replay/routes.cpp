// Routes between ranks, built once per pair from SimGrid's routing (read, composed, or on a
// fat-tree computed), with the fabric's own paths spliced in where the machine does not route
// statically.
#include "replay/routes.hpp"

#include "machine/machine.hpp"
#include "platform/topology.hpp"
#include "routing/spread.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/version.h>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <cassert>
#include <stdexcept>

namespace sg4 = simgrid::s4u;
namespace sgr = simgrid::kernel::routing;

namespace ceiling::replay {

namespace {
constexpr std::uint32_t none = ~std::uint32_t{0};
}

Routes::Routes(std::vector<sg4::Host*> hosts, std::vector<long long> slots, const platform::PlatformSpec& spec,
               std::uint64_t seed, platform::BackgroundLoad background, bool compose_routes)
    : hosts_(std::move(hosts)), slots_(std::move(slots)), spec_(spec), background_(background),
      routing_(spec.interconnect.routing), seed_(seed), composes_(compose_routes) {
  // compose() repeats SimGrid 3.32's composition of a route: under another SimGrid, every
  // route is read whole.
  composes_ = composes_ && SIMGRID_VERSION_MAJOR == 3 && SIMGRID_VERSION_MINOR == 32;
  if (composes_) {
    up_parts_.resize(hosts_.size());
    down_parts_.resize(hosts_.size());
    if (auto fat_tree = platform::simgrid_fat_tree(spec)) {
      platform::InterconnectSpec tree = spec.interconnect;
      tree.topology = std::move(*fat_tree);
      tree_ = routing::Fabric::of(tree);
      tree_ids_.assign(tree_->link_count(), none);
    }
  }
  if (routing_ != platform::Routing::StaticMinimal) {
    fabric_ = routing::Fabric::of(spec.interconnect);
    fabric_ids_.assign(fabric_ ? fabric_->link_count() : 0, none);
    if (fabric_)
      fabric_available_ = routing::available_bandwidths(*fabric_, background_);
  }
}

std::uint32_t Routes::id_of(const sg4::Link* link) {
  const auto [id, met] = link_ids_.find_or_add(reinterpret_cast<std::uintptr_t>(link->get_impl()), link_count());
  if (met) {
    LinkFacts facts{link->get_bandwidth(), link->get_latency(), {},
                    link->get_sharing_policy() == sg4::Link::SharingPolicy::SHARED};
    switch (platform::link_class(*link)) {
    case platform::LinkClass::Pcie: facts.per_byte.pcie = 1; break;
    case platform::LinkClass::Nic: facts.per_byte.nic = 1; break;
    case platform::LinkClass::GpuLink: facts.per_byte.gpu_link = 1; break;
    case platform::LinkClass::HostMemory: facts.per_byte.host_memory = 1; break;
    case platform::LinkClass::Fabric:
      facts.per_byte.fabric = 1;
      facts.bandwidth_bytes_per_s *= 1 - background_.of(platform::fabric_link_kind(*link, spec_));
      break;
    }
    link_facts_.push_back(facts);
  }
  return id;
}

std::pair<Route&, bool> Routes::found_route(std::pair<std::uint32_t, bool> found) {
  const auto [id, fresh] = found;
  if (!fresh)
    return {routes_[id], false};
  assert(id == route_count());
  Route& route = routes_.emplace_back();
  route.id = id;
  building_.clear();
  return {route, true};
}

void Routes::append(Route& route, std::uint32_t id) {
  const LinkFacts& facts = link_facts_[id];
  route.shared_links_only = (building_.empty() || route.shared_links_only) && facts.shared;
  building_.push_back(id);
  if (route.bandwidth_bytes_per_s == 0 || facts.bandwidth_bytes_per_s < route.bandwidth_bytes_per_s)
    route.bandwidth_bytes_per_s = facts.bandwidth_bytes_per_s;
  route.per_byte.add_times(facts.per_byte, 1);
}

void Routes::finish(Route& route) {
  // A chunk never grows past the capacity it was given, so its ids never move.
  constexpr std::size_t chunk_ids = std::size_t{1} << 16;
  if (link_chunks_.empty() || link_chunks_.back().capacity() - link_chunks_.back().size() < building_.size())
    link_chunks_.emplace_back().reserve(std::max(chunk_ids, building_.size())); // (one of its own for a longer route)
  std::vector<std::uint32_t>& chunk = link_chunks_.back();
  const std::size_t first = chunk.size();
  chunk.insert(chunk.end(), building_.begin(), building_.end());
  route.link_ids = {chunk.data() + first, building_.size()};
  building_.clear();
}

void Routes::read_simgrid(Route& route, const sg4::Host* src, const sg4::Host* dst) {
  src->route_to(dst, simgrid_links_, &route.latency_s);
  for (const sg4::Link* link : simgrid_links_)
    append(route, id_of(link));
  simgrid_links_.clear();
  finish(route);
}

bool Routes::compose(Route& route, int src, int dst) {
  if (!composes_)
    return false;
  const NodePart& up = up_parts_[static_cast<std::size_t>(src)];
  const NodePart& down = down_parts_[static_cast<std::size_t>(dst)];
  if (!up.known || !down.known || !across_one_fabric(src, dst))
    return false;
  const auto [from_zone, to_zone] = node_zones(src, dst);
  // NetZoneImpl::get_global_route_with_netzones between two node zones of the fabric: the
  // fabric's route between them first (SimGrid's public get_global_route between the two zones'
  // netpoints runs the fabric zone's get_local_route alone), its latencies summed as it lists
  // its links; then the source's links up to its gateway, the fabric's links, the destination's
  // from its gateway, each of the nodes' latencies added in that order.
  double latency_s = 0;
  composed_ids_.clear();
  if (!computed_fabric_part(src, dst, latency_s)) {
    fabric_links_.clear();
    sgr::NetZoneImpl::get_global_route(from_zone->get_netpoint(), to_zone->get_netpoint(), fabric_links_, &latency_s);
    for (const auto* link : fabric_links_) {
      const auto id = link_ids_.find(reinterpret_cast<std::uintptr_t>(link));
      if (!id)
        return false;
      composed_ids_.push_back(*id);
    }
    learn_tree_links(src, dst, composed_ids_);
  }
  for (std::uint32_t id : up.link_ids) {
    append(route, id);
    latency_s += link_facts_[id].latency_s;
  }
  for (std::uint32_t id : composed_ids_) // (their latencies summed by the fabric)
    append(route, id);
  for (std::uint32_t id : down.link_ids) {
    append(route, id);
    latency_s += link_facts_[id].latency_s;
  }
  route.latency_s = latency_s;
  finish(route);
  ++composed_;
  return true;
}

std::pair<std::span<const std::uint32_t>::iterator, std::span<const std::uint32_t>::iterator>
Routes::fabric_part(std::span<const std::uint32_t> ids) const {
  const auto is_fabric = [this](std::uint32_t id) { return link_facts_[id].per_byte.fabric > 0; };
  const auto first = std::find_if(ids.begin(), ids.end(), is_fabric);
  const auto last = std::find_if(ids.rbegin(), ids.rend(), is_fabric).base();
  return {first, first == ids.end() ? ids.end() : last};
}

std::pair<const sgr::NetZoneImpl*, const sgr::NetZoneImpl*> Routes::node_zones(int src, int dst) const {
  return {hosts_[static_cast<std::size_t>(src)]->get_netpoint()->get_englobing_zone(),
          hosts_[static_cast<std::size_t>(dst)]->get_netpoint()->get_englobing_zone()};
}

bool Routes::across_one_fabric(int src, int dst) const {
  const auto [from_zone, to_zone] = node_zones(src, dst);
  return from_zone != to_zone && from_zone->get_parent() != nullptr && from_zone->get_parent() == to_zone->get_parent();
}

void Routes::keep_node_parts(const Route& route, int src, int dst) {
  if (!composes_ || !across_one_fabric(src, dst))
    return;
  const auto ids = route.link_ids;
  const auto [first, last] = fabric_part(ids);
  if (first == ids.end())
    return; // (no fabric link: not a route between two node zones of the fabric)
  NodePart& up = up_parts_[static_cast<std::size_t>(src)];
  NodePart& down = down_parts_[static_cast<std::size_t>(dst)];
  if (!up.known)
    up = {true, {ids.begin(), first}};
  if (!down.known)
    down = {true, {last, ids.end()}};
  learn_tree_links(src, dst, {first, last});
}

bool Routes::computed_fabric_part(int src, int dst, double& latency_s) {
  if (!tree_)
    return false;
  tree_->simgrid_static_path(slots_[static_cast<std::size_t>(src)], slots_[static_cast<std::size_t>(dst)], tree_path_);
  tree_path_of_ = {src, dst};
  for (std::uint32_t link : tree_path_)
    if (tree_ids_[link] == none)
      return false;
  // (Summed in the order SimGrid's FatTreeZone lists them, from 0, as compose() is given them.)
  for (std::uint32_t link : tree_path_) {
    composed_ids_.push_back(tree_ids_[link]);
    latency_s += link_facts_[tree_ids_[link]].latency_s;
  }
  ++computed_;
  return true;
}

void Routes::learn_tree_links(int src, int dst, std::span<const std::uint32_t> ids) {
  if (!tree_)
    return;
  if (tree_path_of_ != std::pair{src, dst}) // (compose() computed it just before asking SimGrid)
    tree_->simgrid_static_path(slots_[static_cast<std::size_t>(src)], slots_[static_cast<std::size_t>(dst)], tree_path_);
  tree_path_of_ = {src, dst};
  // Each of the tree's links is one of ours, a different one for each.
  bool same = tree_path_.size() == ids.size();
  for (std::size_t i = 0; same && i < ids.size(); ++i) {
    std::uint32_t& ours = tree_ids_[tree_path_[i]];
    if (ours == none) {
      if (ids[i] >= tree_link_of_.size())
        tree_link_of_.resize(ids[i] + 1, none);
      same = tree_link_of_[ids[i]] == none;
      ours = ids[i];
      tree_link_of_[ids[i]] = tree_path_[i];
    }
    same = same && ours == ids[i];
  }
  assert(same && "SimGrid's fat-tree routes are the paths Fabric::simgrid_static_path computes");
  if (!same) { // (never, but where it is, every later route is asked of SimGrid)
    tree_.reset();
    ++tree_mismatches_;
  }
}

const Route& Routes::between(int src, int dst) {
  const auto ranks = static_cast<std::uint64_t>(hosts_.size());
  const std::uint64_t pair = static_cast<std::uint64_t>(src) * ranks + static_cast<std::uint64_t>(dst);
  const auto [route, fresh] = found_route(pair_routes_.find_or_add(pair, route_count()));
  if (fresh && !compose(route, src, dst)) {
    read_simgrid(route, hosts_[static_cast<std::size_t>(src)], hosts_[static_cast<std::size_t>(dst)]);
    keep_node_parts(route, src, dst);
  }
  return route;
}

const Route& Routes::inside_node(const sg4::Host* src, const sg4::Host* dst) {
  const auto [it, added] = node_routes_.try_emplace({src, dst}, route_count());
  const auto [route, fresh] = found_route({it->second, added});
  if (fresh)
    read_simgrid(route, src, dst);
  return route;
}

Routes::NodeEnds Routes::node_ends(int src, int dst) {
  // Once both nodes' parts are known (the first route read whole from and to each), SimGrid's
  // route between them is not needed: its links before and after the fabric are those parts.
  if (composes_ && across_one_fabric(src, dst)) {
    const NodePart& up = up_parts_[static_cast<std::size_t>(src)];
    const NodePart& down = down_parts_[static_cast<std::size_t>(dst)];
    if (up.known && down.known)
      return {up.link_ids, down.link_ids, nullptr};
  }
  const Route& route = between(src, dst);
  const auto ids = route.link_ids;
  const auto [first, last] = fabric_part(ids);
  if (first == ids.end())
    return {{}, {}, &route}; // inside one node
  return {{ids.begin(), first}, {last, ids.end()}, nullptr};
}

const Route& Routes::over_path(int src, int dst, std::uint32_t path, std::span<const std::uint32_t> path_links,
                              const NodeEnds& ends) {
  const auto ranks = static_cast<std::uint64_t>(hosts_.size());
  const std::uint64_t pair = static_cast<std::uint64_t>(src) * ranks + static_cast<std::uint64_t>(dst);
  const auto found = found_route(path_routes_.find_or_add(pair * routing::Fabric::max_paths + path, route_count()));
  Route& route = found.first;
  if (!found.second)
    return route;
  const auto add = [&](std::uint32_t id) {
    append(route, id);
    route.latency_s += link_facts_[id].latency_s;
  };
  std::for_each(ends.up.begin(), ends.up.end(), add);
  for (std::uint32_t link : path_links) {
    if (fabric_ids_[link] == none) {
      fabric_ids_[link] = link_count();
      LinkFacts facts{fabric_available_[link], fabric_->link_latency_s(), {}, true};
      facts.per_byte.fabric = 1;
      link_facts_.push_back(facts);
    }
    add(fabric_ids_[link]);
  }
  std::for_each(ends.down.begin(), ends.down.end(), add);
  finish(route);
  return route;
}

std::vector<const Route*> Routes::spread(std::span<const collectives::Flow> flows) {
  std::vector<const Route*> routes;
  if (!fabric_) {
    for (const auto& flow : flows)
      routes.push_back(&between(flow.src, flow.dst));
    return routes;
  }
  // Each flow's links outside the fabric: its nodes' (a flow inside one node: its whole route's).
  std::vector<NodeEnds> ends;
  for (const auto& flow : flows)
    ends.push_back(node_ends(flow.src, flow.dst));
  std::vector<int> crossings(link_count(), 0); // of node links, by the flows
  for (const NodeEnds& e : ends)
    for (const auto part : {e.inside ? e.inside->link_ids : e.up, e.down})
      for (std::uint32_t id : part)
        ++crossings[id];
  std::vector<routing::Demand> demands;
  std::vector<std::size_t> routed; // the flows in demands
  for (std::size_t f = 0; f < flows.size(); ++f) {
    if (ends[f].inside)
      continue;
    double rate = fabric_->link_bandwidth_bytes_per_s(0); // a node's port into the fabric
    for (const auto part : {ends[f].up, ends[f].down})
      for (std::uint32_t id : part)
        rate = std::min(rate, link_facts_[id].bandwidth_bytes_per_s / crossings[id]);
    demands.push_back({slots_[static_cast<std::size_t>(flows[f].src)], slots_[static_cast<std::size_t>(flows[f].dst)], rate});
    routed.push_back(f);
  }
  routes.assign(flows.size(), nullptr);
  for (std::size_t f = 0; f < flows.size(); ++f)
    if (ends[f].inside)
      routes[f] = ends[f].inside;
  routing::spread(*fabric_, routing_, demands, seed_, fabric_available_, fabric_load_,
                  [&](std::size_t i, std::uint32_t path, std::span<const std::uint32_t> links) {
                    const std::size_t f = routed[i];
                    routes[f] = &over_path(flows[f].src, flows[f].dst, path, links, ends[f]);
                  });
  return routes;
}

std::vector<std::vector<char>> Routes::alone(const std::vector<std::vector<const Route*>>& routes) const {
  std::vector<int> crossings(link_count(), 0); // every link is met by now
  for (const auto& phase : routes)
    for (const Route* route : phase)
      for (std::uint32_t link : route->link_ids)
        ++crossings[link];
  std::vector<std::vector<char>> alone;
  for (const auto& phase : routes) {
    auto& flags = alone.emplace_back();
    for (const Route* route : phase) {
      const auto& links = route->link_ids;
      flags.push_back(!links.empty() && std::all_of(links.begin(), links.end(), [&](std::uint32_t link) {
                        return crossings[link] == 1;
                      }));
    }
  }
  return alone;
}

std::uint32_t SharingPaths::of(const Route& route, std::optional<double> sharing_penalty_s) {
  const auto [path, fresh] = [&]() -> std::pair<std::uint32_t*, bool> {
    if (sharing_penalty_s) {
      auto [it, added] = penalized_.try_emplace({&route, *sharing_penalty_s}, 0);
      return {&it->second, added};
    }
    if (route.id >= paths_.size())
      paths_.resize(route.id + 1, none);
    const bool added = paths_[route.id] == none;
    return {&paths_[route.id], added};
  }();
  if (!fresh)
    return *path;
  if (!sharable(route))
    throw std::logic_error("SharingPaths::of: a route FlowSharing cannot share");
  std::vector<std::uint32_t> links;
  for (std::uint32_t id : route.link_ids)
    links.push_back(link(id));
  *path = sharing_.add_path(links, route.latency_s, sharing_penalty_s);
  return *path;
}

std::uint32_t SharingPaths::of_pipeline(std::span<const Route* const> edges, std::optional<double> sharing_penalty_s) {
  std::vector<std::uint32_t> paths;
  for (const Route* route : edges)
    paths.push_back(of(*route));
  return sharing_.add_pipeline(paths, sharing_penalty_s);
}

std::uint32_t SharingPaths::link(std::uint32_t id) {
  if (id >= links_.size())
    links_.resize(id + 1, none);
  if (links_[id] == none)
    links_[id] = sharing_.add_link(bandwidth_of_(id));
  return links_[id];
}

} // namespace ceiling::replay
