// Platform files: every bundled one loads; each kind of bad input has its own located message.
#include "support/edit_text.hpp"
#include "config/load_error.hpp"
#include "config/platform_file.hpp"
#include "platform/topology.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

using namespace ceiling;

namespace {

// Line numbers matter: the error tests pin FILE:LINE:COL.
const std::string valid = R"([platform]
name = "t"
nodes = 16

[node.cpu]
sockets = 2
cores_per_socket = 8
peak_fp64 = "166.4 GFLOP/s"
memory_bandwidth = "51.2 GB/s"

[node.nic]
bandwidth = "10 GB/s"
latency = "1 us"

[interconnect]
topology = "single-switch"
link_bandwidth = "20 GB/s"
link_latency = "100 ns"
)";

std::string edited(const std::string& from, const std::string& to) {
  return testing::edited(valid, from, to);
}

/// A [node.gpu] and [node.pcie] before [node.nic], the GPU's device_spread `spread` (line 16),
/// or none where empty.
std::string gpu_with_spread(const std::string& spread) {
  return "[node.gpu]\ncount = 1\npeak_fp32 = \"10 TFLOP/s\"\nmemory_bandwidth = \"900 GB/s\"\nmemory = \"16 GiB\"\n" +
         (spread.empty() ? std::string() : "device_spread = " + spread + "\n") +
         "[node.pcie]\ngeneration = 3\nlanes = 16\nlatency = \"1 us\"\n\n[node.nic]";
}

std::string error_of(const std::string& text) {
  return testing::error_of([&] { config::load_platform_text(text, "bad.toml"); });
}

} // namespace

TEST_CASE("every bundled platform loads and fits its topology") {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(CEILING_SOURCE_DIR "/platforms")) {
    if (entry.path().extension() != ".toml")
      continue;
    CAPTURE(entry.path().string());
    const auto spec = config::load_platform(entry.path().string());
    CHECK(spec.nodes >= 1);
    CHECK_FALSE(platform::allocation_problem(spec, spec.nodes).has_value());
    ++loaded;
  }
  CHECK(loaded >= 4); // one per topology kind at least
}

TEST_CASE("a valid platform reads into the spec it describes") {
  const auto spec = config::load_platform_text(valid, "ok.toml");
  CHECK(spec.name == "t");
  CHECK(spec.nodes == 16);
  CHECK(spec.node.cpu.sockets == 2);
  CHECK(spec.node.cpu.peak_per_socket.fp64->flop_per_second() == 166.4e9);
  CHECK_FALSE(spec.node.cpu.peak_per_socket.fp32.has_value());
  CHECK_FALSE(spec.node.is_gpu_node());
  CHECK(spec.node.nic.bandwidth.bytes_per_second() == 10e9);
  CHECK_FALSE(spec.node.nic.gpu_direct); // documented default
  CHECK(spec.node.nic.ports == 1);        // documented default
  CHECK(config::load_platform_text(edited("latency = \"1 us\"\n", "latency = \"1 us\"\nports = 8\n"), "ok.toml").node.nic.ports == 8);
  CHECK(std::holds_alternative<platform::SingleSwitch>(spec.interconnect.topology));
}

TEST_CASE("a GPU's device spread reads as given, 0 where not given") {
  CHECK(config::load_platform_text(edited("[node.nic]", gpu_with_spread("0.0092")), "t.toml").node.gpu->device_spread == 0.0092);
  CHECK(config::load_platform_text(edited("[node.nic]", gpu_with_spread("")), "t.toml").node.gpu->device_spread == 0.0);
}

TEST_CASE("a unit in the key name replaces the unit in the text") {
  const auto spec = config::load_platform_text(
      edited("bandwidth = \"10 GB/s\"", "bandwidth_GB_per_s = 10"), "ok.toml");
  CHECK(spec.node.nic.bandwidth.bytes_per_second() == 10e9);
  const auto us = config::load_platform_text(edited("latency = \"1 us\"", "latency_us = 1"), "ok.toml");
  CHECK(us.node.nic.latency.seconds() == doctest::Approx(1e-6).epsilon(1e-15));
}

TEST_CASE("PCIe bandwidth follows from generation and lanes") {
  // Expectation: Gen2 is 5 GT/s with 8b/10b (0.5 GB/s per lane), Gen3 8 GT/s with 128b/130b.
  CHECK(config::pcie_lane_bandwidth(2).bytes_per_second() * 16 == 8e9);
  CHECK(config::pcie_lane_bandwidth(3).bytes_per_second() == doctest::Approx(8e9 / 8 * 128 / 130));
}

