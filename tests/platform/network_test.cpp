// Simulated transfers on built machines against alpha-beta closed forms. Each TEST_CASE runs in
// its own process (one SimGrid engine per process); ctest does that, see tests/CMakeLists.txt.
// Network settings: CM02 without cross-traffic and without the TCP window cap (start_engine's
// defaults), under which SimGrid's fluid model reproduces alpha-beta exactly.
#include "config/platform_file.hpp"
#include "hpc/comm_times.hpp"
#include "machine/engine.hpp"
#include "machine/fat_tree_zone.hpp"
#include "machine/machine.hpp"
#include "machine/probe.hpp"
#include "machine/xml_export.hpp"
#include "replay/routes.hpp"
#include "replay/traffic.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "support/relative.hpp"

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <fstream>
#include <sstream>

using namespace ceiling;
using platform::Machine;

namespace {

// NIC 12.5 GB/s, fabric links 25 GB/s: the NIC is every route's bottleneck unless links are
// shared by more than two flows.
std::string platform_text(const std::string& interconnect, int nodes, bool gpus = false) {
  std::string text = "[platform]\nname = \"t\"\nnodes = " + std::to_string(nodes) +
                     "\n[node.cpu]\nsockets = 1\ncores_per_socket = 8\npeak_fp64 = \"1 TFLOP/s\"\n"
                     "memory_bandwidth = \"100 GB/s\"\n"
                     "[node.nic]\nbandwidth = \"12.5 GB/s\"\nlatency = \"1 us\"\n";
  if (gpus)
    text += "[node.gpu]\ncount = 2\npeak_fp32 = \"10 TFLOP/s\"\nmemory_bandwidth = \"900 GB/s\"\n"
            "memory = \"16 GiB\"\n[node.pcie]\nhost_to_device = \"11.881 GB/s\"\n"
            "device_to_host = \"12.571 GB/s\"\nlatency = \"2 us\"\n";
  return text + "[interconnect]\nlink_bandwidth = \"25 GB/s\"\nlink_latency = \"100 ns\"\n" +
         interconnect;
}

/// One route as a line: "FROM TO LATENCY LINK...", the latency to 17 digits (the same double read back).
void write_route(std::ostream& out, const simgrid::s4u::Host* a, const simgrid::s4u::Host* b,
                 const platform::RouteInfo& route) {
  out.precision(17);
  out << a->get_name() << " " << b->get_name() << " " << route.latency_s;
  for (const auto& name : route.link_names)
    out << " " << name;
  out << "\n";
}

/// Waits for a forked child (one engine per process), which must have exited with status 0.
void require_child_done(pid_t child) {
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
}

const std::string single_switch = "topology = \"single-switch\"\n";
const std::string fat_tree = "topology = \"fat-tree\"\ndown = [4, 4]\nup = [1, 4]\nlinks = [1, 1]\n";
const std::string torus = "topology = \"torus\"\ndimensions = [4, 4]\n";
const std::string dragonfly = "topology = \"dragonfly\"\ngroups = 2\nglobal_links = 1\n"
                              "chassis_per_group = 2\nchassis_links = 1\nrouters_per_chassis = 2\n"
                              "router_links = 1\nnodes_per_router = 2\n";

Machine build(const std::string& interconnect, int nodes, bool gpus = false) {
  const auto spec = config::load_platform_text(platform_text(interconnect, nodes, gpus), "t.toml");
  platform::start_engine({});
  return Machine::build(spec, nodes);
}

constexpr double nic_bytes_per_s = 12.5e9;
constexpr double nic_latency_s = 1e-6;
constexpr double link_latency_s = 100e-9;
constexpr double size_bytes = 100e6;

/// Expectation for a point-to-point transfer alone: route latency + size / NIC bandwidth.
void check_point_to_point(const Machine& m, long long a, long long b, int fabric_links) {
  CAPTURE(a);
  CAPTURE(b);
  const double latency = 2 * nic_latency_s + fabric_links * link_latency_s;
  CHECK(platform::route_between(m.node(a).cpu, m.node(b).cpu).latency_s ==
        testing::relative(latency, 1e-12));
  const auto t = platform::time_transfers({{m.node(a).cpu, m.node(b).cpu}},
                                          units::DataSize::from_bytes(size_bytes));
  CHECK(t.seconds() == testing::relative(latency + size_bytes / nic_bytes_per_s, 1e-6));
}

/// Expectation for the step-level ring: 2(N-1)/N B/bw + 2(N-1) alpha, alpha the largest
/// neighbour route latency (every step waits for the slowest pair), bw the NIC's.
void check_ring(const Machine& m) {
  std::vector<simgrid::s4u::Host*> ring;
  double alpha = 0;
  const long long n = m.size();
  for (long long r = 0; r < n; ++r) {
    ring.push_back(m.node(r).cpu);
    alpha = std::max(alpha, platform::route_between(m.node(r).cpu, m.node((r + 1) % n).cpu).latency_s);
  }
  const double expected = 2.0 * (n - 1) / n * size_bytes / nic_bytes_per_s + 2.0 * (n - 1) * alpha;
  const double simulated =
      platform::time_ring_allreduce(ring, units::DataSize::from_bytes(size_bytes)).seconds();
  MESSAGE("ring all-reduce, N = " << n << ": simulated " << simulated << " s, closed form "
                                  << expected << " s, relative error "
                                  << (simulated - expected) / expected);
  CHECK(std::abs(simulated - expected) / expected <= 1e-6);
}

/// Every route between the machine's hosts (each node's CPU and GPUs), asked of Routes, which
/// composes those between two nodes, against the same routes read whole from SimGrid: the same
/// links in the same order (numbered alike: the two ask for them in the same order) and the
/// same latency to the bit (summed in SimGrid's order: the fabric's links first).
/// `allocated`: the slots of the machine's `nodes` that get nodes (the others stay bare
/// routers), all where empty.
void check_composed_routes(const std::string& interconnect, int nodes, bool gpus, std::vector<long long> allocated = {}) {
  // Latencies whose sums depend on their order (those of platform_text mostly add up alike either way).
  std::string text = platform_text(interconnect, nodes, gpus);
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"100 ns\"", "\"170 ns\""},
                                 {"latency = \"1 us\"", "latency = \"0.9 us\""},
                                 {"latency = \"2 us\"", "latency = \"2.9 us\""}}) {
    const auto at = text.find(from);
    if (at != std::string::npos)
      text.replace(at, from.size(), to);
  }
  const auto spec = config::load_platform_text(text, "t.toml");
  platform::start_engine({});
  if (allocated.empty())
    for (long long slot = 0; slot < nodes; ++slot)
      allocated.push_back(slot);
  const Machine m = Machine::build(spec, allocated);
  std::vector<simgrid::s4u::Host*> hosts;
  std::vector<long long> slots;
  for (long long r = 0; r < m.size(); ++r) {
    hosts.push_back(m.node(r).cpu);
    slots.push_back(allocated[static_cast<std::size_t>(r)]);
    for (auto* gpu : m.node(r).gpus) {
      hosts.push_back(gpu);
      slots.push_back(allocated[static_cast<std::size_t>(r)]);
    }
  }
  replay::Routes composed(hosts, slots, spec, 1);
  replay::Routes whole(hosts, slots, spec, 1, {}, false);
  const auto n = static_cast<int>(hosts.size());
  int differ = 0, pairs = 0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b)
        continue;
      const replay::Route& x = composed.between(a, b);
      const replay::Route& y = whole.between(a, b);
      const bool same = std::equal(x.link_ids.begin(), x.link_ids.end(), y.link_ids.begin(), y.link_ids.end()) &&
                        x.latency_s == y.latency_s && x.bandwidth_bytes_per_s == y.bandwidth_bytes_per_s &&
                        x.shared_links_only == y.shared_links_only;
      if (!same && differ++ < 5)
        MESSAGE("route " << a << " -> " << b << " differs: " << x.link_ids.size() << " / " << y.link_ids.size()
                         << " links, latency " << x.latency_s << " / " << y.latency_s << " s");
      ++pairs;
    }
  MESSAGE(pairs << " routes compared, " << differ << " differ, " << composed.composed_routes() << " composed");
  CHECK(differ == 0);
  // Most are composed (the others read whole until their links and nodes' parts are known).
  CHECK(composed.composed_routes() >= static_cast<std::uint64_t>(pairs) / 2);
  CHECK(whole.composed_routes() == 0);
  CHECK(composed.link_count() == whole.link_count());
  // On a fat-tree (a single switch is one), most composed routes have their fabric links
  // computed rather than asked of SimGrid, once an earlier route met those links.
  if (interconnect.find("fat-tree") != std::string::npos || interconnect == single_switch) {
    MESSAGE(composed.computed_routes() << " computed");
    CHECK(composed.computed_routes() >= composed.composed_routes() / 2);
    CHECK(composed.tree_mismatches() == 0);
  } else {
    CHECK(composed.computed_routes() == 0);
  }
  CHECK(whole.computed_routes() == 0);
}

