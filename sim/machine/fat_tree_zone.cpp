// A fat-tree fabric zone built by arithmetic, with the links, names and routes of SimGrid 3.32's
// FatTreeZone (src/kernel/routing/FatTreeZone.cpp of SimGrid v3.32).
#include "machine/fat_tree_zone.hpp"

#include "platform/topology.hpp"
#include "routing/fabric.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <stdexcept>
#include <vector>

namespace sg4 = simgrid::s4u;
namespace sgr = simgrid::kernel::routing;

namespace ceiling::platform {
namespace {

class FatTreeFabricZone final : public sgr::NetZoneImpl {
public:
  FatTreeFabricZone(const std::string& name, routing::Fabric fabric)
      : NetZoneImpl(name), fabric_(std::move(fabric)),
        slots_(static_cast<std::size_t>(fabric_.slot_count())),
        links_by_id_(fabric_.link_count(), nullptr) {}

  /// Records what the slot's builder made: `netpoint`, one of this zone's components, and its
  /// gateway (a node zone's; none for a host or a router), refused as FatTreeZone's builder
  /// refuses them (ClusterBase::fill_leaf_from_cb).
  void place(long long slot, const sgr::NetPoint* netpoint, sgr::NetPoint* gateway) {
    if (netpoint == nullptr || netpoint->get_englobing_zone() != this)
      throw std::logic_error("fat-tree zone " + get_name() + ": slot " + std::to_string(slot) +
                             " was given no netpoint of its own");
    if (netpoint->is_netzone() != (gateway != nullptr) ||
        (gateway != nullptr && gateway->is_netzone()))
      throw std::logic_error("fat-tree zone " + get_name() + ": slot " + std::to_string(slot) +
                             " (" + netpoint->get_name() +
                             "): a node zone needs a gateway, a host or a router none");
    if (netpoint->id() >= slot_of_component_.size())
      slot_of_component_.resize(netpoint->id() + 1, -1);
    slot_of_component_[netpoint->id()] = slot;
    slots_[static_cast<std::size_t>(slot)] = gateway;
  }

  void set_link(std::uint32_t id, const sg4::Link* link) { links_by_id_[id] = link; }

  /// As FatTreeZone::get_local_route: nothing to or from a router (a bare slot); between two
  /// slots (or from one to itself), the d-mod-k route, each link's latency added in order, and
  /// the slots' gateways.
  void get_local_route(const sgr::NetPoint* src, const sgr::NetPoint* dst, sgr::Route* into,
                       double* latency) override {
    if (src->is_router() || dst->is_router())
      return;
    const long long a = slot_of(src);
    const long long b = slot_of(dst);
    fabric_.simgrid_static_path(a, b, path_);
    for (std::uint32_t id : path_) {
      const sg4::Link* link = links_by_id_[id];
      into->link_list_.push_back(link->get_impl());
      if (latency != nullptr)
        *latency += link->get_latency();
    }
    into->gw_src_ = slots_[static_cast<std::size_t>(a)];
    into->gw_dst_ = slots_[static_cast<std::size_t>(b)];
  }

private:
  long long slot_of(const sgr::NetPoint* netpoint) const {
    const long long slot =
        netpoint->id() < slot_of_component_.size() ? slot_of_component_[netpoint->id()] : -1;
    if (slot < 0)
      throw std::logic_error("fat-tree zone " + get_name() + ": " + netpoint->get_name() +
                             " is none of its slots");
    return slot;
  }

  routing::Fabric fabric_;
  std::vector<sgr::NetPoint*> slots_; ///< each slot's gateway (nullptr: a host or a bare router)
  std::vector<long long> slot_of_component_;  ///< by netpoint id, -1 for none
  std::vector<const sg4::Link*> links_by_id_; ///< by the fabric's link id
  std::vector<std::uint32_t> path_;           ///< scratch
};

} // namespace

sg4::NetZone* create_fat_tree_zone(const std::string& name, const sg4::NetZone* parent,
                                   const FatTree& tree, const SlotBuilder& build_slot,
                                   double bandwidth_bytes_per_s, double latency_s) {
  if (!(bandwidth_bytes_per_s > 0) || !(latency_s >= 0))
    throw std::invalid_argument("create_fat_tree_zone: a link needs a positive bandwidth and a "
                                "latency of 0 or more, not " +
                                std::to_string(bandwidth_bytes_per_s) + " B/s and " +
                                std::to_string(latency_s) + " s");
  if (const auto problem = shape_problem(tree))
    throw std::invalid_argument("create_fat_tree_zone: " + *problem);
  InterconnectSpec net;
  net.topology = tree;
  net.link_bandwidth = units::Bandwidth::from_bytes_per_second(bandwidth_bytes_per_s);
  net.link_latency = units::Duration::from_seconds(latency_s);
  auto fabric = routing::Fabric::of(net);
  if (!fabric)
    throw std::logic_error("create_fat_tree_zone: not a fat-tree");
  const long long slots = fabric->slot_count();
  auto* zone = new FatTreeFabricZone(name, *fabric);
  if (parent != nullptr)
    zone->set_parent(parent->get_impl());
  sg4::NetZone* iface = zone->get_iface();
  for (long long slot = 0; slot < slots; ++slot) {
    const auto [netpoint, gateway] = build_slot(iface, slot);
    zone->place(slot, netpoint, gateway);
  }
  // The cables in FatTreeZone's order: level by level, each element's parents in turn (in the
  // order of their positions, the parent index `u`), each parent's cables in turn; each named
  // after SimGrid's ids of its two ends and the count of cables before it. An element of level 0
  // has its slot as id; the switches are numbered from 2 x slots - 1 down, level by level.
  std::vector<long long> first_id{0, 2 * slots - 1}; // of each level's element 0
  for (std::size_t k = 1; k < tree.down.size(); ++k)
    first_id.push_back(first_id[k] - fabric->fat_tree_elements(k));
  const auto id_of = [&](std::size_t k, long long element) {
    return k == 0 ? element : first_id[k] - element;
  };
  long long cable_count = 0;
  for (std::size_t k = 0; k < tree.down.size(); ++k) {
    const long long elements = fabric->fat_tree_elements(k);
    for (long long element = 0; element < elements; ++element)
      for (int u = 0; u < tree.up[k]; ++u) {
        const std::string ends =
            "link_from_" + std::to_string(id_of(k, element)) + "_" +
            std::to_string(id_of(k + 1, fabric->fat_tree_parent(k, element, u))) + "_";
        for (int cable = 0; cable < tree.links[k]; ++cable, ++cable_count) {
          const std::string link_name = ends + std::to_string(cable_count);
          for (bool down : {false, true}) {
            const auto* link =
                zone->create_link(link_name + (down ? "_DOWN" : "_UP"), {bandwidth_bytes_per_s})
                    ->set_latency(latency_s)
                    ->seal();
            zone->set_link(fabric->fat_tree_link(k, element, u, cable, down), link);
          }
        }
      }
  }
  return iface;
}

} // namespace ceiling::platform