TEST_CASE("bad platform files are refused with file, line, column, key and reason") {
  SUBCASE("unknown key, with the closest known one") {
    CHECK(error_of(edited("cores_per_socket", "cores_per_sockt")) ==
          R"(bad.toml:7:1: error: node.cpu.cores_per_sockt: unknown key (did you mean "cores_per_socket"?))");
  }
  SUBCASE("a unit in a key's name that is none of its units, or a misspelt key before a unit") {
    CHECK(error_of(edited("bandwidth = \"10 GB/s\"", "bandwidth_GB_per_S = 10")) ==
          R"(bad.toml:12:1: error: node.nic.bandwidth_GB_per_S: unknown key: "GB_per_S" after "bandwidth" is no unit of it: expected a data rate such as "12 GB/s", "11.88 GiB/s" or "100 Gbit/s")");
    CHECK(error_of(edited("bandwidth = \"10 GB/s\"", "bandwith_GB_per_s = 10")) ==
          R"(bad.toml:12:1: error: node.nic.bandwith_GB_per_s: unknown key (did you mean "bandwidth_GB_per_s"?))");
  }
  SUBCASE("missing key") {
    CHECK(error_of(edited("latency = \"1 us\"\n", "")) ==
          R"(bad.toml:11:1: error: node.nic.latency: missing key: expected a duration such as "1.3 us", "650 ns" or "2 s")");
  }
  SUBCASE("wrong unit") {
    CHECK(error_of(edited("\"10 GB/s\"", "\"10 GB\"")) ==
          R"(bad.toml:12:13: error: node.nic.bandwidth: unknown unit "GB" in "10 GB": expected a data rate such as "12 GB/s", "11.88 GiB/s" or "100 Gbit/s")");
  }
  SUBCASE("a bare number without a unit") {
    CHECK(error_of(edited("\"10 GB/s\"", "10")) ==
          R"(bad.toml:12:13: error: node.nic.bandwidth: missing unit: write it as a string with its unit, a data rate such as "12 GB/s", "11.88 GiB/s" or "100 Gbit/s", or put the unit in the key name, as in "node.nic.bandwidth_GB_per_s")");
  }
  SUBCASE("a bare number without a unit is told its own kind of unit for the key name") {
    CHECK(error_of(edited("latency = \"1 us\"", "latency = 1")) ==
          R"(bad.toml:13:11: error: node.nic.latency: missing unit: write it as a string with its unit, a duration such as "1.3 us", "650 ns" or "2 s", or put the unit in the key name, as in "node.nic.latency_us")");
  }
  SUBCASE("negative bandwidth") {
    CHECK(error_of(edited("\"10 GB/s\"", "\"-3 GB/s\"")) ==
          R"(bad.toml:12:13: error: node.nic.bandwidth: must be positive, got "-3 GB/s")");
  }
  SUBCASE("zero bandwidth") {
    CHECK(error_of(edited("\"20 GB/s\"", "\"0 GB/s\"")) ==
          R"(bad.toml:17:18: error: interconnect.link_bandwidth: must be positive, got "0 GB/s")");
  }
  SUBCASE("impossible topology shape") {
    CHECK(error_of(edited("topology = \"single-switch\"",
                          "topology = \"dragonfly\"\ngroups = 5\nglobal_links = 1\n"
                          "chassis_per_group = 1\nchassis_links = 1\nrouters_per_chassis = 4\n"
                          "router_links = 1\nnodes_per_router = 1")) ==
          R"(bad.toml:17:10: error: interconnect.groups: impossible dragonfly shape: groups (5) must not exceed routers_per_chassis (4): SimGrid attaches the global link towards group j to router j of chassis 0)");
  }
  SUBCASE("a key of another topology") {
    CHECK(error_of(edited("link_latency = \"100 ns\"", "link_latency = \"100 ns\"\ngroups = 2")) ==
          R"(bad.toml:19:10: error: interconnect.groups: belongs to topology "dragonfly", but topology is "single-switch")");
  }
  SUBCASE("more nodes than the topology has slots") {
    CHECK(error_of(edited("topology = \"single-switch\"", "topology = \"torus\"\ndimensions = [2, 2]")) ==
          R"(bad.toml:3:9: error: platform.nodes: the torus described in [interconnect] has 4 node slots, fewer than nodes = 16)");
  }
  SUBCASE("unknown topology, with a suggestion") {
    CHECK(error_of(edited("\"single-switch\"", "\"fattree\"")) ==
          R"(bad.toml:16:12: error: interconnect.topology: unknown value "fattree": expected one of "single-switch", "fat-tree", "torus", "dragonfly" (did you mean "fat-tree"?))");
  }
  SUBCASE("no NIC ports") {
    CHECK(error_of(edited("latency = \"1 us\"\n", "latency = \"1 us\"\nports = 0\n")) ==
          R"(bad.toml:14:9: error: node.nic.ports: must be between 1 and 64, got 0)");
  }
  SUBCASE("zero nodes") {
    CHECK(error_of(edited("nodes = 16", "nodes = 0")) ==
          R"(bad.toml:3:9: error: platform.nodes: must be between 1 and 262144, got 0)");
  }
  SUBCASE("a GPU table on a CPU node") {
    CHECK(error_of(edited("[node.nic]", "[node.pcie]\nlanes = 16\n\n[node.nic]")) ==
          R"(bad.toml:11:1: error: node.pcie: only a GPU node has this table; add [node.gpu] or remove it)");
  }
  SUBCASE("a device spread beyond 10 % or below 0") {
    CHECK(error_of(edited("[node.nic]", gpu_with_spread("0.5"))) ==
          R"(bad.toml:16:17: error: node.gpu.device_spread: must be at least 0 and at most 0.1, got 0.5)");
    CHECK(error_of(edited("[node.nic]", gpu_with_spread("-0.01"))) ==
          R"(bad.toml:16:17: error: node.gpu.device_spread: must be at least 0 and at most 0.1, got -0.01)");
  }
  SUBCASE("TOML syntax") {
    CHECK(error_of(edited("nodes = 16", "nodes = = 16")) ==
          R"(bad.toml:3:9: error: invalid TOML: Error while parsing value: could not determine value type)");
  }
}

TEST_CASE("a run cannot ask for no nodes or more nodes than the machine has") {
  const auto spec = config::load_platform_text(valid, "ok.toml");
  CHECK(platform::allocation_problem(spec, 0).value() == "the node count must be at least 1, got 0");
  CHECK(platform::allocation_problem(spec, 17).value() == "the machine t has 16 nodes, fewer than the 17 asked for");
  CHECK_FALSE(platform::allocation_problem(spec, 16).has_value());
}

TEST_CASE("a missing file is an error naming the file") {
  try {
    config::load_platform("no-such-file.toml");
    FAIL("no error");
  } catch (const config::LoadError& e) {
    CHECK(std::string(e.what()) == "no-such-file.toml: error: cannot open the file for reading: No such file or directory");
  }
}
