// Reading platform files: one function per table, each checking its own keys.
#include "config/platform_file.hpp"

#include "config/overrides_internal.hpp"
#include "config/software_file.hpp"
#include "config/table_reader.hpp"
#include "platform/topology.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <charconv>
#include <filesystem>
#include <span>

namespace ceiling::config {
namespace {

using platform::PeakRates;
using units::Bandwidth;
using units::DataSize;
using units::Duration;
using units::FlopRate;

/// A link's latency: 0, or at least SimGrid's time precision (surf/precision, 1 ns), below which
/// it would round the latency (and warn of it on stderr, naming a setting users cannot pass).
Duration link_latency(TableReader& t, std::string_view key) {
  const auto latency = t.quantity<Duration>(key, Sign::NonNegative);
  if (latency.seconds() > 0 && latency.seconds() < 1e-9)
    t.fail(key, "must be 0 or at least 1 ns (SimGrid's time precision, surf/precision, below which it rounds "
                "a latency), got " + units::to_string(latency));
  return latency;
}

PeakRates read_peaks(TableReader& t) {
  PeakRates peaks{.fp64 = t.optional_quantity<FlopRate>("peak_fp64", Sign::Positive),
                  .fp32 = t.optional_quantity<FlopRate>("peak_fp32", Sign::Positive),
                  .fp16 = t.optional_quantity<FlopRate>("peak_fp16", Sign::Positive)};
  if (!peaks.fp64 && !peaks.fp32 && !peaks.fp16)
    t.fail("peak_fp32", "missing key: give the peak rate of at least one precision "
                        "(peak_fp64, peak_fp32, peak_fp16), such as \"9.3 TFLOP/s\"");
  return peaks;
}

/// A measured DGEMM or STREAM rate cannot pass the peak it is measured against (the HPC
/// workloads' E would pass 1): refused at its key.
void check_measured(TableReader& t, const PeakRates& peaks, Bandwidth memory_bandwidth,
                    const std::optional<FlopRate>& dgemm, const std::optional<Bandwidth>& stream) {
  if (dgemm && peaks.fp64 && dgemm->flop_per_second() > peaks.fp64->flop_per_second())
    t.fail("dgemm", "measured " + units::to_string(*dgemm) + ", above peak_fp64 (" + units::to_string(*peaks.fp64) +
                        "): expected at most the peak (give the peak at the clock DGEMM runs at)");
  if (stream && stream->bytes_per_second() > memory_bandwidth.bytes_per_second())
    t.fail("stream_bandwidth", "measured " + units::to_string(*stream) + ", above memory_bandwidth (" +
                                   units::to_string(memory_bandwidth) + "): expected at most the nominal bandwidth");
}

platform::CpuSpec read_cpu(TableReader t) {
  platform::CpuSpec cpu{
      .model = t.optional_label("model", TableReader::most_name_characters).value_or(""),
      .sockets = static_cast<int>(t.integer("sockets", 1, 64)),
      .cores_per_socket = static_cast<int>(t.integer("cores_per_socket", 1, 100000)),
      .peak_per_socket = read_peaks(t),
      .memory_bandwidth_per_socket = t.quantity<Bandwidth>("memory_bandwidth", Sign::Positive),
      .core_memory_bandwidth = t.optional_quantity<Bandwidth>("core_memory_bandwidth", Sign::Positive),
      .host_memory = t.optional_quantity<DataSize>("host_memory", Sign::Positive),
      .dgemm = t.optional_quantity<FlopRate>("dgemm", Sign::Positive),
      .stream_bandwidth = t.optional_quantity<Bandwidth>("stream_bandwidth", Sign::Positive)};
  check_measured(t, cpu.peak_per_socket, cpu.memory_bandwidth_per_socket, cpu.dgemm, cpu.stream_bandwidth);
  if (cpu.core_memory_bandwidth &&
      cpu.core_memory_bandwidth->bytes_per_second() > cpu.memory_bandwidth_per_socket.bytes_per_second())
    t.fail("core_memory_bandwidth", units::to_string(*cpu.core_memory_bandwidth) + ", above the socket's memory_bandwidth (" +
                                        units::to_string(cpu.memory_bandwidth_per_socket) +
                                        "): expected what one core reaches, at most its socket's");
  t.reject_unknown_keys();
  return cpu;
}

/// CUDA's compute capability, major.minor with one digit of minor ("7.0"), as major x 10 + minor;
/// 0 when not given.
int read_compute_capability(TableReader& t) {
  const auto value = t.optional_number("compute_capability", 1.0, 20.0);
  if (!value)
    return 0;
  const double tenths = 10 * *value;
  if (std::abs(tenths - std::round(tenths)) > 1e-12) // (6.1 reads as 6.1000000000000001: 61 within 1e-14)
    t.fail("compute_capability", "expected major.minor with one digit of minor, such as 6.0 or 7.5");
  return static_cast<int>(std::lround(tenths));
}

platform::GpuSpec read_gpu(TableReader t) {
  platform::GpuSpec gpu{.count = static_cast<int>(t.integer("count", 1, 64)),
                        .model = t.optional_label("model", TableReader::most_name_characters).value_or(""),
                        .calibration_device = t.optional_name("calibration_device", "the device whose calibrations this one takes").value_or(""),
                        .peak = read_peaks(t),
                        .base_clock_peak_fp64 = t.optional_quantity<FlopRate>("base_clock_peak_fp64", Sign::Positive),
                        .memory_bandwidth = t.quantity<Bandwidth>("memory_bandwidth", Sign::Positive),
                        .memory = t.quantity<DataSize>("memory", Sign::Positive),
                        .multiprocessors = static_cast<int>(t.optional_integer("multiprocessors", 1, 1'000'000).value_or(0)),
                        .compute_capability = read_compute_capability(t),
                        .device_spread = t.optional_number("device_spread", 0, platform::max_device_spread).value_or(0),
                        .dgemm = t.optional_quantity<FlopRate>("dgemm", Sign::Positive),
                        .stream_bandwidth = t.optional_quantity<Bandwidth>("stream_bandwidth", Sign::Positive)};
  check_measured(t, gpu.peak, gpu.memory_bandwidth, gpu.dgemm, gpu.stream_bandwidth);
  // A GPU's base clock is 0.64 (K80: 560 of 875 MHz) to 1 (K20X: one clock) of its boost clock.
  if (gpu.base_clock_peak_fp64 && gpu.peak.fp64 &&
      (gpu.base_clock_peak_fp64->flop_per_second() > gpu.peak.fp64->flop_per_second() ||
       gpu.base_clock_peak_fp64->flop_per_second() < 0.5 * gpu.peak.fp64->flop_per_second()))
    t.fail("base_clock_peak_fp64",
           units::to_string(*gpu.base_clock_peak_fp64) + ", " +
               (gpu.base_clock_peak_fp64->flop_per_second() > gpu.peak.fp64->flop_per_second()
                    ? "above"
                    : "below half of") +
               " peak_fp64 (" + units::to_string(*gpu.peak.fp64) +
               "): expected the peak at the base clock, from half the boost clock's to all of it");
  t.reject_unknown_keys();
  return gpu;
}

/// Bandwidth per direction from `generation` and `lanes`, or given explicitly; never both.
platform::PcieSpec read_pcie(TableReader t) {
  const auto generation = t.optional_integer("generation", 1, 5);
  const auto lanes = t.optional_integer("lanes", 1, 32);
  const auto both = t.optional_quantity<Bandwidth>("bandwidth", Sign::Positive);
  auto h2d = t.optional_quantity<Bandwidth>("host_to_device", Sign::Positive);
  auto d2h = t.optional_quantity<Bandwidth>("device_to_host", Sign::Positive);
  const bool explicit_rate = both || h2d || d2h;
  if (generation.has_value() != lanes.has_value())
    t.fail(generation ? "lanes" : "generation",
           "missing key: generation and lanes go together (e.g. generation = 3, lanes = 16)");
  if (generation && explicit_rate)
    t.fail(both ? "bandwidth" : (h2d ? "host_to_device" : "device_to_host"),
           "give either generation and lanes or explicit bandwidths, not both");
  if (generation) {
    h2d = d2h = pcie_lane_bandwidth(static_cast<int>(*generation)) * static_cast<double>(*lanes);
  } else if (both) {
    if (h2d || d2h)
      t.fail(h2d ? "host_to_device" : "device_to_host",
             "give either bandwidth (both directions) or host_to_device and device_to_host");
    h2d = d2h = both;
  } else if (!h2d || !d2h) {
    t.fail(h2d ? "device_to_host" : (d2h ? "host_to_device" : "bandwidth"),
           "missing key: give generation and lanes, bandwidth, or host_to_device and "
           "device_to_host");
  }
  platform::PcieSpec pcie{.host_to_device = *h2d,
                          .device_to_host = *d2h,
                          .latency = link_latency(t, "latency")};
  pcie.copy_overhead = t.optional_quantity<Duration>("copy_overhead", Sign::NonNegative).value_or(Duration{});
  t.reject_unknown_keys();
  return pcie;
}

platform::GpuLinkSpec read_gpu_link(TableReader t) {
  platform::GpuLinkSpec link{.bandwidth = t.quantity<Bandwidth>("bandwidth", Sign::Positive),
                             .latency = link_latency(t, "latency")};
  if (t.has("pairs")) {
    const auto pairs = t.string_list("pairs");
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      // "J-K": two different GPU indices from 0 to 63, written without leading zeros.
      const std::string_view pair = pairs[i];
      int j = -1, k = -1;
      const auto parse = [](std::string_view digits, int& to) {
        const auto* end = digits.data() + digits.size();
        return !digits.empty() && (digits.size() == 1 || digits[0] != '0') &&
               std::from_chars(digits.data(), end, to).ptr == end && to >= 0 && to < 64;
      };
      const auto dash = pair.find('-');
      if (dash == std::string_view::npos || !parse(pair.substr(0, dash), j) || !parse(pair.substr(dash + 1), k) || j == k)
        t.fail_element("pairs", i,
                       "\"" + std::string(pair) +
                           "\" is not a pair of GPUs: expected \"J-K\", two different GPU indices from 0 to 63 (\"0-1\")");
      link.pairs.emplace_back(j, k);
    }
    if (link.pairs.empty())
      t.fail("pairs", "empty: list the GPU pairs joined by a link (\"0-1\"), or leave the key out for a switch");
  }
  t.reject_unknown_keys();
  return link;
}

platform::NicSpec read_nic(TableReader t) {
  platform::NicSpec nic{.bandwidth = t.quantity<Bandwidth>("bandwidth", Sign::Positive),
                        .latency = link_latency(t, "latency"),
                        .send_overhead = t.optional_quantity<Duration>("send_overhead", Sign::NonNegative).value_or(Duration{}),
                        .receive_overhead = t.optional_quantity<Duration>("receive_overhead", Sign::NonNegative).value_or(Duration{}),
                        .gpu_direct = t.boolean_or("gpu_direct", false)};
  if (auto ports = t.optional_integer("ports", 1, 64))
    nic.ports = static_cast<int>(*ports);
  t.reject_unknown_keys();
  return nic;
}

platform::NodeSpec read_node(TableReader t) {
  platform::NodeSpec node;
  node.cpu = read_cpu(t.table("cpu"));
  if (auto gpu = t.optional_table("gpu")) {
    node.gpu = read_gpu(*gpu);
    node.pcie = read_pcie(t.table("pcie"));
    // With one GPU the link carries nothing; it is kept so that a machine's GPU count can be
    // overridden down to one (a validation series on one GPU of a multi-GPU server).
    if (auto link = t.optional_table("gpu_link"))
      node.gpu_link = read_gpu_link(*link);
  } else {
    for (std::string_view gpu_only : {"pcie", "gpu_link"})
      if (t.has(gpu_only))
        t.fail(gpu_only, "only a GPU node has this table; add [node.gpu] or remove it");
  }
  node.nic = read_nic(t.table("nic"));
  t.reject_unknown_keys();
  return node;
}

// Keys of each topology, so that a key of another topology gets a precise message.
constexpr std::array<std::string_view, 3> fat_tree_keys{"down", "up", "links"};
constexpr std::array<std::string_view, 1> torus_keys{"dimensions"};
constexpr std::array<std::string_view, 7> dragonfly_keys{
    "groups",       "global_links",        "chassis_per_group", "chassis_links",
    "router_links", "routers_per_chassis", "nodes_per_router"};

/// The keys of topology `kind`'s shape (none for a single switch).
std::span<const std::string_view> shape_keys(std::string_view kind) {
  if (kind == "fat-tree")
    return fat_tree_keys;
  if (kind == "torus")
    return torus_keys;
  if (kind == "dragonfly")
    return dragonfly_keys;
  return {};
}

std::vector<int> to_ints(const std::vector<long long>& values) {
  return {values.begin(), values.end()};
}

platform::Topology read_topology(TableReader& t, std::string_view kind) {
  constexpr long long max_radix = 1'000'000;
  if (kind == "fat-tree")
    return platform::FatTree{.down = to_ints(t.integer_list("down", 1, max_radix)),
                             .up = to_ints(t.integer_list("up", 1, max_radix)),
                             .links = to_ints(t.integer_list("links", 1, max_radix))};
  if (kind == "torus")
    return platform::Torus{.dimensions = to_ints(t.integer_list("dimensions", 1, max_radix))};
  if (kind == "dragonfly")
    return platform::Dragonfly{
        .groups = static_cast<int>(t.integer("groups", 1, max_radix)),
        .global_links = static_cast<int>(t.integer("global_links", 1, max_radix)),
        .chassis_per_group = static_cast<int>(t.integer("chassis_per_group", 1, max_radix)),
        .chassis_links = static_cast<int>(t.integer("chassis_links", 1, max_radix)),
        .routers_per_chassis = static_cast<int>(t.integer("routers_per_chassis", 1, max_radix)),
        .router_links = static_cast<int>(t.integer("router_links", 1, max_radix)),
        .nodes_per_router = static_cast<int>(t.integer("nodes_per_router", 1, max_radix))};
  return platform::SingleSwitch{};
}

platform::InterconnectSpec read_interconnect(TableReader t) {
  const std::string kind = t.choice("topology", {"single-switch", "fat-tree", "torus", "dragonfly"});
  // An override that changes the topology drops the file's shape keys (drop_replaced_topology):
  // a key of the new shape that is missing is named at that override, not at the file.
  if (t.location_of_key("topology").path == "--set")
    for (std::string_view key : shape_keys(kind))
      if (!t.has(key))
        t.fail("topology", "a " + kind + " needs interconnect." + std::string(key) + ": add --set interconnect." +
                               std::string(key) + "=... (an override to another topology drops the file's shape keys)");
  platform::InterconnectSpec net{
      .topology = read_topology(t, kind),
      .link_bandwidth = t.quantity<Bandwidth>("link_bandwidth", Sign::Positive),
      .link_latency = link_latency(t, "link_latency")};
  const auto reject_foreign = [&](auto keys, std::string_view owner) {
    if (owner == kind)
      return;
    for (std::string_view key : keys)
      if (t.has(key))
        t.fail(key, "belongs to topology \"" + std::string(owner) + "\", but topology is \"" +
                        kind + "\"");
  };
  reject_foreign(fat_tree_keys, "fat-tree");
  reject_foreign(torus_keys, "torus");
  reject_foreign(dragonfly_keys, "dragonfly");
  // (at the key the problem is about: a dragonfly's groups, set in the file or by --set; a
  // fat-tree's list whose length differs from the other two, wherever it was given; else at a key
  // of the shape that an override gave, where one did, else at the topology)
  if (auto problem = platform::shape_problem(net.topology)) {
    const auto at_fault = [&]() -> std::string_view {
      if (const auto* f = std::get_if<platform::FatTree>(&net.topology)) {
        const std::size_t down = f->down.size(), up = f->up.size(), links = f->links.size();
        if (up == links && down != up)
          return "down";
        if (down == links && up != down)
          return "up";
        if (down == up && links != down)
          return "links";
      }
      for (std::string_view key : shape_keys(kind))
        if (t.has(key) && t.location_of_key(key).path == "--set")
          return key;
      return "topology";
    };
    t.fail(std::holds_alternative<platform::Dragonfly>(net.topology) ? "groups" : at_fault(),
           "impossible " + kind + " shape: " + *problem);
  }
  net.routing = platform::default_routing(net.topology);
  if (auto routing = t.optional_string("routing")) {
    const auto parsed = platform::routing_from_string(*routing);
    if (!parsed)
      t.fail("routing", "unknown routing \"" + *routing + "\": expected one of " + platform::routing_list());
    if (auto problem = platform::routing_problem(net.topology, *parsed))
      t.fail("routing", *problem);
    net.routing = *parsed;
  }
  t.reject_unknown_keys();
  return net;
}

platform::PlatformSpec read_platform(const toml::table& root, const std::string& path) {
  TableReader file(root, "", path);
  TableReader head = file.table("platform");
  platform::PlatformSpec spec;
  spec.name = head.name("name", "it labels the outputs");
  spec.description = head.optional_label("description", most_question_characters).value_or("");
  spec.nodes = static_cast<int>(head.integer("nodes", 1, platform::max_slots));
  if (const auto software = head.optional_string("software"))
    spec.software = software_named(head, "software", *software);
  head.reject_unknown_keys();
  spec.node = read_node(file.table("node"));
  spec.interconnect = read_interconnect(file.table("interconnect"));
  file.reject_unknown_keys();

  const long long slots = platform::slot_count(spec.interconnect.topology);
  if (slots > platform::max_slots)
    file.fail("interconnect", "the " + std::string(platform::topology_name(spec.interconnect.topology)) +
                                  " has more than " + std::to_string(platform::max_slots) +
                                  " node slots (the product of its sizes): the most a machine may have");
  if (const long long cables = platform::cable_count(spec); cables > platform::max_cables)
    file.fail("interconnect", "the " + std::string(platform::topology_name(spec.interconnect.topology)) +
                                  " has more than " + std::to_string(platform::max_cables) +
                                  " cables and switches (parallel links counted): the most a machine may have, more "
                                  "than 1 KB each in the simulation");
  if (slots > 0 && spec.nodes > slots) {
    const std::string what = "the " + std::string(platform::topology_name(spec.interconnect.topology)) +
                             " described in [interconnect] has " + std::to_string(slots) +
                             " node slots, fewer than nodes = " + std::to_string(spec.nodes);
    // (at an override that changed the shape, of the topology or of one of its sizes, where one did
    // and the node count is the file's)
    if (head.location_of_key("nodes").path != "--set") {
      TableReader net = file.table("interconnect");
      std::vector<std::string_view> keys{"topology"};
      const auto shape = shape_keys(platform::topology_name(spec.interconnect.topology));
      keys.insert(keys.end(), shape.begin(), shape.end());
      for (std::string_view key : keys)
        if (net.has(key) && net.location_of_key(key).path == "--set")
          net.fail(key, what + ", the file's: add --set platform.nodes=... (at most " + std::to_string(slots) + ")");
    }
    head.fail("nodes", what);
  }
  return spec;
}

/// An override that changes interconnect.topology makes the keys of the former topology
/// meaningless: they are dropped from the file's table, so that the override names the new
/// shape's keys alone (--set interconnect.topology=torus --set interconnect.dimensions=[8,8,8]).
/// The file's routing goes too: the new topology gets its default unless the override names one.
void drop_replaced_topology(toml::table& base, const toml::table& over) {
  const auto* new_kind = over.at_path("interconnect.topology").as_string();
  toml::table* net = base["interconnect"].as_table();
  if (!new_kind || !net)
    return;
  const auto* old_kind = net->get_as<std::string>("topology");
  if (old_kind && old_kind->get() == new_kind->get())
    return;
  for (auto keys : {std::span<const std::string_view>(fat_tree_keys),
                    std::span<const std::string_view>(torus_keys),
                    std::span<const std::string_view>(dragonfly_keys)})
    for (std::string_view key : keys)
      net->erase(key);
  net->erase("routing");
}

platform::PlatformSpec load_platform_text_or_file(toml::table root, const std::string& path,
                                                  std::span<const std::string> overrides) {
  apply_overrides(root, path, overrides, OverrideTarget::Platform, drop_replaced_topology);
  return noting_overrides_of([&] { return read_platform(root, path); }, overrides,
                             OverrideTarget::Platform);
}

} // namespace

units::Bandwidth pcie_lane_bandwidth(int generation) {
  static constexpr std::array<double, 5> bytes_per_second{0.25e9, 0.5e9, 8e9 / 8 * 128 / 130,
                                                          16e9 / 8 * 128 / 130,
                                                          32e9 / 8 * 128 / 130};
  return Bandwidth::from_bytes_per_second(bytes_per_second.at(static_cast<std::size_t>(generation - 1)));
}

platform::PlatformSpec load_platform(const std::string& path,
                                     std::span<const std::string> overrides) {
  return load_platform_text_or_file(parse_toml_file(path), path, overrides);
}

LoadError platform_key_error(const std::string& path, std::span<const std::string> overrides,
                             std::string_view dotted_key, std::string_view message) {
  toml::table root = parse_toml_file(path);
  apply_overrides(root, path, overrides, OverrideTarget::Platform, drop_replaced_topology);
  return noting_overrides(key_error(root, path, dotted_key, message), overrides,
                          OverrideTarget::Platform);
}

platform::PlatformSpec load_platform_text(std::string_view text, const std::string& path,
                                          std::span<const std::string> overrides) {
  return load_platform_text_or_file(parse_toml_text(text, path), path, overrides);
}

} // namespace ceiling::config
