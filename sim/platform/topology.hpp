// Closed-form facts about a platform that need no simulation: sizes, peaks, bisection bandwidth.
#pragma once

#include "platform/platform_spec.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace ceiling::platform {

/// The most node slots a machine may have, and the most fabric cables and switches (parallel
/// links counted): platform files refuse more. A run builds about 20 KB per node (its hosts, PCIe
/// and NIC links, routes; 307 MB for the 16,384-node bench dragonfly) and more than 1 KB per cable
/// or switch, so these keep a machine within a few GB: 2^18 slots (16 times the largest bundled
/// machine), 2^22 cables and switches.
inline constexpr long long max_slots = 1LL << 18;
inline constexpr long long max_cables = 1LL << 22;

/// Node slots the topology provides (its leaves); 0 for a single switch, which has as many
/// ports as the machine has nodes. Above max_slots: max_slots + 1 (the product is not
/// computed further, so it never overflows).
long long slot_count(const Topology& t);

/// Node slots of the machine: its topology's, or its node count on a single switch.
long long slot_count(const PlatformSpec& spec);

/// The fat-tree SimGrid builds for the machine (Machine::build): its own, or a single switch as
/// one level with every slot below it; nullopt for a torus or a dragonfly.
std::optional<FatTree> simgrid_fat_tree(const PlatformSpec& spec);

/// The fabric's cables between switches and from nodes to them, parallel links counted, and its
/// switches (a close estimate where the topology's grouping leaves parts empty); above
/// max_cables: max_cables + 1 (computed in floating point: it never overflows).
long long cable_count(const PlatformSpec& spec);

/// Why `t` cannot be built by SimGrid 3.32, or nullopt when it can.
std::optional<std::string> shape_problem(const Topology& t);

/// The routing a topology gets when its file names none: adaptive on a dragonfly (Aries and
/// Slingshot route adaptively), SimGrid's static routing elsewhere.
Routing default_routing(const Topology& t);

/// Why `t` cannot be routed by `r`, or nullopt when it can: a torus and a single switch route
/// statically only (dimension order; one path).
std::optional<std::string> routing_problem(const Topology& t, Routing r);

/// Why a run of `nodes` cannot be placed on `spec`, or nullopt when it can.
std::optional<std::string> allocation_problem(const PlatformSpec& spec, long long nodes);

/// The node slots of a job of `nodes` on `spec` under `allocation`, ascending (rank r on the
/// r-th); `seed` draws Random. Requires allocation_problem() to be empty.
std::vector<long long> allocate(const PlatformSpec& spec, long long nodes, const Allocation& allocation,
                                std::uint64_t seed);

/// Why `allocation` of `nodes` cannot be made on `spec`, or nullopt (a List of the wrong length,
/// repeated, or beyond the machine's nodes).
std::optional<std::string> allocation_problem(const PlatformSpec& spec, long long nodes, const Allocation& allocation);

/// The slots of one domain of the topology, the unit Spread deals nodes over and job reports
/// count: a dragonfly group, the nodes below a fat-tree's lowest switch, a torus plane across
/// its last dimension; one slot on a single switch.
long long domain_size(const Topology& t);
/// The domains of the whole machine: its nodes over domain_size(), rounded up.
long long domain_count(const PlatformSpec& spec);
/// What a domain is called: "groups", "leaf switches", "planes", "nodes".
std::string_view domain_name(const Topology& t);

/// Peak of one node at `p`: CPU sockets plus all GPUs; nullopt when no device has `p`.
std::optional<units::FlopRate> node_peak(const NodeSpec& node, Precision p);

/// One node's fp64 peak as TOP500 counts it (R_peak): its CPU sockets at their nominal clock and
/// its GPUs at their base clock; nullopt but for GPU nodes whose file gives the base clock's peak
/// (elsewhere R_peak is node_peak's fp64).
std::optional<units::FlopRate> node_rpeak(const NodeSpec& node);

/// Bandwidth across the worst cut that splits `nodes` allocated nodes in two halves, one
/// direction, counting fabric links and node injection (the smaller wins). Formulas per topology
/// are in topology.cpp; for N = 1 it is zero.
units::Bandwidth bisection_bandwidth(const PlatformSpec& spec, long long nodes);

/// What one node can inject into the fabric, one direction: its NIC or its cables to the fabric,
/// whichever is less (a fat-tree node's up[0] x links[0] cables; a torus node's own torus
/// links, one per distinct neighbour: SimGrid joins torus nodes directly; one elsewhere).
units::Bandwidth injection_bandwidth(const PlatformSpec& spec);

} // namespace ceiling::platform