/// Under the routing of `interconnect`, the routes spread() gives an all-to-all of the machine's
/// hosts (GPU nodes) through Routes whose nodes' parts, once known, stand for SimGrid's route
/// (node_ends()) and through Routes that read every route whole: the same links in the same
/// pattern (renumbered by first appearance: the two number their links apart), latency to the
/// bit, bandwidth, classes and sharing; the parts stood for SimGrid's routes (fewer routes built).
void check_spread_routes(const std::string& interconnect, int nodes) {
  const auto spec = config::load_platform_text(platform_text(interconnect, nodes, true), "t.toml");
  platform::start_engine({});
  std::vector<long long> allocated;
  for (long long slot = 0; slot < nodes; ++slot)
    allocated.push_back(slot);
  const Machine m = Machine::build(spec, allocated);
  std::vector<simgrid::s4u::Host*> hosts;
  std::vector<long long> slots;
  for (long long r = 0; r < m.size(); ++r)
    for (auto* gpu : m.node(r).gpus) {
      hosts.push_back(gpu);
      slots.push_back(allocated[static_cast<std::size_t>(r)]);
    }
  std::vector<collectives::Flow> flows;
  for (int a = 0; a < static_cast<int>(hosts.size()); ++a)
    for (int b = 0; b < static_cast<int>(hosts.size()); ++b)
      if (a != b)
        flows.push_back({.src = a, .dst = b, .bytes = 1e6});
  replay::Routes parts(hosts, slots, spec, 1);
  replay::Routes whole(hosts, slots, spec, 1, {}, false);
  const auto x = parts.spread(flows);
  const auto y = whole.spread(flows);
  REQUIRE(x.size() == y.size());
  std::map<std::uint32_t, std::uint32_t> x_seen, y_seen; // link -> order of first appearance
  int differ = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    bool same = x[i]->link_ids.size() == y[i]->link_ids.size() && x[i]->latency_s == y[i]->latency_s &&
                x[i]->bandwidth_bytes_per_s == y[i]->bandwidth_bytes_per_s && x[i]->per_byte == y[i]->per_byte &&
                x[i]->shared_links_only == y[i]->shared_links_only;
    for (std::size_t h = 0; same && h < x[i]->link_ids.size(); ++h) {
      const auto xi = x_seen.try_emplace(x[i]->link_ids[h], static_cast<std::uint32_t>(x_seen.size())).first->second;
      const auto yi = y_seen.try_emplace(y[i]->link_ids[h], static_cast<std::uint32_t>(y_seen.size())).first->second;
      same = xi == yi;
    }
    differ += same ? 0 : 1;
  }
  MESSAGE(x.size() << " routes spread, " << differ << " differ");
  CHECK(differ == 0);
  CHECK(parts.route_count() < whole.route_count()); // SimGrid's route between two nodes not always built
}

} // namespace

