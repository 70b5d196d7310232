// Closed forms of a platform: slots, node peaks and bisection bandwidth per topology.
#include "platform/topology.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace ceiling;
using namespace ceiling::platform;

namespace {

PlatformSpec spec_with(Topology topology, int nodes, double nic_gb_per_s, double link_gb_per_s) {
  PlatformSpec spec{.name = "t", .nodes = nodes};
  spec.node.cpu.peak_per_socket.fp64 = units::FlopRate::from_flop_per_second(1e12);
  spec.node.nic.bandwidth = units::Bandwidth::from_bytes_per_second(nic_gb_per_s * 1e9);
  spec.interconnect = {.topology = std::move(topology),
                       .link_bandwidth = units::Bandwidth::from_bytes_per_second(link_gb_per_s * 1e9),
                       .link_latency = units::Duration::from_seconds(100e-9)};
  return spec;
}

double bisection_gb_per_s(const PlatformSpec& spec, long long nodes) {
  return bisection_bandwidth(spec, nodes).bytes_per_second() / 1e9;
}

} // namespace

TEST_CASE("cable counts add each level's cables and switches") {
  // Expectation: fat-tree 8x8, up 1x8, links 1x1: 64 node cables, 8 leaves x 8 uplinks = 64, and
  // 8 leaves + 8 spines: 144.
  CHECK(cable_count(spec_with(FatTree{{8, 8}, {1, 8}, {1, 1}}, 64, 10, 10)) == 144);
  // Torus 4x4x4: 64 node cables, 64 x 3 links, 64 routers: 320.
  CHECK(cable_count(spec_with(Torus{{4, 4, 4}}, 64, 10, 10)) == 320);
  // A million parallel links to each spine: beyond the most a machine may have.
  CHECK(cable_count(spec_with(FatTree{{8, 8}, {1, 8}, {1, 1000000}}, 64, 10, 10)) == max_cables + 1);
}

TEST_CASE("slot counts are the products of the topology's shape") {
  CHECK(slot_count(FatTree{{8, 8}, {1, 8}, {1, 1}}) == 64);
  CHECK(slot_count(Torus{{4, 4, 4}}) == 64);
  CHECK(slot_count(Dragonfly{14, 10, 6, 3, 16, 1, 4}) == 5376); // Piz Daint's cabinets
}

TEST_CASE("bisection bandwidth follows each topology's closed form") {
  SUBCASE("single switch: half the nodes inject at the slower of NIC and link") {
    // Expectation: floor(16/2) * min(10, 20) GB/s.
    CHECK(bisection_gb_per_s(spec_with(SingleSwitch{}, 16, 10, 20), 16) == 80);
    CHECK(bisection_gb_per_s(spec_with(SingleSwitch{}, 16, 10, 20), 1) == 0);
  }
  SUBCASE("fat-tree: the thinnest level, pod-aligned") {
    // Expectation: full bisection, 64 nodes: node level 32 * 12.5 = 400; spine level
    // 4 pods * 8 uplinks * 25 = 800. With up = [1, 2]: 4 pods * 2 * 25 = 200 (4:1 taper).
    CHECK(bisection_gb_per_s(spec_with(FatTree{{8, 8}, {1, 8}, {1, 1}}, 64, 12.5, 25), 64) == 400);
    CHECK(bisection_gb_per_s(spec_with(FatTree{{8, 8}, {1, 2}, {1, 1}}, 64, 12.5, 25), 64) == 200);
    // Inside one leaf switch only the node level counts: 4 * 12.5.
    CHECK(bisection_gb_per_s(spec_with(FatTree{{8, 8}, {1, 2}, {1, 1}}, 64, 12.5, 25), 8) == 50);
    // Two cables from each node to its leaf (links[0] = 2), a NIC of 100: each node injects
    // min(100, 2 x 25) = 50, 8 of 16 nodes: 400 (200 if one cable counted); the spine level (one of
    // the 2 pods: 8 x 2 x 25 = 400) as wide.
    CHECK(bisection_gb_per_s(spec_with(FatTree{{8, 2}, {1, 8}, {2, 2}}, 16, 100, 25), 16) == 400);
  }
  SUBCASE("torus: the least cut across any dimension, whichever order the file gives them") {
    // Expectation: 8x2x2 and 2x2x8, 32 nodes, 10 GB/s links: across the 8-long dimension
    // 4 positions x 2 (it wraps) = 8 links, 80 GB/s; across a 2-long one 16 links (no second
    // wrap). The last dimension's cut alone gave 160 for 8x2x2.
    CHECK(bisection_gb_per_s(spec_with(Torus{{8, 2, 2}}, 32, 100, 10), 32) == 80);
    CHECK(bisection_gb_per_s(spec_with(Torus{{2, 2, 8}}, 32, 100, 10), 32) == 80);
    // 32x32x16: across a 32-long dimension 32 x 16 positions x 2 = 1,024 links (16: 2,048).
    CHECK(bisection_gb_per_s(spec_with(Torus{{32, 32, 16}}, 16384, 100, 10), 16384) == 10240);
    // 24 nodes of 4x4x4 (a 4x4 layer and half the next): across x, 24 / 4 = 6 lines, each cut
    // twice (x wraps), 12 links; across z, 24 / 2 = 12 lines, cut once (z is not complete).
    CHECK(bisection_gb_per_s(spec_with(Torus{{4, 4, 4}}, 64, 100, 10), 24) == 120);
  }
  SUBCASE("torus: 2 k^(n-1) links across the outermost complete dimension") {
    // Expectation: 4x4x4 torus, 2 * 16 links * 25 GB/s = 800; with a 100 GB/s NIC the
    // node level (3200) does not bind.
    CHECK(bisection_gb_per_s(spec_with(Torus{{4, 4, 4}}, 64, 100, 25), 64) == 800);
    // Two rows of a 4x4 plane (8 nodes): cut across y, 4 links, no wrap-around.
    CHECK(bisection_gb_per_s(spec_with(Torus{{4, 4, 4}}, 64, 100, 25), 8) == 100);
    // A torus node sends on its own 6 torus links (SimGrid joins torus nodes directly), not on
    // one: 3x3x3, NIC 100, links 10: node level 13 x min(100, 6 x 10) = 780, above the cut of
    // 9 lines x 2 (3 long: it wraps) x 10 = 180.
    CHECK(bisection_gb_per_s(spec_with(Torus{{3, 3, 3}}, 27, 100, 10), 27) == 180);
  }
  SUBCASE("dragonfly: global links between the two halves of the groups") {
    // Expectation: 4 groups, 2 links per pair: 2 * 2 group pairs * 2 links * 25 GB/s = 200.
    const Dragonfly d{.groups = 4, .global_links = 2, .chassis_per_group = 2, .chassis_links = 1,
                      .routers_per_chassis = 4, .router_links = 1, .nodes_per_router = 2};
    CHECK(bisection_gb_per_s(spec_with(d, 64, 12.5, 25), 64) == 200);
    // One chassis (8 nodes, 4 routers): 2 * 2 router pairs * 1 link * 25 = 100; NIC 4 * 12.5 = 50.
    CHECK(bisection_gb_per_s(spec_with(d, 64, 12.5, 25), 8) == 50);
  }
}

