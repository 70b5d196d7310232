// The fabric's links and paths against their counts in closed form, and how flows spread.
#include "routing/fabric.hpp"
#include "routing/spread.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>

using namespace ceiling;
using routing::Fabric;
using routing::Path;

namespace {

constexpr double cable_bytes_per_s = 25e9;

/// generic-dragonfly's shape: 4 groups of 2 chassis of 4 routers of 2 nodes, 2 cables per group pair.
platform::InterconnectSpec dragonfly(int global_links = 2) {
  return {.topology = platform::Dragonfly{.groups = 4, .global_links = global_links, .chassis_per_group = 2,
                                          .chassis_links = 1, .routers_per_chassis = 4, .router_links = 1,
                                          .nodes_per_router = 2},
          .link_bandwidth = units::Bandwidth::from_bytes_per_second(cable_bytes_per_s),
          .link_latency = units::Duration::from_seconds(100e-9),
          .routing = platform::Routing::Adaptive};
}

/// Two levels: 4 leaves of 4 nodes, each leaf with 4 up-links to 4 spines.
platform::InterconnectSpec fat_tree() {
  return {.topology = platform::FatTree{.down = {4, 4}, .up = {1, 4}, .links = {1, 1}},
          .link_bandwidth = units::Bandwidth::from_bytes_per_second(cable_bytes_per_s),
          .link_latency = units::Duration::from_seconds(100e-9),
          .routing = platform::Routing::Ecmp};
}

std::vector<Path> paths(const Fabric& f, long long a, long long b) {
  std::vector<Path> scratch;
  const auto found = f.paths(a, b, 1, scratch);
  return {found.begin(), found.end()};
}

long long minimal_count(const std::vector<Path>& p) {
  return std::count_if(p.begin(), p.end(), [](const Path& x) { return x.minimal; });
}

/// 300 flows between random slots of the small dragonfly, at 0.2 to 1 of a cable: many congested.
std::vector<routing::Demand> random_demands() {
  std::vector<routing::Demand> demands;
  std::uint64_t x = 12345;
  const auto next = [&] { return (x = x * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  while (demands.size() < 300) {
    const auto a = static_cast<long long>(next() % 64), b = static_cast<long long>(next() % 64);
    if (a != b)
      demands.push_back({a, b, (0.2 + 0.2 * static_cast<double>(next() % 5)) * cable_bytes_per_s});
  }
  return demands;
}

} // namespace

TEST_CASE("a dragonfly fabric has a port each way per node, green, black and global links by the shape") {
  const auto f = *Fabric::of(dragonfly());
  const long long slots = 64, routers = 32;
  // 2 per node + routers x routers_per_chassis green + routers x chassis black + groups^2 x cables.
  CHECK(f.link_count() == 2 * slots + routers * 4 + routers * 2 + 4 * 4 * 2);
  CHECK(f.slot_count() == slots);
  CHECK(f.link_bandwidth_bytes_per_s(0) == cable_bytes_per_s);
}

TEST_CASE("two nodes on one router have one path, through the router alone") {
  const auto f = *Fabric::of(dragonfly());
  const auto p = paths(f, 0, 1);
  REQUIRE(p.size() == 1);
  CHECK(p[0].links.size() == 2);
  CHECK(p[0].router_hops == 0);
}

TEST_CASE("routers of one chassis: one green hop, or two through each other router of the chassis") {
  const auto f = *Fabric::of(dragonfly());
  const auto p = paths(f, 0, 2); // routers 0 and 1
  CHECK(minimal_count(p) == 1);
  CHECK(p.size() == 1 + 2); // routers 2 and 3 of the chassis
  CHECK(p[0].router_hops == 1);
  for (std::size_t i = 1; i < p.size(); ++i)
    CHECK(p[i].router_hops == 2);
}

TEST_CASE("routers of two chassis: Valiant paths each cross a black link of their own") {
  const auto f = *Fabric::of(dragonfly());
  // Router 0 (chassis 0, position 0) to router 5 (chassis 1, position 1): two minimal paths
  // (green-black, black-green), and through routers 2 and 3 of chassis 0 (router 1, at the
  // destination's position, is the minimal path itself).
  const auto p = paths(f, 0, 10);
  CHECK(minimal_count(p) == 2);
  REQUIRE(p.size() == 4);
  std::set<std::string> blacks;
  for (const Path& path : p) {
    CHECK(path.router_hops == (path.minimal ? 2 : 3));
    for (std::uint32_t link : path.links)
      if (f.link_name(link).starts_with("black"))
        blacks.insert(f.link_name(link));
  }
  CHECK(blacks.size() == 4);
  // Same position, other chassis (router 0 to router 4): one black hop, or three through each
  // other router of the chassis, again each over a black link of its own.
  const auto q = paths(f, 0, 8);
  CHECK(minimal_count(q) == 1);
  REQUIRE(q.size() == 4);
  std::set<std::string> q_blacks;
  for (const Path& path : q)
    for (std::uint32_t link : path.links)
      if (f.link_name(link).starts_with("black"))
        q_blacks.insert(f.link_name(link));
  CHECK(q_blacks.size() == 4);
}

TEST_CASE("between groups there is a minimal path per global cable and a Valiant path per third group") {
  for (int cables : {1, 2, 3}) {
    CAPTURE(cables);
    const auto f = *Fabric::of(dragonfly(cables));
    const auto p = paths(f, 0, 63); // group 0 to group 3
    CHECK(minimal_count(p) == cables);
    CHECK(static_cast<long long>(p.size()) == cables + 2);
    std::set<std::string> globals;
    for (const Path& path : p)
      for (std::uint32_t link : path.links)
        if (f.link_name(link).starts_with("global"))
          globals.insert(f.link_name(link));
    CHECK(globals.size() >= static_cast<std::size_t>(cables));
  }
}

TEST_CASE("groups joined by more cables than a pair's paths spread their pairs over every cable, Valiant paths kept") {
  // generic-dragonfly's 4 groups with 100 cables per group pair: 100 minimal and 2 Valiant paths
  // are more than max_paths (64). Expectation: each pair gets 62 minimal paths (the room the 2
  // Valiant paths leave) and both Valiant ones; over the pairs of a group's 16 nodes with
  // another group's, every one of the 100 cables carries some pair's minimal path.
  const auto f = *Fabric::of(dragonfly(100));
  std::set<std::string> cables;
  for (long long a = 0; a < 16; ++a)
    for (long long b = 48; b < 64; ++b) {
      const auto p = paths(f, a, b);
      REQUIRE(p.size() == Fabric::max_paths);
      CHECK(minimal_count(p) == 62);
      for (const Path& path : p)
        if (path.minimal)
          for (std::uint32_t link : path.links)
            if (f.link_name(link).starts_with("global"))
              cables.insert(f.link_name(link));
    }
  CHECK(cables.size() == 100);
}

TEST_CASE("a dragonfly pair's minimal paths alone are the first paths of the whole list") {
  // The adaptive choice picks among the minimal paths by index into the whole list. Expectation:
  // with 100 cables (sampled) and with 2, between groups and inside one (two minimal paths, then
  // the Valiant ones), the minimal-only list is the whole list's prefix and the others its rest.
  for (int cables : {2, 100})
    for (const auto& pair : {std::pair{0LL, 63LL}, {0LL, 11LL}}) {
      const long long a = pair.first, b = pair.second; // (plain variables: CAPTURE takes them in a lambda)
      CAPTURE(cables);
      CAPTURE(b);
      const auto f = *Fabric::of(dragonfly(cables));
      std::vector<Path> scratch;
      const auto all = paths(f, a, b);
      const auto minimal = f.paths(a, b, 1, scratch, Fabric::Kinds::Minimal);
      const auto count = static_cast<std::size_t>(minimal_count(all));
      REQUIRE(minimal.size() == count);
      for (std::size_t i = 0; i < minimal.size(); ++i)
        CHECK(minimal[i].links == all[i].links);
      const auto others = f.paths(a, b, 1, scratch, Fabric::Kinds::NonMinimal);
      REQUIRE(count < all.size());
      REQUIRE(others.size() == all.size() - count);
      for (std::size_t i = 0; i < others.size(); ++i) {
        CHECK_FALSE(others[i].minimal);
        CHECK(others[i].links == all[count + i].links);
        CHECK(others[i].router_hops == all[count + i].router_hops);
      }
    }
  // A fat-tree's paths are all minimal.
  std::vector<Path> scratch;
  CHECK(Fabric::of(fat_tree())->paths(0, 15, 1, scratch, Fabric::Kinds::NonMinimal).empty());
}

TEST_CASE("routers of a chassis larger than a pair's paths are all Valiant intermediates over the pairs") {
  // One chassis of 100 routers of one node: 98 intermediates per pair, more than the 63 paths
  // the minimal one leaves. Expectation: over node 0's pairs, every other router is some pair's
  // intermediate (the first hop of a Valiant path is the green link to its position).
  auto net = dragonfly();
  net.topology = platform::Dragonfly{.groups = 1, .global_links = 1, .chassis_per_group = 1, .chassis_links = 1,
                                     .routers_per_chassis = 100, .router_links = 1, .nodes_per_router = 1};
  const auto f = *Fabric::of(net);
  std::set<std::string> via;
  for (long long b = 1; b < 100; ++b)
    for (const Path& p : paths(f, 0, b))
      if (!p.minimal)
        via.insert(f.link_name(p.links[1]));
  CHECK(via.size() == 99); // "green router 0->position q" for q = 1..99
}

TEST_CASE("a group's global cables are dealt evenly over its routers") {
  const auto f = *Fabric::of(dragonfly(2)); // 3 peers x 2 cables over 8 routers: 6 routers hold one
  std::map<std::string, int> cables_at; // the router a path's global link leaves from
  for (long long b = 16; b < 64; b += 16)
    for (const Path& p : paths(f, 0, b))
      for (std::size_t i = 0; i + 1 < p.links.size(); ++i)
        if (p.minimal && f.link_name(p.links[i + 1]).starts_with("global"))
          cables_at[f.link_name(p.links[i + 1])] = 1;
  CHECK(cables_at.size() == 6);
}

TEST_CASE("a fat-tree's minimal paths climb to the lowest common level by every up choice") {
  const auto f = *Fabric::of(fat_tree());
  // 16 nodes: 2 x (16 x 1) at level 0, 2 x (4 leaves x 4) at level 1.
  CHECK(f.link_count() == 2 * 16 + 2 * 16);
  CHECK(paths(f, 0, 1).size() == 1);     // one leaf
  CHECK(paths(f, 0, 1)[0].links.size() == 2);
  const auto across = paths(f, 0, 15);   // two leaves: one path per spine
  CHECK(across.size() == 4);
  CHECK(minimal_count(across) == 4);
  std::set<std::uint32_t> up_links;
  for (const Path& p : across) {
    CHECK(p.links.size() == 4);
    up_links.insert(p.links[1]);
  }
  CHECK(up_links.size() == 4);
}

TEST_CASE("a fat-tree's parallel cables are links of their own, one cable's bandwidth each, and paths spread over them") {
  // The fat-tree above with 3 cables from each leaf to each spine (SimGrid's FatTreeZone makes a
  // link per cable). Expectation: 2 x 16 node links, 2 x 16 x 3 leaf-spine links, each of one
  // cable's bandwidth; between leaves 4 spines x 3 cables = 12 paths, each taking one cable up
  // and the cable of the same index down, every up cable of the leaf on one path.
  auto net = fat_tree();
  std::get<platform::FatTree>(net.topology).links = {1, 3};
  const auto f = *Fabric::of(net);
  CHECK(f.link_count() == 2 * 16 + 2 * 16 * 3);
  for (std::uint32_t id = 0; id < f.link_count(); ++id)
    CHECK(f.link_bandwidth_bytes_per_s(id) == cable_bytes_per_s);
  const auto across = paths(f, 0, 15);
  CHECK(across.size() == 12);
  std::set<std::uint32_t> up_links;
  for (const Path& p : across) {
    REQUIRE(p.links.size() == 4);
    up_links.insert(p.links[1]);
    CHECK((p.links[1] - 32) % 3 == (p.links[2] - 32 - 48) % 3); // the same cable index down
  }
  CHECK(up_links.size() == 12);
  CHECK(f.link_name(across[4].links[1]) == "up level 1 element 0 parent 0 cable 1"); // spine 0 again, on cable 1
}

TEST_CASE("where a fat-tree pair has more paths than max_paths, the sample reaches every spine") {
  // 4 cables from each node to its leaf, 8 from each leaf to each of 4 spines: 4 x 4 x 8 = 128
  // paths between two leaves. Expectation: 64 of them, over all 4 spines (an even stride over the
  // paths' numbering reached spines 0 and 2 alone). A leaf's up link to spine u on cable c is
  // 2 x 16 x 4 (the node links) + (u x 8 + c) for node 0's leaf.
  auto net = fat_tree();
  std::get<platform::FatTree>(net.topology).links = {4, 8};
  const auto f = *Fabric::of(net);
  const auto across = paths(f, 0, 15);
  REQUIRE(across.size() == Fabric::max_paths);
  std::set<std::uint32_t> spines;
  for (const Path& p : across)
    spines.insert((p.links[1] - 2 * 16 * 4) / 8);
  CHECK(spines == std::set<std::uint32_t>{0, 1, 2, 3});
}

TEST_CASE("over the pairs, a fat-tree's sampled paths use every spine and every cable of a node") {
  // 2 leaves of 16 nodes, 128 spines: 128 paths per pair across the leaves, 64 taken from a start
  // hashed from the pair. Expectation: over node 0's 16 pairs across, all 128 spines; with 4
  // cables from each node to its leaf and 64 spines (256 paths), all 4 of node 0's cables.
  auto net = fat_tree();
  net.topology = platform::FatTree{.down = {16, 2}, .up = {1, 128}, .links = {1, 1}};
  const auto spines = *Fabric::of(net);
  std::set<std::uint32_t> used;
  for (long long b = 16; b < 32; ++b)
    for (const Path& p : paths(spines, 0, b))
      used.insert(p.links[1]); // node 0's leaf's up link: one per spine
  CHECK(used.size() == 128);
  net.topology = platform::FatTree{.down = {16, 2}, .up = {1, 64}, .links = {4, 1}};
  const auto cables = *Fabric::of(net);
  used.clear();
  for (long long b = 16; b < 32; ++b)
    for (const Path& p : paths(cables, 0, b))
      used.insert(p.links[0]); // node 0's own cables: ids 0 to 3
  CHECK(used == std::set<std::uint32_t>{0, 1, 2, 3});
}

TEST_CASE("asking for the first k paths gives the first k of them, in the same order, from reused memory") {
  // Pairs inside a router's chassis, across chassis, across groups (dragonfly) and across the
  // spines (fat-tree); each answer written over the last one's scratch.
  std::vector<Path> scratch;
  for (const auto& net : {dragonfly(), fat_tree()}) {
    const auto f = *Fabric::of(net);
    const long long far = f.slot_count() - 1; // another group of the dragonfly, the farthest leaf of the fat-tree
    CHECK_THROWS_AS(f.paths(0, 5, 1, scratch, Fabric::Kinds::All, 0), std::invalid_argument); // none asked for
    for (const auto& [a, b] : {std::pair{0LL, 5LL}, {0LL, 9LL}, {0LL, 11LL}, {3LL, far}, {1LL, 15LL}}) {
      const auto all = paths(f, a, b);
      REQUIRE(!all.empty());
      for (std::size_t k = 1; k <= all.size() + 1; ++k) {
        const auto first = f.paths(a, b, 1, scratch, Fabric::Kinds::All, k);
        REQUIRE(first.size() == std::min(k, all.size()));
        for (std::size_t i = 0; i < first.size(); ++i) {
          CHECK(first[i].links == all[i].links);
          CHECK(first[i].minimal == all[i].minimal);
          CHECK(first[i].router_hops == all[i].router_hops);
        }
      }
    }
  }
}

TEST_CASE("a single switch and a torus have no fabric of their own") {
  auto net = fat_tree();
  net.topology = platform::Torus{{4, 4}};
  CHECK_FALSE(Fabric::of(net).has_value());
  net.topology = platform::SingleSwitch{};
  CHECK_FALSE(Fabric::of(net).has_value());
}

TEST_CASE("a flow alone keeps a minimal path under adaptive routing") {
  const auto f = *Fabric::of(dragonfly());
  const routing::Demand d{.src_slot = 0, .dst_slot = 63, .rate_bytes_per_s = 12.5e9};
  const auto chosen = routing::spread(f, platform::Routing::Adaptive, std::span(&d, 1), 1);
  REQUIRE(chosen.size() == 1);
  CHECK(paths(f, 0, 63)[chosen[0]].minimal);
}

TEST_CASE("flows that would overfill a green link move apart onto two-hop paths, none overfilled") {
  const auto f = *Fabric::of(dragonfly());
  // Router 0's two nodes send to router 2's, router 1's to router 3's, each flow able to fill 0.9
  // of a link: minimal routing would put 1.8 on green links 0->2 and 1->3.
  std::vector<routing::Demand> demands;
  for (long long src : {0, 1, 2, 3})
    demands.push_back({src, src + 4, 0.9 * cable_bytes_per_s});
  const auto chosen = routing::spread(f, platform::Routing::Adaptive, demands, 1);
  std::vector<double> load(f.link_count(), 0.0);
  int moved = 0;
  for (std::size_t i = 0; i < demands.size(); ++i) {
    const Path p = paths(f, demands[i].src_slot, demands[i].dst_slot)[chosen[i]];
    moved += !p.minimal;
    CHECK(p.router_hops <= 2);
    for (std::uint32_t link : p.links)
      load[link] += demands[i].rate_bytes_per_s;
  }
  CHECK(moved == 2); // one flow per green link moves
  for (std::uint32_t link = 0; link < f.link_count(); ++link) {
    CAPTURE(f.link_name(link));
    CHECK(load[link] <= f.link_bandwidth_bytes_per_s(link) * (1 + 1e-12));
  }
}

TEST_CASE("when every path is full, a flow takes the one that leaves it the most bandwidth") {
  const auto f = *Fabric::of(dragonfly(1)); // one cable between each pair of groups
  // Every node of group 0 to group 3 at full rate: 16 flows for one direct cable and two
  // Valiant routes (through groups 1 and 2), each of one cable more.
  std::vector<routing::Demand> demands;
  for (long long src = 0; src < 16; ++src)
    demands.push_back({src, 48 + src, cable_bytes_per_s});
  const auto chosen = routing::spread(f, platform::Routing::Adaptive, demands, 1);
  std::map<bool, int> by_kind; // minimal or not
  for (std::size_t i = 0; i < demands.size(); ++i)
    ++by_kind[paths(f, demands[i].src_slot, demands[i].dst_slot)[chosen[i]].minimal];
  // Balanced over the three routes out of group 0: 16 = 6 + 5 + 5 at best.
  CHECK(by_kind[true] >= 5);
  CHECK(by_kind[true] <= 6);
}

TEST_CASE("adaptive routing chooses as UGAL's rule does with every path of every flow generated, however many it keeps") {
  // The reference: spread()'s rule as its header states it, each flow's whole path list at hand
  // (spread() generates the non-minimal paths only when a flow's minimal ones are congested).
  // Three sets of flows: random ones, many congested inside the fabric; the same with 48 more,
  // from every node of groups 1 to 3 to node 0 at half a cable each, congested at node 0's port,
  // where every path ties and the fewest router hops decide; and a pair whose shortest path is
  // not minimal, congested at its destination's port.
  const auto f = *Fabric::of(dragonfly());
  auto fan_in = random_demands();
  for (long long src = 16; src < 64; ++src)
    fan_in.push_back({src, 0, 0.5 * cable_bytes_per_s});
  // And a pair with a Valiant path of fewer router hops than any of its minimal paths, behind
  // flows that fill the destination's port: its paths tie at the port's load, and the Valiant
  // path of the fewest hops wins.
  std::vector<routing::Demand> fewer_hops;
  for (long long a = 0; a < 64 && fewer_hops.empty(); ++a)
    for (long long b = 0; b < 64 && fewer_hops.empty(); ++b) {
      if (a / 16 == b / 16)
        continue;
      int least_minimal = 99, least_valiant = 99;
      for (const Path& p : paths(f, a, b))
        (p.minimal ? least_minimal : least_valiant) = std::min(p.minimal ? least_minimal : least_valiant, p.router_hops);
      if (least_valiant < least_minimal) {
        for (long long src = 0; src < 64; ++src)
          if (src / 16 != b / 16 && src != a)
            fewer_hops.push_back({src, b, 0.1 * cable_bytes_per_s});
        fewer_hops.push_back({a, b, 0.5 * cable_bytes_per_s});
      }
    }
  REQUIRE_FALSE(fewer_hops.empty());
  for (const auto& demands : {random_demands(), fan_in, fewer_hops}) {
    CAPTURE(demands.size());
    std::vector<double> load(f.link_count(), 0.0);
    const auto load_of = [&](const Path& p, double extra) {
      double worst = 0;
      for (std::uint32_t l : p.links)
        worst = std::max(worst, (load[l] + extra) / f.link_bandwidth_bytes_per_s(l));
      return worst;
    };
    const auto add = [&](const Path& p, double rate) {
      for (std::uint32_t l : p.links)
        load[l] += rate;
    };
    const auto choose = [&](const std::vector<Path>& all, double rate, bool minimal_only) {
      std::uint32_t chosen = 0;
      double best = std::numeric_limits<double>::infinity();
      for (std::uint32_t i = 0; i < all.size(); ++i)
        if (all[i].minimal && load_of(all[i], rate) < best)
          best = load_of(all[i], rate), chosen = i;
      if (best <= 1.0 || minimal_only)
        return chosen;
      for (std::uint32_t i = 0; i < all.size(); ++i) {
        const double l = std::max(load_of(all[i], rate), 1.0);
        const bool equal = std::abs(l - best) <= 1e-9 * best;
        if ((l < best && !equal) || (equal && all[i].router_hops < all[chosen].router_hops))
          best = std::min(l, best), chosen = i;
      }
      return chosen;
    };
    std::vector<std::uint32_t> expected;
    for (const auto& d : demands) {
      const auto all = paths(f, d.src_slot, d.dst_slot);
      expected.push_back(choose(all, d.rate_bytes_per_s, true));
      add(all[expected.back()], d.rate_bytes_per_s);
    }
    int non_minimal = 0, full_ports = 0;
    for (std::size_t i = 0; i < demands.size(); ++i) {
      const auto all = paths(f, demands[i].src_slot, demands[i].dst_slot);
      add(all[expected[i]], -demands[i].rate_bytes_per_s);
      const std::uint32_t port = all[0].links.back(); // the destination's
      full_ports += (load[port] + demands[i].rate_bytes_per_s) / f.link_bandwidth_bytes_per_s(port) > 1;
      expected[i] = choose(all, demands[i].rate_bytes_per_s, false);
      add(all[expected[i]], demands[i].rate_bytes_per_s);
      non_minimal += !all[expected[i]].minimal;
    }
    CHECK(non_minimal > 0); // the congested branch ran
    if (demands.size() != 300)
      CHECK(full_ports >= 40); // and flows congested at their destination's port
    CHECK(routing::spread(f, platform::Routing::Adaptive, demands, 1) == expected);
    // The same choices whether the first pass's minimal paths are all kept for the second, some,
    // or none (generated again).
    for (std::size_t kept_links : {std::size_t{0}, std::size_t{1}, std::size_t{200}})
      CHECK(routing::spread(f, platform::Routing::Adaptive, demands, 1, {}, kept_links) == expected);
  }
}

TEST_CASE("spread hands over each flow's path once, in order, with the links Fabric::paths lists for it") {
  // Both routings; the minimal paths of the first pass all kept for the second, some, or none
  // (generated again).
  const auto f = *Fabric::of(dragonfly());
  const auto demands = random_demands();
  for (const auto routing : {platform::Routing::Adaptive, platform::Routing::Ecmp})
  for (std::size_t kept_links : {std::size_t{0}, std::size_t{200}, routing::default_kept_path_links}) {
    CAPTURE(static_cast<int>(routing));
    CAPTURE(kept_links);
    const auto expected = routing::spread(f, routing, demands, 1);
    // Working memory left dirty by another call: the choices do not depend on it.
    std::vector<double> load(f.link_count(), 3.5e9);
    std::vector<std::size_t> order;
    routing::spread(f, routing, demands, 1, routing::available_bandwidths(f, {}), load,
                    [&](std::size_t i, std::uint32_t path, std::span<const std::uint32_t> links) {
                      order.push_back(i);
                      REQUIRE(i < demands.size());
                      CHECK(path == expected[i]);
                      const Path p = paths(f, demands[i].src_slot, demands[i].dst_slot)[path];
                      CHECK(std::vector<std::uint32_t>(links.begin(), links.end()) == p.links);
                    },
                    kept_links);
    std::vector<std::size_t> each(demands.size());
    std::iota(each.begin(), each.end(), std::size_t{0});
    CHECK(order == each);
  }
}

TEST_CASE("adaptive routing weighs loads against the bandwidth the background load leaves each link") {
  const auto f = *Fabric::of(dragonfly());
  const platform::BackgroundLoad background{.fabric = 0.25, .global = 0.5};
  // The choices with a background load are those made against available_bandwidths(), and with
  // links a quarter or half busy, more flows are congested and move than without.
  const auto demands = random_demands();
  const auto loaded = routing::spread(f, platform::Routing::Adaptive, demands, 1, background);
  std::vector<std::uint32_t> against(demands.size());
  std::vector<double> load;
  routing::spread(f, platform::Routing::Adaptive, demands, 1, routing::available_bandwidths(f, background), load,
                  [&](std::size_t i, std::uint32_t path, std::span<const std::uint32_t>) { against[i] = path; });
  CHECK(loaded == against);
  CHECK(loaded != routing::spread(f, platform::Routing::Adaptive, demands, 1));
  const auto available = routing::available_bandwidths(f, background);
  REQUIRE(available.size() == f.link_count());
  std::map<platform::FabricLinkKind, int> kinds;
  for (std::uint32_t link = 0; link < f.link_count(); ++link) {
    const auto kind = f.link_kind(link);
    ++kinds[kind];
    const double left = kind == platform::FabricLinkKind::NodePort ? 1.0
                        : kind == platform::FabricLinkKind::Global ? 0.5
                                                                    : 0.75;
    CHECK(available[link] == f.link_bandwidth_bytes_per_s(link) * left);
  }
  CHECK(kinds.size() >= 3); // node ports, global cables and links inside groups all met
}

TEST_CASE("ECMP puts each flow on one minimal path, the same for the same seed, spread over the spines") {
  const auto f = *Fabric::of(fat_tree());
  std::vector<routing::Demand> demands;
  for (long long a = 0; a < 4; ++a)
    for (long long b = 12; b < 16; ++b)
      demands.push_back({a, b, 12.5e9});
  const auto first = routing::spread(f, platform::Routing::Ecmp, demands, 7);
  const auto again = routing::spread(f, platform::Routing::Ecmp, demands, 7);
  CHECK(first == again);
  const std::set<std::uint32_t> spines(first.begin(), first.end());
  CHECK(spines.size() > 1);
}