TEST_CASE("single switch: transfer and ring all-reduce match alpha-beta") {
  const Machine m = build(single_switch, 16);
  check_point_to_point(m, 0, 15, 2); // node -> switch -> node
  check_ring(m);
}

TEST_CASE("fat-tree: transfer and ring all-reduce match alpha-beta") {
  const Machine m = build(fat_tree, 16);
  check_point_to_point(m, 0, 1, 2);  // same leaf switch
  check_point_to_point(m, 0, 15, 4); // leaf -> spine -> leaf
  check_ring(m);
}

TEST_CASE("torus: transfer and ring all-reduce match alpha-beta") {
  const Machine m = build(torus, 16);
  check_point_to_point(m, 0, 1, 1); // x neighbours
  check_point_to_point(m, 0, 5, 2); // one hop in x, one in y
  check_ring(m);
}

TEST_CASE("dragonfly: transfer and ring all-reduce match alpha-beta") {
  const Machine m = build(dragonfly, 16);
  check_point_to_point(m, 0, 1, 2); // same router: node -> router -> node
  check_point_to_point(m, 0, 2, 3); // neighbouring routers of a chassis (green link)
  check_ring(m);
}

TEST_CASE("an oversubscribed fat-tree slows concurrent transfers by its taper") {
  // 4 nodes per leaf switch, one uplink per leaf: 4:1 taper.
  const Machine m = build("topology = \"fat-tree\"\ndown = [4, 4]\nup = [1, 1]\nlinks = [1, 1]\n", 16);
  std::vector<platform::Transfer> shift;
  for (long long i = 0; i < 16; ++i) // every node sends to its peer on the next leaf switch
    shift.push_back({m.node(i).cpu, m.node((i + 4) % 16).cpu});
  const double latency = 2 * nic_latency_s + 4 * link_latency_s;
  // Expectation: 4 flows share each 25 GB/s uplink, 6.25 GB/s each instead of the NIC's 12.5,
  // so the bandwidth term doubles: slower, by exactly a factor 2 on B/bw.
  const double alone = latency + size_bytes / nic_bytes_per_s;
  const double contended = latency + size_bytes / (25e9 / 4);
  const double simulated = platform::time_transfers(shift, units::DataSize::from_bytes(size_bytes)).seconds();
  MESSAGE("shift on a 4:1 fat-tree: " << simulated << " s, alone " << alone << " s, slow-down "
                                      << simulated / alone);
  CHECK(simulated > alone);
  CHECK(simulated == testing::relative(contended, 1e-6));
}

