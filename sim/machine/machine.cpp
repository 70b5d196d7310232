// Building the machine: one full-routing zone per node, nested in the fabric's zone (SimGrid's
// torus and dragonfly zones, our fat-tree zone: fat_tree_zone.hpp).
#include "machine/machine.hpp"

#include "machine/fat_tree_zone.hpp"
#include "platform/topology.hpp"

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <string_view>

namespace sg4 = simgrid::s4u;
using NetPoint = simgrid::kernel::routing::NetPoint;
using Direction = sg4::LinkInRoute::Direction;

namespace ceiling::platform {
namespace {

/// The precisions a device has, in pstate order.
std::vector<Precision> pstate_precisions(const PeakRates& peaks) {
  std::vector<Precision> order;
  for (Precision p : all_precisions)
    if (peaks.at(p))
      order.push_back(p);
  return order;
}

std::vector<double> pstate_speeds(const PeakRates& peaks, double multiplier) {
  std::vector<double> speeds;
  for (Precision p : pstate_precisions(peaks))
    speeds.push_back(peaks.at(p)->flop_per_second() * multiplier);
  return speeds;
}

std::optional<int> index_of(const std::vector<Precision>& order, Precision p) {
  const auto it = std::find(order.begin(), order.end(), p);
  if (it == order.end())
    return std::nullopt;
  return static_cast<int>(it - order.begin());
}

// Link names end with what the link is; link_class() reads them back.
constexpr std::string_view nic_suffix = "-nic";
constexpr std::string_view memory_suffix = "-memory";
constexpr std::string_view pcie_suffix = "-pcie";
constexpr std::string_view gpu_link_suffix = "-gpulink";

sg4::SplitDuplexLink* duplex_link(sg4::NetZone* zone, const std::string& name, double up_bytes_per_s,
                                  double down_bytes_per_s, double latency_s) {
  auto* link = zone->create_split_duplex_link(name, up_bytes_per_s);
  link->set_latency(latency_s);
  link->get_link_down()->set_bandwidth(down_bytes_per_s);
  link->seal();
  return link;
}

/// The links inside one node. They are created before any node zone exists, in one zone of
/// their own: SimGrid 3.32 checks every new link's name against every zone of the tree, so
/// links created after thousands of node zones made building Piz Daint take 24 s instead of 1.
struct NodeLinks {
  sg4::SplitDuplexLink* nic = nullptr;
  sg4::Link* memory = nullptr;                 // host memory, for CPU-to-itself transfers
  std::vector<sg4::SplitDuplexLink*> pcie;     // UP = device to host
  std::vector<sg4::SplitDuplexLink*> gpu_link; // per GPU to the switch; empty without one
  /// A mesh's links, by GPU pair (lower index first; UP = from the lower to the higher).
  std::map<std::pair<int, int>, sg4::SplitDuplexLink*> gpu_pairs;
};

NodeLinks create_node_links(const NodeSpec& node, sg4::NetZone* zone, const std::string& name) {
  NodeLinks links;
  links.nic = duplex_link(zone, name + std::string(nic_suffix), node.nic.bandwidth.bytes_per_second(),
                          node.nic.bandwidth.bytes_per_second(), node.nic.latency.seconds());
  // Both directions of a memory copy share the memory bus.
  links.memory = zone->create_link(name + std::string(memory_suffix), node.cpu.memory_bandwidth_per_socket.bytes_per_second() *
                                                         node.cpu.sockets);
  links.memory->set_latency(0)->seal();
  for (int k = 0; node.gpu && k < node.gpu->count; ++k) {
    const std::string gpu_name = name + "-gpu" + std::to_string(k);
    links.pcie.push_back(duplex_link(zone, gpu_name + std::string(pcie_suffix),
                                     node.pcie->device_to_host.bytes_per_second(),
                                     node.pcie->host_to_device.bytes_per_second(),
                                     node.pcie->latency.seconds()));
    if (node.gpu_link && node.gpu_link->pairs.empty())
      links.gpu_link.push_back(duplex_link(zone, gpu_name + std::string(gpu_link_suffix),
                                           node.gpu_link->bandwidth.bytes_per_second(),
                                           node.gpu_link->bandwidth.bytes_per_second(),
                                           node.gpu_link->latency.seconds()));
  }
  if (node.gpu_link && !node.gpu_link->pairs.empty()) {
    // A pair listed n times has n links: one SimGrid link of n times the bandwidth.
    std::map<std::pair<int, int>, int> count;
    for (auto [j, k] : node.gpu_link->pairs_among(node.gpu->count))
      ++count[{std::min(j, k), std::max(j, k)}];
    for (const auto& [pair, n] : count) {
      const double bytes_per_s = n * node.gpu_link->bandwidth.bytes_per_second();
      links.gpu_pairs[pair] = duplex_link(zone,
                                          name + "-gpu" + std::to_string(pair.first) + "-gpu" +
                                              std::to_string(pair.second) + std::string(gpu_link_suffix),
                                          bytes_per_s, bytes_per_s, node.gpu_link->latency.seconds());
    }
  }
  return links;
}

/// Builds node `name` inside `cluster` and returns (zone netpoint, gateway).
std::pair<NetPoint*, NetPoint*> build_node(const NodeSpec& node, const NodeLinks& links,
                                           sg4::NetZone* cluster, const std::string& name,
                                           NodeHosts& hosts) {
  auto* zone = sg4::create_full_zone(name);
  zone->set_parent(cluster);

  hosts.cpu = zone->create_host(name + "-cpu", pstate_speeds(node.cpu.peak_per_socket, node.cpu.sockets));
  hosts.cpu->set_property("cores", std::to_string(node.cpu.sockets * node.cpu.cores_per_socket));
  hosts.cpu->seal();
  NetPoint* cpu = hosts.cpu->get_netpoint();
  NetPoint* nic = zone->create_router(name + "-nic");
  zone->add_route(cpu, nic, nullptr, nullptr, {{links.nic, Direction::UP}}, false);
  zone->add_route(nic, cpu, nullptr, nullptr, {{links.nic, Direction::DOWN}}, false);
  // Data that GPUs of one node exchange through host memory stays there (host staging).
  zone->add_route(cpu, cpu, nullptr, nullptr, {{links.memory, Direction::NONE}}, false);

  for (std::size_t k = 0; k < links.pcie.size(); ++k) {
    sg4::Host* gpu_host =
        zone->create_host(name + "-gpu" + std::to_string(k), pstate_speeds(node.gpu->peak, 1.0));
    gpu_host->seal();
    hosts.gpus.push_back(gpu_host);
    NetPoint* gpu = gpu_host->get_netpoint();
    zone->add_route(gpu, cpu, nullptr, nullptr, {{links.pcie[k], Direction::UP}}, false);
    zone->add_route(cpu, gpu, nullptr, nullptr, {{links.pcie[k], Direction::DOWN}}, false);
    // Off-node traffic of a GPU crosses its PCIe link, then the NIC.
    zone->add_route(gpu, nic, nullptr, nullptr,
                    {{links.pcie[k], Direction::UP}, {links.nic, Direction::UP}}, false);
    zone->add_route(nic, gpu, nullptr, nullptr,
                    {{links.nic, Direction::DOWN}, {links.pcie[k], Direction::DOWN}}, false);
  }
  // GPU to GPU: over their pair's link in a mesh; else through the switch's GPU links; without
  // either, through the host's root complex (the two PCIe links).
  const auto& via = links.gpu_link.empty() ? links.pcie : links.gpu_link;
  for (std::size_t j = 0; j < hosts.gpus.size(); ++j)
    for (std::size_t k = 0; k < hosts.gpus.size(); ++k) {
      if (j == k)
        continue;
      std::vector<sg4::LinkInRoute> route{{via[j], Direction::UP}, {via[k], Direction::DOWN}};
      const auto pair = links.gpu_pairs.find({static_cast<int>(std::min(j, k)), static_cast<int>(std::max(j, k))});
      if (pair != links.gpu_pairs.end())
        route = {{pair->second, j < k ? Direction::UP : Direction::DOWN}};
      zone->add_route(hosts.gpus[j]->get_netpoint(), hosts.gpus[k]->get_netpoint(), nullptr, nullptr, route, false);
    }
  zone->seal();
  return {zone->get_netpoint(), nic};
}

/// Gives the detached `zone` the models of `from`, as NetZoneImpl::set_parent() would: a node
/// zone takes its models from its parent when it is attached, so the fabric needs them first.
void adopt_models(sg4::NetZone* zone, const sg4::NetZone* from) {
  auto* impl = zone->get_impl();
  const auto* source = from->get_impl();
  impl->set_network_model(source->get_network_model());
  impl->set_cpu_pm_model(source->get_cpu_pm_model());
  impl->set_cpu_vm_model(source->get_cpu_vm_model());
  impl->set_disk_model(source->get_disk_model());
  impl->set_host_model(source->get_host_model());
}

} // namespace

LinkClass link_class(const simgrid::s4u::Link& link) {
  std::string_view name = link.get_name();
  for (std::string_view half : {"_UP", "_DOWN"}) // split-duplex halves
    if (name.ends_with(half))
      name.remove_suffix(half.size());
  if (name.ends_with(pcie_suffix))
    return LinkClass::Pcie;
  if (name.ends_with(nic_suffix))
    return LinkClass::Nic;
  if (name.ends_with(gpu_link_suffix))
    return LinkClass::GpuLink;
  if (name.ends_with(memory_suffix))
    return LinkClass::HostMemory;
  return LinkClass::Fabric;
}

FabricLinkKind fabric_link_kind(const simgrid::s4u::Link& link, const PlatformSpec& spec) {
  const std::string_view name = link.get_name();
  const Topology& t = spec.interconnect.topology;
  if (std::holds_alternative<Dragonfly>(t))
    return name.starts_with("local_link") ? FabricLinkKind::NodePort
           : name.starts_with("blue_link") ? FabricLinkKind::Global
                                           : FabricLinkKind::Inside;
  if (std::holds_alternative<Torus>(t))
    return FabricLinkKind::Inside;
  // Fat-trees and the single switch: "link_from_CHILD_PARENT_N", nodes numbered 0 to slots - 1.
  constexpr std::string_view prefix = "link_from_";
  if (!name.starts_with(prefix))
    return FabricLinkKind::Inside;
  const std::string child(name.substr(prefix.size(), name.find('_', prefix.size()) - prefix.size()));
  return std::stoll(child) < slot_count(spec) ? FabricLinkKind::NodePort : FabricLinkKind::Inside;
}

std::string Machine::slot_name(long long slot) const {
  // Zero-padded, so that SimGrid's by-name host order is the slot order (and the rank order).
  const long long slots = slot_count(spec_);
  const int width = static_cast<int>(std::to_string(std::max<long long>(slots - 1, 0)).size());
  char text[32];
  std::snprintf(text, sizeof text, "node%0*lld", width, slot);
  return text;
}

Machine Machine::build(const PlatformSpec& spec, long long nodes) {
  std::vector<long long> slots(static_cast<std::size_t>(nodes));
  std::iota(slots.begin(), slots.end(), 0LL);
  return build(spec, std::move(slots));
}

Machine Machine::build(const PlatformSpec& spec, std::vector<long long> allocated) {
  Machine machine;
  machine.spec_ = spec;
  machine.slots_ = std::move(allocated);
  const Topology& topology = spec.interconnect.topology;
  const long long slots = slot_count(spec);
  const auto nodes = static_cast<long long>(machine.slots_.size());
  std::vector<NodeHosts> by_rank(static_cast<std::size_t>(nodes));
  std::vector<long long> rank_of_slot(static_cast<std::size_t>(std::max(slots, machine.slots_.empty() ? 0 : machine.slots_.back() + 1)), -1);
  for (long long r = 0; r < nodes; ++r)
    rank_of_slot.at(static_cast<std::size_t>(machine.slots_[static_cast<std::size_t>(r)])) = r;

  auto* root = sg4::create_empty_zone("machine");
  auto* link_zone = sg4::create_empty_zone("node-links");
  link_zone->set_parent(root);
  std::vector<NodeLinks> links_by_rank;
  for (long long r = 0; r < nodes; ++r)
    links_by_rank.push_back(create_node_links(spec.node, link_zone, machine.node_name(r)));
  link_zone->seal();

  // The fabric is built detached from the root and attached once its node zones are sealed.
  // SimGrid 3.32 walks the tree below the root for every new host's name and every new link's
  // name, and for every zone sealed (it collects the engine's hosts to seal them): with the
  // nodes under the root, building was quadratic in the nodes (16,384: 13-24 s). Detached,
  // each walk sees the root and the node links only (so SimGrid no longer checks names inside
  // the fabric against each other: ours are unique by construction, node slot names and
  // the fabric builders' names). The tree, the order in which everything is created and so
  // every route are those of the fabric built in place (tests/platform/routes_golden/). A
  // fat-tree is built by create_fat_tree_zone, whose links, names and routes are SimGrid's
  // FatTreeZone's, without its two million tests of which switch is whose parent.
  //
  // A slot without a rank is a bare router: the fabric and its routes between the allocated
  // slots are the whole machine's, and no transfer ever ends there.
  const SlotBuilder build_slot = [&](sg4::NetZone* cluster, long long slot) -> std::pair<NetPoint*, NetPoint*> {
    if (!cluster->get_impl()->get_network_model()) // the first leaf: before any node zone
      adopt_models(cluster, root);
    const auto at = static_cast<std::size_t>(slot);
    const long long rank = at < rank_of_slot.size() ? rank_of_slot[at] : -1;
    if (rank < 0)
      return {cluster->create_router(machine.slot_name(slot) + "-empty"), nullptr};
    return build_node(spec.node, links_by_rank.at(static_cast<std::size_t>(rank)), cluster, machine.slot_name(slot),
                      by_rank.at(static_cast<std::size_t>(rank)));
  };
  const sg4::ClusterCallbacks callbacks(
      [&](sg4::NetZone* cluster, const std::vector<unsigned long>&, unsigned long id) {
        return build_slot(cluster, static_cast<long long>(id));
      });
  const double bw = spec.interconnect.link_bandwidth.bytes_per_second();
  const double lat = spec.interconnect.link_latency.seconds();
  const auto policy = sg4::Link::SharingPolicy::SPLITDUPLEX;

  sg4::NetZone* fabric = nullptr;
  if (const auto f = simgrid_fat_tree(spec)) { // (one crossbar: a one-level fat-tree)
    fabric = create_fat_tree_zone("fabric", nullptr, *f, build_slot, bw, lat);
  } else if (const auto* t = std::get_if<Torus>(&topology)) {
    fabric = sg4::create_torus_zone("fabric", nullptr,
                                    std::vector<unsigned long>(t->dimensions.begin(), t->dimensions.end()),
                                    callbacks, bw, lat, policy);
  } else if (const auto* d = std::get_if<Dragonfly>(&topology)) {
    const auto u = [](int v) { return static_cast<unsigned int>(v); };
    fabric = sg4::create_dragonfly_zone(
        "fabric", nullptr,
        {{u(d->groups), u(d->global_links)}, {u(d->chassis_per_group), u(d->chassis_links)},
         {u(d->routers_per_chassis), u(d->router_links)}, u(d->nodes_per_router)},
        callbacks, bw, lat, policy);
  }
  // Sealing the fabric seals its node zones again (a no-op) and the engine's hosts once.
  fabric->set_parent(root);
  fabric->seal();
  root->seal();

  machine.ranks_ = std::move(by_rank);
  return machine;
}

std::optional<int> Machine::cpu_pstate_of(Precision p) const {
  return index_of(pstate_precisions(spec_.node.cpu.peak_per_socket), p);
}

std::optional<int> Machine::gpu_pstate_of(Precision p) const {
  if (!spec_.node.gpu)
    return std::nullopt;
  return index_of(pstate_precisions(spec_.node.gpu->peak), p);
}

RouteInfo route_between(const sg4::Host* src, const sg4::Host* dst) {
  std::vector<sg4::Link*> links;
  RouteInfo info;
  src->route_to(dst, links, &info.latency_s);
  info.bottleneck_bytes_per_s = links.empty() ? 0 : std::numeric_limits<double>::infinity();
  for (const sg4::Link* link : links) {
    info.link_names.push_back(link->get_name());
    info.bottleneck_bytes_per_s = std::min(info.bottleneck_bytes_per_s, link->get_bandwidth());
  }
  return info;
}

LatencyRange route_latency_range(const Machine& machine, long long max_sources) {
  LatencyRange range;
  const long long n = machine.size();
  if (n < 2)
    return range;
  range.sources = std::min(n, max_sources);
  range.sampled = range.sources < n;
  range.min_s = std::numeric_limits<double>::infinity();
  std::vector<sg4::Link*> links;
  for (long long s = 0; s < range.sources; ++s) {
    const long long src = s * n / range.sources;
    for (long long dst = 0; dst < n; ++dst) {
      if (dst == src)
        continue;
      double latency = 0;
      links.clear();
      machine.node(src).cpu->route_to(machine.node(dst).cpu, links, &latency);
      range.min_s = std::min(range.min_s, latency);
      range.max_s = std::max(range.max_s, latency);
    }
  }
  return range;
}

} // namespace ceiling::platform
