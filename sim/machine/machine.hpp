// A PlatformSpec built as SimGrid netzones, with the N allocated nodes indexed by rank.
#pragma once

#include "platform/platform_spec.hpp"

#include <simgrid/forward.h>

#include <optional>
#include <string>
#include <vector>

namespace ceiling::platform {

/// The SimGrid resources of one node. Entities belong to the engine; these are handles.
struct NodeHosts {
  simgrid::s4u::Host* cpu = nullptr;
  std::vector<simgrid::s4u::Host*> gpus;
};

/// The machine inside the engine. The whole fabric of the topology is built (so routes are
/// those of the whole machine); the job's N nodes sit on the slots it was allocated (node r on
/// the r-th slot, platform::allocate()), and only those slots hold nodes (the others are bare
/// routers: nothing runs there).
///
/// Each node is a small full-routing zone: a CPU host (speed = all sockets' peak), one host per
/// GPU, one split-duplex PCIe link per GPU (UP = device to host), an optional GPU link per GPU
/// to an in-node switch, a router as the node's gateway behind the split-duplex NIC link
/// (UP = out of the node), and a shared host-memory link for transfers from the CPU to itself. Host pstates are the precisions the device has, in fp64, fp32,
/// fp16 order; cpu_pstate_of() and gpu_pstate_of() map one to the other.
class Machine {
public:
  /// Builds `spec` in the engine (start_engine() first) with nodes on `slots` (ascending,
  /// distinct, below spec.nodes: platform::allocate() makes them). The spec must be valid.
  static Machine build(const PlatformSpec& spec, std::vector<long long> slots);
  /// The same on slots 0 to `nodes` - 1 (allocation_problem() empty).
  static Machine build(const PlatformSpec& spec, long long nodes);

  long long size() const { return static_cast<long long>(ranks_.size()); }
  const NodeHosts& node(long long rank) const { return ranks_.at(static_cast<std::size_t>(rank)); }
  /// The slot node `rank` of the job sits on.
  long long slot(long long rank) const { return slots_.at(static_cast<std::size_t>(rank)); }
  const PlatformSpec& spec() const { return spec_; }

  /// The host pstate that runs at precision `p`, or nullopt when the device lacks it.
  std::optional<int> cpu_pstate_of(Precision p) const;
  std::optional<int> gpu_pstate_of(Precision p) const;

  /// Name of the node that rank `rank` sits on: its slot ("node0042"), as in host and link names.
  std::string node_name(long long rank) const { return slot_name(slot(rank)); }

private:
  std::string slot_name(long long slot) const;

  PlatformSpec spec_;
  std::vector<NodeHosts> ranks_;
  std::vector<long long> slots_;
};

/// What a link of a Machine carries, read from the name Machine::build gave it.
enum class LinkClass { Pcie, Nic, GpuLink, HostMemory, Fabric };
LinkClass link_class(const simgrid::s4u::Link& link);

/// Where a Fabric-class `link` of a machine built from `spec` sits, read from the name its builder gave it (SimGrid's,
/// or create_fat_tree_zone's, which names as SimGrid's does):
/// a dragonfly's local links are node ports, its blue links global; a fat-tree's links from a
/// node (the builder numbers nodes first) are node ports; a torus has none.
FabricLinkKind fabric_link_kind(const simgrid::s4u::Link& link, const PlatformSpec& spec);

/// Route latency and links from `src` to `dst`, as SimGrid resolves them.
struct RouteInfo {
  double latency_s = 0;
  std::vector<std::string> link_names; ///< in order; split-duplex halves end in _UP or _DOWN
  double bottleneck_bytes_per_s = 0;   ///< smallest link bandwidth on the route
};
RouteInfo route_between(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst);

} // namespace ceiling::platform

namespace ceiling::platform {

/// Smallest and largest node-to-node route latency (CPU host to CPU host, so NIC and fabric
/// without PCIe) over ordered pairs of distinct ranks. Exact when every rank can be a source
/// (size() <= max_sources); otherwise `max_sources` evenly spaced ranks are the sources and
/// every rank a destination, and `sampled` is true. Zero for one node.
struct LatencyRange {
  double min_s = 0;
  double max_s = 0;
  long long sources = 0;
  bool sampled = false;
};
LatencyRange route_latency_range(const Machine& machine, long long max_sources);

} // namespace ceiling::platform