TEST_CASE("GPU to GPU across nodes crosses PCIe, NIC, fabric, NIC, PCIe in that order") {
  const Machine m = build(dragonfly, 16, true);
  const auto route = platform::route_between(m.node(0).gpus[1], m.node(5).gpus[0]);
  REQUIRE(route.link_names.size() >= 5);
  const auto& names = route.link_names;
  CHECK(names[0] == "node00-gpu1-pcie_UP");
  CHECK(names[1] == "node00-nic_UP");
  CHECK(names[names.size() - 2] == "node05-nic_DOWN");
  CHECK(names.back() == "node05-gpu0-pcie_DOWN");
  for (std::size_t i = 2; i + 2 < names.size(); ++i) {
    CAPTURE(names[i]);
    CHECK_FALSE(names[i].starts_with("node")); // only fabric links in between
  }
  // Expectation: the route's latency adds both PCIe links, both NICs and 3 fabric links
  // (neighbouring routers of one chassis: local, green, local).
  CHECK(route.latency_s == testing::relative(2 * 2e-6 + 2 * nic_latency_s + 3 * link_latency_s, 1e-12));
}

TEST_CASE("a host to device copy takes PCIe latency plus size over the direction's bandwidth") {
  const Machine m = build(single_switch, 2, true);
  const auto size = units::DataSize::from_bytes(64e6);
  const double h2d = platform::time_transfers({{m.node(0).cpu, m.node(0).gpus[0]}}, size).seconds();
  const double d2h = platform::time_transfers({{m.node(0).gpus[0], m.node(0).cpu}}, size).seconds();
  // Expectation: 2 us + 64 MB / 11.881 GB/s one way, 2 us + 64 MB / 12.571 GB/s the other.
  CHECK(h2d == testing::relative(2e-6 + 64e6 / 11.881e9, 1e-9));
  CHECK(d2h == testing::relative(2e-6 + 64e6 / 12.571e9, 1e-9));
  // Two GPUs of one node copy at once without sharing: each has its own PCIe link.
  const double both = platform::time_transfers({{m.node(0).cpu, m.node(0).gpus[0]},
                                                {m.node(0).cpu, m.node(0).gpus[1]}}, size).seconds();
  CHECK(both == testing::relative(h2d, 1e-9));
}