TEST_CASE("node peak adds CPU sockets and every GPU at one precision") {
  NodeSpec node;
  node.cpu.sockets = 2;
  node.cpu.peak_per_socket.fp64 = units::FlopRate::from_flop_per_second(0.5e12);
  node.gpu = GpuSpec{.count = 4};
  node.gpu->peak.fp64 = units::FlopRate::from_flop_per_second(5e12);
  node.gpu->peak.fp16 = units::FlopRate::from_flop_per_second(20e12);
  CHECK(node_peak(node, Precision::Fp64)->flop_per_second() == 21e12);
  CHECK(node_peak(node, Precision::Fp16)->flop_per_second() == 80e12); // the CPU has no fp16
  CHECK_FALSE(node_peak(node, Precision::Fp32).has_value());
}

TEST_CASE("precision names read back") {
  for (Precision p : all_precisions)
    CHECK(precision_from_string(to_string(p)) == p);
  CHECK_FALSE(precision_from_string("fp8").has_value());
}

TEST_CASE("a contiguous job takes the first slots, spread deals one node per domain in turn") {
  // 4 groups of 16 slots; 60 nodes: the last group has 12.
  const auto spec = spec_with(Dragonfly{4, 2, 2, 1, 4, 1, 2}, 60, 12.5, 25);
  CHECK(domain_size(spec.interconnect.topology) == 16);
  CHECK(allocate(spec, 3, {}, 1) == std::vector<long long>{0, 1, 2});
  CHECK(allocate(spec, 6, {.policy = AllocationPolicy::Spread}, 1) == std::vector<long long>{0, 1, 16, 17, 32, 48});
  // 58 nodes: the last group is full after 12, so the others take the rest.
  const auto most = allocate(spec, 58, {.policy = AllocationPolicy::Spread}, 1);
  CHECK(most.size() == 58);
  CHECK(most.back() == 59);
  CHECK(std::count_if(most.begin(), most.end(), [](long long s) { return s >= 48; }) == 12);
}

TEST_CASE("a random job is distinct, sorted slots of the machine, the same for the same seed") {
  const auto spec = spec_with(FatTree{{4, 16}, {1, 4}, {1, 1}}, 64, 12.5, 25);
  const Allocation random{.policy = AllocationPolicy::Random};
  const auto a = allocate(spec, 20, random, 7);
  CHECK(a == allocate(spec, 20, random, 7));
  CHECK(a != allocate(spec, 20, random, 8));
  CHECK(std::is_sorted(a.begin(), a.end()));
  CHECK(std::adjacent_find(a.begin(), a.end()) == a.end());
  CHECK(a.front() >= 0);
  CHECK(a.back() < 64);
  // All of the machine: every slot.
  const auto all = allocate(spec, 64, random, 3);
  for (long long s = 0; s < 64; ++s)
    CHECK(all[static_cast<std::size_t>(s)] == s);
}

TEST_CASE("a node list is refused with the reason when it does not fit the run or the machine") {
  const auto spec = spec_with(Torus{{4, 4}}, 16, 12.5, 25);
  const auto list = [](std::vector<long long> slots) { return Allocation{AllocationPolicy::List, std::move(slots)}; };
  CHECK_FALSE(allocation_problem(spec, 2, list({3, 1})));
  CHECK(allocate(spec, 2, list({3, 1}), 1) == std::vector<long long>{1, 3});
  CHECK(*allocation_problem(spec, 3, list({3, 1})) == "--node-list: the list has 2 nodes, the run 3");
  CHECK(*allocation_problem(spec, 2, list({3, 3})) == "--node-list: node 3 is twice in the list");
  CHECK(*allocation_problem(spec, 2, list({3, 16})) == "--node-list: node 16 of the list is not one of the machine's nodes 0 to 15");
  CHECK(domain_size(spec.interconnect.topology) == 4); // a torus plane across the last dimension
}
