// The fabric as the replay routes it: every direction of every cable between routers and node
// ports as a link, cabled as the real machines are, and the paths between two node slots.
#pragma once

#include "platform/platform_spec.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace ceiling::routing {

/// A path through the fabric, from the source slot's port into its router to the destination
/// router's port into the destination slot.
struct Path {
  std::vector<std::uint32_t> links; ///< fabric link ids, in order
  int router_hops = 0;              ///< router-to-router links: UGAL's hop count
  bool minimal = true;
};

namespace detail {
/// A dragonfly's sizes and where each kind of link's ids begin (nodes' ports from 0).
struct DragonflyShape {
  platform::Dragonfly d;
  long long routers = 0;
  std::uint32_t green = 0, black = 0, global = 0;
  /// Where each router sits, by router index: looked up rather than divided out, since routing
  /// a large machine asks for it hundreds of millions of times.
  struct Place {
    std::uint32_t group, chassis, position;
  };
  std::vector<Place> places;
};
/// A fat-tree's sizes per level k (0: the nodes) and where its links' ids begin.
struct FatTreeShape {
  platform::FatTree f;
  std::vector<long long> below;       ///< slots below one element of level k: prod(down[0..k-1])
  std::vector<long long> choices;     ///< up choices below level k: prod(up[0..k-1])
  std::vector<long long> elements;    ///< elements of level k
  std::vector<long long> cables;      ///< cable choices below level k: prod(links[0..k-1])
  /// First id of level k's up links (element by element, parent by parent, cable by cable); its
  /// down links follow.
  std::vector<std::uint32_t> up_base;
};
} // namespace detail

/// The links of a dragonfly or a fat-tree and the paths between node slots, for routing that
/// SimGrid 3.32's builders cannot do (platform::Routing::Adaptive and Ecmp), and a fat-tree's
/// static routes as SimGrid computes them (simgrid_static_path), which Routes composes without it. Each direction
/// of a cable is its own link; k parallel cables between two dragonfly routers are one link of k
/// times the bandwidth, as in SimGrid's DragonflyZone, except the global cables, which are spread
/// over routers one by one; a fat-tree's parallel cables are links of their own, as in SimGrid's
/// FatTreeZone, a path taking one of them at each level. Link latency is the interconnect's, per link.
///
/// Dragonfly (Cray Aries, as Piz Daint is cabled; platforms/README.md): router q of a chassis
/// has a green link to every other router of its chassis, a black link to the router in its
/// position in every other chassis of its group; the global cables of a group, `global_links`
/// towards each other group, are dealt round-robin over all its routers (peer groups in order,
/// cable by cable), instead of all sitting on chassis 0 as in SimGrid's builder. Minimal
/// paths: inside a group green then black, or black then green; between groups one per global
/// cable joining them. Non-minimal (Valiant) paths: inside a group through each other router of
/// the source chassis (then black first, each over a black link of its own); between groups
/// through each third group, on cables picked by a seeded hash. Where cables and third groups
/// outnumber max_paths, each kind is an even sample of them (fabric.cpp, dragonfly_paths); the
/// minimal paths alone are always the first paths of the whole list.
///
/// Fat-tree (the extended generalised fat-tree of SimGrid's FatTreeZone): a level-k element is
/// known by its pod (slot / down[0] x ... x down[k-1]) and its up choices below it; it has up[k]
/// parents, `links[k]` cables to each. Minimal paths climb to the lowest level whose pod holds
/// both slots, by any up choices and cables, and come down the only way (on the cables of the
/// same index); there are no non-minimal paths.
class Fabric {
public:
  /// The fabric of `net`, or nullopt for a single switch or a torus (static routing only).
  static std::optional<Fabric> of(const platform::InterconnectSpec& net);

  std::uint32_t link_count() const { return link_count_; }
  double link_bandwidth_bytes_per_s(std::uint32_t id) const;
  double link_latency_s() const { return latency_s_; }
  /// Where link `id` sits: a node's port, inside, or between dragonfly groups.
  platform::FabricLinkKind link_kind(std::uint32_t id) const;
  /// What the link is, e.g. "global group 0->3 #5" or "up level 1 element 7": for messages and tests.
  std::string link_name(std::uint32_t id) const;
  long long slot_count() const { return slots_; }

