// --set KEY=VALUE overrides: read like the file itself, errors located at the override.
#include "config/load_error.hpp"
#include "config/overrides.hpp"
#include "config/platform_file.hpp"
#include "config/table_reader.hpp"
#include "config/workload_file.hpp"
#include "support/edit_text.hpp"

#include <doctest/doctest.h>

#include <string>
#include <variant>
#include <vector>

using namespace ceiling;

namespace {

const std::string daint = CEILING_SOURCE_DIR "/platforms/piz-daint-xc50-p100.toml";
const std::string resnet = CEILING_SOURCE_DIR "/workloads/resnet50_v1.toml";

platform::PlatformSpec daint_with(std::vector<std::string> overrides) {
  return config::load_platform(daint, overrides);
}

std::string error_with(std::vector<std::string> overrides) {
  return testing::error_of([&] { config::load_platform(daint, overrides); });
}

} // namespace

TEST_CASE("an override replaces one key and leaves the others as the file has them") {
  const auto base = config::load_platform(daint);
  SUBCASE("a quantity with its unit, quoted as in the file") {
    const auto p = daint_with({"interconnect.link_bandwidth=\"25 GB/s\""});
    CHECK(p.interconnect.link_bandwidth.bytes_per_second() == 25e9);
    CHECK(p.interconnect.link_latency == base.interconnect.link_latency);
    CHECK(p.node == base.node);
  }
  SUBCASE("unquoted text is taken as a string") {
    CHECK(daint_with({"interconnect.link_bandwidth=25 GB/s"}).interconnect.link_bandwidth ==
          units::Bandwidth::from_bytes_per_second(25e9));
  }
  SUBCASE("a count of parts") {
    CHECK(daint_with({"node.nic.bandwidth=2 x 12.5 GB/s"}).node.nic.bandwidth ==
          units::Bandwidth::from_bytes_per_second(25e9));
  }
  SUBCASE("an integer, a boolean, a duration") {
    const auto p = daint_with(
        {"platform.nodes=64", "node.nic.gpu_direct=true", "node.pcie.latency=2 us"});
    CHECK(p.nodes == 64);
    CHECK(p.node.nic.gpu_direct);
    CHECK(p.node.pcie->latency.seconds() == doctest::Approx(2e-6).epsilon(1e-12));
  }
  SUBCASE("the later of two overrides of one key wins") {
    CHECK(daint_with({"platform.nodes=64", "platform.nodes=32"}).nodes == 32);
  }
  SUBCASE("workload overrides are skipped by the platform and read by the workload") {
    CHECK(daint_with({"workload.batch_per_worker=8"}) == base);
    const std::vector<std::string> set{"workload.batch_per_worker=8", "platform.nodes=2"};
    CHECK(config::load_workload(resnet, set).batch_per_worker == 8);
  }
}

TEST_CASE("an override in the other spelling of a quantity replaces the file's") {
  // resnet50_v1.toml writes input_bytes = 602112 (a plain number, its unit in the key): the
  // override with its unit in the value replaces it, and the other way round ("given twice"
  // was reported at the file's line). Expectation: the override's value, exactly.
  CHECK(config::load_workload(resnet, std::vector<std::string>{"workload.input=\"1 MiB\""}).input_per_sample.bytes() == 1048576);
  CHECK(config::load_workload(resnet, std::vector<std::string>{"workload.input_bytes=1000"}).input_per_sample.bytes() == 1000);
  // The platform writes latency with its unit in the text; the override, in the key.
  CHECK(daint_with({"node.pcie.latency_us=2"}).node.pcie->latency.seconds() == doctest::Approx(2e-6).epsilon(1e-12));
  CHECK(config::quantity_key_stem("input_bytes") == "input");
  CHECK(config::quantity_key_stem("link_bandwidth") == "link_bandwidth"); // "bandwidth" is no unit
  CHECK(config::quantity_key_stem("forward_flop") == "forward");
}