TEST_CASE("an NVLink mesh joins its pairs directly and sends the others through the host") {
  // Four GPUs; 0-1 listed twice, once written the other way round (two links), 1-2 once,
  // 25 GB/s and 1 us each; 0-5 names a GPU beyond the count and is left out.
  std::string text = platform_text(single_switch, 1, true);
  text.replace(text.find("count = 2"), 9, "count = 4");
  text += "[node.gpu_link]\nbandwidth = \"25 GB/s\"\nlatency = \"1 us\"\n"
          "pairs = [\"0-1\", \"1-0\", \"1-2\", \"0-5\"]\n";
  const auto spec = config::load_platform_text(text, "t.toml");
  platform::start_engine({});
  const Machine m = Machine::build(spec, 1);
  const auto& gpus = m.node(0).gpus;
  const auto route = [&](int j, int k) { return platform::route_between(gpus[j], gpus[k]); };
  const std::string node = m.node_name(0);
  using Names = std::vector<std::string>;
  CHECK(route(0, 1).link_names == Names{node + "-gpu0-gpu1-gpulink_UP"});
  CHECK(route(1, 0).link_names == Names{node + "-gpu0-gpu1-gpulink_DOWN"});
  CHECK(route(2, 1).link_names == Names{node + "-gpu1-gpu2-gpulink_DOWN"});
  CHECK(route(0, 2).link_names == Names{node + "-gpu0-pcie_UP", node + "-gpu2-pcie_DOWN"});
  CHECK(route(3, 0).link_names == Names{node + "-gpu3-pcie_UP", node + "-gpu0-pcie_DOWN"});
  // Expectation: 1 us + bytes over the pair's links (two of 25 GB/s for 0-1, one for 1-2); through
  // the host, both PCIe latencies and the slower PCIe direction (device to host 12.571, host to
  // device 11.881 GB/s).
  const auto size = units::DataSize::from_bytes(100e6);
  CHECK(platform::time_transfers({{gpus[0], gpus[1]}}, size).seconds() == testing::relative(1e-6 + 100e6 / 50e9, 1e-9));
  CHECK(platform::time_transfers({{gpus[1], gpus[2]}}, size).seconds() == testing::relative(1e-6 + 100e6 / 25e9, 1e-9));
  CHECK(platform::time_transfers({{gpus[0], gpus[2]}}, size).seconds() ==
        testing::relative(2 * 2e-6 + 100e6 / 11.881e9, 1e-9));
}

TEST_CASE("the exported XML platform loads back in SimGrid with the same routes") {
  const auto dir = std::filesystem::temp_directory_path() / ("ceiling-xml-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto xml = dir / "machine.xml";
  const auto expected = dir / "routes.txt";
  // The child builds the machine in its own engine and writes the XML and every route; the
  // parent loads the XML in a fresh engine. One engine per process.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const Machine m = build(dragonfly, 6, true);
    std::ofstream(xml) << [&] { std::ostringstream s; platform::export_xml(m, s); return s.str(); }();
    std::ofstream routes(expected);
    std::vector<simgrid::s4u::Host*> hosts;
    for (long long r = 0; r < m.size(); ++r) {
      hosts.push_back(m.node(r).cpu);
      hosts.insert(hosts.end(), m.node(r).gpus.begin(), m.node(r).gpus.end());
    }
    for (auto* a : hosts)
      for (auto* b : hosts)
        if (const auto route = platform::route_between(a, b);
            a != b || (!route.link_names.empty() && route.link_names != std::vector<std::string>{"__loopback__"}))
          write_route(routes, a, b, route);
    routes.close(); // _Exit flushes nothing
    std::_Exit(routes ? 0 : 1);
  }
  require_child_done(child);

  auto& engine = platform::start_engine({});
  engine.load_platform(xml.string());
  std::ifstream routes(expected);
  std::string line;
  int checked = 0;
  int loops = 0; // a host's route to itself other than SimGrid's loopback: a CPU's through its node's memory
  while (std::getline(routes, line)) {
    std::istringstream words(line);
    std::string src, dst;
    double latency = 0;
    words >> src >> dst >> latency;
    loops += src == dst;
    std::vector<std::string> want;
    for (std::string name; words >> name;)
      want.push_back(name);
    const auto got = platform::route_between(simgrid::s4u::Host::by_name(src),
                                             simgrid::s4u::Host::by_name(dst));
    CAPTURE(line);
    CHECK(got.link_names == want);
    if (latency == 0) // (a memory link's)
      CHECK(got.latency_s == 0);
    else
      CHECK(got.latency_s == testing::relative(latency, 1e-12));
    ++checked;
  }
  CHECK(checked == 18 * 17 + loops); // 6 nodes x (CPU + 2 GPUs), ordered pairs
  CHECK(loops == 6);
  // The hosts' properties come along: a CPU's cores.
  const char* cores = simgrid::s4u::Host::by_name("node00-cpu")->get_property("cores");
  REQUIRE(cores != nullptr);
  CHECK(std::string(cores) == "8"); // platform_text(): 1 socket of 8 cores
  std::filesystem::remove_all(dir);
}