  /// The fabric links of the route SimGrid 3.32's FatTreeZone gives slot `a` to slot `b` (both
  /// below slot_count(); a slot to itself goes up to its leaf switch and back, as a FatTreeZone
  /// without loopback links routes it) under static routing, into `out` (cleared first); false, `out`
  /// empty, where the fabric is not a fat-tree. As its get_local_route walks them, slots being
  /// its leaves' positions (it numbers them with a counter of the process, so that only a
  /// process's first fat-tree has the slots as positions; platform::create_fat_tree_zone builds
  /// the machines' fat-trees with these routes, each numbering its own):
  /// - up: at each level l below the lowest that holds both, the port
  ///   (b / (up[0] x ... x up[l-1])) mod (up[l] x links[l]), which is parent
  ///   port mod up[l] on cable port / up[l];
  /// - down: from that switch, at each level the child link (b's digit there) on cable
  ///   a mod links[l-1], where its loop over the switch's child ports starts; the loop goes on
  ///   over the next switch's ports from the port after the one taken (that code does not restart
  ///   it), so a cable after the first may be taken further down; only where it passes that
  ///   switch's last port does it start again there, on cable a mod links[l-1].
  /// Routes learns which of SimGrid's links each id stands for from the routes SimGrid gives it
  /// (read whole, or the fabric parts compose() asks for), and tests/platform/network_test.cpp
  /// holds what it composes to SimGrid's routes.
  bool simgrid_static_path(long long a, long long b, std::vector<std::uint32_t>& out) const;

  /// A fat-tree's elements of level k (0: the slots, then the switches level by level), each
  /// numbered as SimGrid's FatTreeZone positions it: the parents taken below level k (its label's
  /// first k digits) vary fastest, then the pod. 0 where the fabric is not a fat-tree or k is past
  /// its top level.
  long long fat_tree_elements(std::size_t k) const;
  /// The element of level k + 1 that is parent `u` (0 to up[k] - 1) of level k's `element`.
  long long fat_tree_parent(std::size_t k, long long element, long long u) const;
  /// The link from level k's `element` up to its parent `u` on `cable` (0 to links[k] - 1), or
  /// down that cable (`down`).
  std::uint32_t fat_tree_link(std::size_t k, long long element, long long u, long long cable, bool down) const;

  /// The most paths paths() returns for one pair.
  static constexpr std::size_t max_paths = 64;

  /// Which of a pair's paths paths() gives: all, the minimal ones (the first of all), or the
  /// others (those after them, which routing asks for when the minimal ones are congested).
  enum class Kinds { All, Minimal, NonMinimal };

  /// The paths from slot `a` to slot `b` (a != b, both below slot_count()): the minimal ones
  /// first, then the non-minimal ones; at most max_paths, always in the same order for the same
  /// `a`, `b` and `salt`, and only the first `at_most` of them; of those, the `kinds` asked for
  /// (NonMinimal: the list from its first non-minimal path). They live in `scratch`, whose paths
  /// and their memory the next call reuses (routing a large machine asks for millions).
  std::span<const Path> paths(long long a, long long b, std::uint64_t salt, std::vector<Path>& scratch,
                              Kinds kinds = Kinds::All, std::size_t at_most = max_paths) const;

private:
  using DragonflyShape = detail::DragonflyShape;
  using FatTreeShape = detail::FatTreeShape;

  /// The paths of one call of paths(), written over scratch's from the first; the minimal ones
  /// only counted, not written, unless `minimal` (and the others unless `others`).
  struct Paths {
    std::vector<Path>& scratch;
    std::size_t at_most;
    bool minimal = true, others = true;
    std::size_t count = 0;   ///< paths of the whole list so far
    std::size_t written = 0; ///< of which in scratch
    bool full() const { return count >= at_most; }
    /// Whether the next path, of the kind `is_minimal`, is to be written: if not, it is counted.
    bool wants(bool is_minimal) {
      if (is_minimal ? minimal : others)
        return true;
      ++count;
      return false;
    }
    /// The next path, empty.
    Path& next(bool minimal);
  };

  Fabric() = default;
  void dragonfly_paths(const DragonflyShape& s, long long a, long long b, std::uint64_t salt, Paths& out) const;
  void fat_tree_paths(const FatTreeShape& s, long long a, long long b, std::uint64_t salt, Paths& out) const;

  std::variant<DragonflyShape, FatTreeShape> shape_;
  long long slots_ = 0;
  std::uint32_t link_count_ = 0;
  double bandwidth_ = 0; ///< one cable, bytes per second
  double latency_s_ = 0;
};

/// A 64-bit mix of `values` (splitmix64's finaliser chained): the seeded hash of the choices
/// that ECMP and Valiant routing make, the same on every machine.
std::uint64_t mix(std::uint64_t seed, std::initializer_list<long long> values);

} // namespace ceiling::routing
