// A fat-tree fabric as a SimGrid zone of our own, routing as SimGrid 3.32's FatTreeZone does.
#pragma once

#include "platform/platform_spec.hpp"

#include <simgrid/forward.h>

#include <functional>
#include <string>
#include <utility>

namespace ceiling::platform {

/// Builds the node at `slot` inside the fabric zone `fabric` and returns its netpoint (a node
/// zone, or a bare router) and, for a zone, its gateway.
using SlotBuilder = std::function<
    std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*>(
        simgrid::s4u::NetZone* fabric, long long slot)>;

/// The fat-tree `tree` as a zone named `name` below `parent` (nullptr: detached; give it its
/// models before its first slot needs them, attach it with set_parent, then seal it): every slot
/// built by `build_slot`, in slot order, then the cables, each direction a link of
/// `bandwidth_bytes_per_s` and `latency_s`.
///
/// What SimGrid 3.32's `create_fatTree_zone` builds, with the same links, names and routes:
/// its cables created in its order and named as it names them ("link_from_CHILD_PARENT_N_UP" and
/// "_DOWN", the nodes numbered from 0 and the switches from 2 x slots - 1 down), and its static
/// d-mod-k routes (routing::Fabric::simgrid_static_path). Built by arithmetic: SimGrid's builder
/// tests every element against every element of the level above (two million tests for 16,384
/// nodes under 128 switches, each constructing a string stream for a debug message, logging on
/// or off: 0.5 s), and numbers nodes and cables with counters of the process, so that only the
/// first fat-tree of a process routed as it should; here each zone numbers its own.
/// Neither loopback nor limiter links (SimGrid's builder takes them from its callbacks; the
/// machine gives none). tests/platform/network_test.cpp holds the two to each other, link for link.
simgrid::s4u::NetZone* create_fat_tree_zone(const std::string& name,
                                            const simgrid::s4u::NetZone* parent,
                                            const FatTree& tree, const SlotBuilder& build_slot,
                                            double bandwidth_bytes_per_s, double latency_s);

} // namespace ceiling::platform