TEST_CASE("HPC message patterns on a machine: a row shift and a column exchange take alpha-beta where nothing is shared") {
  // Single switch: every node has its own link, and each node sends one message and receives
  // one, so each message takes the route's latency plus its bytes over the NIC.
  const Machine m = build(single_switch, 8);
  replay::TrafficTimer timer(m, 1);
  const hpc::Grid2 grid{.rows = 2, .columns = 4};
  const double bytes = 3e6;
  for (const auto& pattern : {hpc::row_shift(grid, 1), hpc::column_exchange(grid, 1)}) {
    CAPTURE(pattern.name);
    auto flows = pattern.flows;
    for (auto& f : flows)
      f.bytes = bytes;
    double latency = 0;
    for (const auto& f : flows)
      latency = std::max(latency, platform::route_between(m.node(f.src).cpu, m.node(f.dst).cpu).latency_s);
    CHECK(timer.seconds(flows) == testing::relative(latency + bytes / nic_bytes_per_s, 1e-9));
  }
}

TEST_CASE("composed routes are SimGrid's, links and latency to the bit: fat-tree with GPU nodes") {
  check_composed_routes(fat_tree, 16, true);
}

TEST_CASE("composed routes are SimGrid's, links and latency to the bit: dragonfly with GPU nodes") {
  check_composed_routes(dragonfly, 16, true);
}

TEST_CASE("composed routes are SimGrid's, links and latency to the bit: torus of CPU nodes") {
  check_composed_routes(torus, 16, false);
}

TEST_CASE("composed routes are SimGrid's, links and latency to the bit: single switch of CPU nodes") {
  check_composed_routes(single_switch, 16, false);
}

TEST_CASE("composed routes are SimGrid's, links and latency to the bit: a dragonfly with bare slots between the nodes") {
  check_composed_routes(dragonfly, 16, true, {0, 2, 5, 7, 8, 11, 13, 15});
}

TEST_CASE("composed routes are SimGrid's, links and latency to the bit: a fat-tree with bare slots between the nodes") {
  check_composed_routes(fat_tree, 16, false, {1, 3, 4, 6, 9, 10, 12, 14});
}

TEST_CASE("routes spread adaptively from the nodes' known parts are those built from SimGrid's routes: dragonfly") {
  check_spread_routes(dragonfly + "routing = \"adaptive\"\n", 16);
}

TEST_CASE("routes spread by ECMP from the nodes' known parts are those built from SimGrid's routes: fat-tree") {
  check_spread_routes(fat_tree + "routing = \"ecmp\"\n", 16);
}

// SimGrid's FatTreeZone picks a parent and a cable by d-mod-k on the way up, and on the way down
// carries its loop over a switch's child ports on to the next switch: shapes with several
// parents per node, parallel cables and three levels take every branch of that arithmetic.
TEST_CASE("composed routes are SimGrid's, links and latency to the bit: a three-level fat-tree with parallel cables") {
  check_composed_routes("topology = \"fat-tree\"\ndown = [2, 2, 3]\nup = [1, 2, 2]\nlinks = [1, 2, 1]\n", 12, false);
}