TEST_CASE("an override of the topology drops the former topology's keys") {
  const auto p = daint_with({"interconnect.topology=torus", "interconnect.dimensions=[8, 8, 8]",
                             "platform.nodes=512"});
  REQUIRE(std::holds_alternative<platform::Torus>(p.interconnect.topology));
  CHECK(std::get<platform::Torus>(p.interconnect.topology).dimensions == std::vector{8, 8, 8});
  // The order of the overrides does not matter: a shape key given before the topology stays.
  const auto reversed = daint_with({"interconnect.dimensions=[8, 8, 8]",
                                    "interconnect.topology=torus", "platform.nodes=512"});
  CHECK(reversed.interconnect.topology == p.interconnect.topology);
  // The new shape's keys are required, as in a file, and one that no override gives is named at
  // the override of the topology (the file's keys went with its own topology).
  CHECK(error_with({"interconnect.topology=fat-tree"}) ==
        "--set:1:23: error: interconnect.topology: a fat-tree needs interconnect.down: add --set interconnect.down=... "
        "(an override to another topology drops the file's shape keys)");
  CHECK(error_with({"interconnect.topology=fat-tree", "interconnect.down=[4]", "interconnect.up=[1]"})
            .starts_with("--set:1:23: error: interconnect.topology: a fat-tree needs interconnect.links: "));
  // A new shape with fewer slots than the file's nodes: named at that override, with the way out.
  CHECK(error_with({"interconnect.topology=torus", "interconnect.dimensions=[16, 16, 16]"}) ==
        "--set:1:23: error: interconnect.topology: the torus described in [interconnect] has 4096 node slots, "
        "fewer than nodes = 5320, the file's: add --set platform.nodes=... (at most 4096)");
  // Where the node count is an override's too, at that one.
  CHECK(error_with({"interconnect.topology=torus", "interconnect.dimensions=[4, 4]", "platform.nodes=17"}) ==
        "--set:1:16: error: platform.nodes: the torus described in [interconnect] has 16 node slots, fewer than "
        "nodes = 17");
}

TEST_CASE("a suggestion counts a swap of two neighbouring characters as one edit") {
  const std::vector<std::string> precisions{"fp64", "fp32", "fp16", "mixed"};
  CHECK(config::did_you_mean("fp23", precisions) == " (did you mean \"fp32\"?)");
  CHECK(config::did_you_mean("fp46", precisions) == " (did you mean \"fp64\"?)");
  CHECK(config::did_you_mean("mxied", precisions) == " (did you mean \"mixed\"?)");
  CHECK(config::did_you_mean("fp8", precisions) == " (did you mean \"fp64\"?)"); // two edits: the first of equals
  CHECK(config::did_you_mean("bfloat16", precisions).empty());
}

TEST_CASE("an error in an override points at the override and names its key") {
  CHECK(error_with({"interconnect.link_bandwidth=-1 GB/s"}) ==
        "--set:1:29: error: interconnect.link_bandwidth: must be positive, got \"-1 GB/s\"");
  CHECK(error_with({"platform.nodes=many"}) ==
        "--set:1:16: error: platform.nodes: expected an integer, got a string");
  // An unknown key that an override adds is placed at the override, not in the file.
  CHECK(error_with({"interconnect.link_bandwith=1 GB/s"}) ==
        "--set:1:28: error: interconnect.link_bandwith: unknown key (did you mean \"link_bandwidth\"?)");
  // With no close key, the table's keys, a quantity's with the unit its name may carry.
  CHECK(error_with({"node.nic.bogus=1"}) ==
        "--set:1:16: error: node.nic.bogus: unknown key; known keys here: bandwidth[_UNIT], gpu_direct, latency[_UNIT], "
        "ports, receive_overhead[_UNIT], send_overhead[_UNIT]");
  CHECK(error_with({"interconect.link_bandwidth=1 GB/s"}) ==
        "--set:1:1: error: interconect.link_bandwidth: unknown key (did you mean "
        "\"interconnect\"?): an override starts with a table of the platform file (platform, "
        "node, interconnect), of the workload file (workload, reference, graph, calibration, "
        "validation, hpl, hpcg) or of the software file (software)");
  CHECK(error_with({"nodes"}) == "--set: error: expected KEY=VALUE (such as "
                                 "interconnect.link_bandwidth=\"25 GB/s\"), got \"nodes\"");
}

TEST_CASE("an override's target is told by its first key") {
  CHECK(config::override_target("node.nic.bandwidth=1 GB/s") == config::OverrideTarget::Platform);
  CHECK(config::override_target("workload.batch_per_worker=1") ==
        config::OverrideTarget::Workload);
  CHECK(config::override_target(" calibration.compute_efficiency = 0.5") ==
        config::OverrideTarget::Workload);
}

TEST_CASE("an override reaches its own key and every key of the table or array it sets, however "
          "its key is written") {
  CHECK(config::override_reaches("node.gpu.memory=\"1 GB\"", "node.gpu.memory"));
  CHECK(config::override_reaches(" node . \"gpu\" .memory = \"1 GB\"", "node.gpu.memory"));
  CHECK(config::override_reaches("node.gpu={count = 2}",
                                 "node.gpu.memory")); // (an inline table replaces it whole)
  CHECK(config::override_reaches("graph.layers=[]", "graph.layers[1].name"));
  CHECK(config::override_reaches("node.gpu.count=two words", "node.gpu.count")); // (taken as text)
  CHECK_FALSE(config::override_reaches("node.gpu.memory=\"1 GB\"", "node.gpu"));
  CHECK_FALSE(config::override_reaches("node.gpu=1", "node.gpus"));
  CHECK_FALSE(config::override_reaches("node.gpu.memory", "node.gpu.memory")); // (no value)
}