TEST_CASE("composed routes are SimGrid's, links and latency to the bit: a fat-tree of nodes with two parents and cables") {
  check_composed_routes("topology = \"fat-tree\"\ndown = [4, 2]\nup = [2, 3]\nlinks = [2, 2]\n", 8, true);
}

TEST_CASE("composed routes are SimGrid's, links and latency to the bit: a three-level fat-tree, cables at every level") {
  check_composed_routes("topology = \"fat-tree\"\ndown = [3, 2, 2]\nup = [2, 2, 3]\nlinks = [3, 2, 2]\n", 12, true);
}

namespace {

/// Every route from a leaf of `tree` (one host per leaf) to a leaf, each as "from to latency links...",
/// the fabric built by SimGrid 3.32's FatTreeZone (`simgrids`) or by create_fat_tree_zone, in a
/// child process (one engine per process; SimGrid's builder numbers with counters of the
/// process, so each child builds its first).
std::string fat_tree_routes(const platform::FatTree& tree, bool simgrids) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("ceiling-fat-tree-" + std::to_string(getpid()) + (simgrids ? "-simgrid" : "-ours"));
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    platform::start_engine({});
    auto* root = simgrid::s4u::create_empty_zone("root");
    std::vector<simgrid::s4u::Host*> hosts;
    const auto leaf = [&](simgrid::s4u::NetZone* zone, long long slot) {
      hosts.push_back(zone->create_host("leaf" + std::to_string(slot), 1e9)->seal());
      return std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*>{
          hosts.back()->get_netpoint(), nullptr};
    };
    const double bandwidth = 1.25e10, latency = 1.7e-7;
    simgrid::s4u::NetZone* fabric = nullptr;
    if (simgrids) {
      const auto u = [](const std::vector<int>& v) { return std::vector<unsigned int>(v.begin(), v.end()); };
      fabric = simgrid::s4u::create_fatTree_zone(
          "fabric", root, {static_cast<unsigned int>(tree.down.size()), u(tree.down), u(tree.up), u(tree.links)},
          simgrid::s4u::ClusterCallbacks(
              [&](simgrid::s4u::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
                return leaf(zone, static_cast<long long>(id));
              }),
          bandwidth, latency, simgrid::s4u::Link::SharingPolicy::SPLITDUPLEX);
    } else {
      fabric = platform::create_fat_tree_zone("fabric", root, tree, leaf, bandwidth, latency);
    }
    fabric->seal();
    root->seal();
    std::ofstream out(file);
    for (const auto* a : hosts) // (a leaf to itself too: up to its switch and back)
      for (const auto* b : hosts)
        write_route(out, a, b, platform::route_between(a, b));
    out.close(); // _Exit flushes nothing
    std::_Exit(out ? 0 : 1);
  }
  require_child_done(child);
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(file);
  return text;
}

} // namespace

TEST_CASE("the fat-tree zone routes as SimGrid's FatTreeZone, link names and latency to the bit, on every shape") {
  const std::vector<platform::FatTree> shapes{
      {{8}, {1}, {1}},                   // one crossbar
      {{4, 4}, {1, 4}, {1, 1}},          // two levels, one cable
      {{4, 2}, {2, 3}, {2, 2}},          // nodes with two parents, parallel cables
      {{2, 2, 3}, {1, 2, 2}, {1, 2, 1}}, // three levels
      {{3, 2, 2}, {2, 2, 3}, {3, 2, 2}}, // three levels, cables at every level
  };
  for (const auto& tree : shapes) {
    long long leaves = 1;
    for (int d : tree.down)
      leaves *= d;
    CAPTURE(leaves);
    CAPTURE(tree.down.size());
    const std::string simgrids = fat_tree_routes(tree, true);
    const std::string ours = fat_tree_routes(tree, false);
    CHECK(std::count(simgrids.begin(), simgrids.end(), '\n') == leaves * leaves);
    const auto self = simgrids.find("leaf0 leaf0 ");
    REQUIRE(self != std::string::npos);
    CHECK(simgrids.substr(self, simgrids.find('\n', self) - self).find("link_from_0_") != std::string::npos);
    CHECK(ours == simgrids);
  }
}
