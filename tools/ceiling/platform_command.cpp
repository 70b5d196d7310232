// `ceiling platform show|export|bench`: inspect a platform file and the machine SimGrid builds.
#include "config/platform_file.hpp"
#include "io/atomic_output.hpp"
#include "io/json_writer.hpp"
#include "machine/engine.hpp"
#include "machine/machine.hpp"
#include "machine/probe.hpp"
#include "platform/topology.hpp"
#include "machine/xml_export.hpp"
#include "replay/traffic.hpp"
#include "support/stop_signals.hpp"
#include "tools/ceiling/commands.hpp"
#include "tools/ceiling/options.hpp"
#include "tools/ceiling/run_options.hpp"
#include "units/parse.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <span>

namespace po = boost::program_options;

namespace ceiling::tools {

namespace {

using platform::PlatformSpec;
using units::to_string;

/// The node count to run on: --nodes, or `fallback`; checked against the machine.
long long checked_nodes(const PlatformSpec& spec, std::optional<long long> nodes, long long fallback) {
  const long long n = nodes.value_or(fallback);
  if (auto problem = platform::allocation_problem(spec, n))
    throw UsageError("--nodes: " + *problem);
  return n;
}

/// A fraction as a percentage of three significant digits: "0.92 %".
std::string percent_text(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %%", 100 * fraction);
  return text;
}

std::string peaks_text(const platform::PeakRates& peaks, double multiplier) {
  std::string text;
  for (platform::Precision p : platform::all_precisions)
    if (auto rate = peaks.at(p))
      text += (text.empty() ? "" : ", ") + std::string(platform::to_string(p)) + " " +
              to_string(*rate * multiplier);
  return text;
}

std::string topology_text(const platform::Topology& topology) {
  std::ostringstream text;
  const auto list = [](const std::vector<int>& v) {
    std::string s;
    for (int x : v)
      s += (s.empty() ? "" : "x") + std::to_string(x);
    return s;
  };
  if (const auto* f = std::get_if<platform::FatTree>(&topology))
    text << "fat-tree, " << f->down.size() << " levels; down " << list(f->down) << ", up "
         << list(f->up) << ", parallel links " << list(f->links);
  else if (const auto* t = std::get_if<platform::Torus>(&topology))
    text << "torus " << list(t->dimensions);
  else if (const auto* d = std::get_if<platform::Dragonfly>(&topology))
    text << "dragonfly, " << d->groups << " groups x " << d->chassis_per_group << " chassis x "
         << d->routers_per_chassis << " routers x " << d->nodes_per_router
         << " nodes; links per pair: global " << d->global_links << ", chassis "
         << d->chassis_links << ", router " << d->router_links;
  else
    text << "single switch";
  return text.str();
}

/// The whole machine's fp64 peak with its GPUs at their base clock (TOP500's R_peak), when the
/// file gives that clock's peak.
std::optional<units::FlopRate> base_clock_rpeak(const PlatformSpec& spec) {
  const auto node = platform::node_rpeak(spec.node);
  return node ? std::optional(*node * static_cast<double>(spec.nodes)) : std::nullopt;
}

void write_peaks_json(io::JsonWriter& json, const platform::PeakRates& peaks, double multiplier) {
  json.begin_object();
  for (platform::Precision p : platform::all_precisions)
    if (auto rate = peaks.at(p))
      json.key(platform::to_string(p)).value(rate->flop_per_second() * multiplier);
  json.end_object();
}

/// The topology's shape as its file gives it: "down", "up", "links"; "dimensions"; or the
/// dragonfly's counts (nothing for a single switch).
void write_shape_json(io::JsonWriter& json, const platform::Topology& topology) {
  const auto array = [&json](const char* key, const std::vector<int>& values) {
    json.key(key).begin_array();
    for (int v : values)
      json.value(v);
    json.end_array();
  };
  if (const auto* f = std::get_if<platform::FatTree>(&topology)) {
    array("down", f->down);
    array("up", f->up);
    array("links", f->links);
  } else if (const auto* t = std::get_if<platform::Torus>(&topology)) {
    array("dimensions", t->dimensions);
  } else if (const auto* d = std::get_if<platform::Dragonfly>(&topology)) {
    json.key("groups").value(d->groups).key("global_links").value(d->global_links);
    json.key("chassis_per_group").value(d->chassis_per_group).key("chassis_links").value(d->chassis_links);
    json.key("routers_per_chassis").value(d->routers_per_chassis).key("router_links").value(d->router_links);
    json.key("nodes_per_router").value(d->nodes_per_router);
  }
}

void show_json(const PlatformSpec& spec, long long n, const platform::LatencyRange& latency,
               units::Bandwidth bisection) {
  const auto& node = spec.node;
  io::JsonWriter json(std::cout);
  json.begin_object();
  json.key("name").value(spec.name).key("description").value(spec.description);
  json.key("machine_nodes").value(static_cast<long long>(spec.nodes));
  json.key("nodes").value(n).key("allocation").value("contiguous");
  json.key("node_kind").value(node.is_gpu_node() ? "gpu" : "cpu");
  json.key("cpu").begin_object();
  json.key("sockets").value(node.cpu.sockets).key("cores_per_socket").value(node.cpu.cores_per_socket);
  json.key("peak_flop_per_s_per_node"); // (all sockets: the file gives them per socket)
  write_peaks_json(json, node.cpu.peak_per_socket, node.cpu.sockets);
  json.key("memory_bandwidth_bytes_per_s_per_node")
      .value(node.cpu.memory_bandwidth_per_socket.bytes_per_second() * node.cpu.sockets);
  if (node.cpu.core_memory_bandwidth)
    json.key("core_memory_bandwidth_bytes_per_s").value(node.cpu.core_memory_bandwidth->bytes_per_second());
  if (node.cpu.host_memory)
    json.key("host_memory_bytes").value(node.cpu.host_memory->bytes());
  if (node.cpu.dgemm)
    json.key("dgemm_flop_per_s_per_socket").value(node.cpu.dgemm->flop_per_second());
  if (node.cpu.stream_bandwidth)
    json.key("stream_bandwidth_bytes_per_s_per_socket").value(node.cpu.stream_bandwidth->bytes_per_second());
  json.end_object();
  if (node.gpu) {
    json.key("gpu").begin_object();
    json.key("count").value(node.gpu->count).key("model").value(node.gpu->model);
    json.key("peak_flop_per_s_each");
    write_peaks_json(json, node.gpu->peak, 1.0);
    json.key("memory_bandwidth_bytes_per_s").value(node.gpu->memory_bandwidth.bytes_per_second());
    json.key("memory_bytes").value(node.gpu->memory.bytes());
    if (node.gpu->compute_capability > 0)
      json.key("compute_capability").value(node.gpu->compute_capability / 10.0);
    if (node.gpu->multiprocessors > 0)
      json.key("multiprocessors").value(node.gpu->multiprocessors);
    json.key("device_spread").value(node.gpu->device_spread);
    if (node.gpu->dgemm)
      json.key("dgemm_flop_per_s").value(node.gpu->dgemm->flop_per_second());
    if (node.gpu->stream_bandwidth)
      json.key("stream_bandwidth_bytes_per_s").value(node.gpu->stream_bandwidth->bytes_per_second());
    json.end_object();
    json.key("pcie").begin_object();
    json.key("host_to_device_bytes_per_s").value(node.pcie->host_to_device.bytes_per_second());
    json.key("device_to_host_bytes_per_s").value(node.pcie->device_to_host.bytes_per_second());
    json.key("latency_s").value(node.pcie->latency.seconds());
    json.key("copy_overhead_s").value(node.pcie->copy_overhead.seconds());
    json.end_object();
    if (node.gpu_link) {
      json.key("gpu_link").begin_object();
      json.key("bandwidth_bytes_per_s").value(node.gpu_link->bandwidth.bytes_per_second());
      json.key("latency_s").value(node.gpu_link->latency.seconds());
      json.key("pairs").begin_array();
      for (auto [j, k] : node.gpu_link->pairs)
        json.value(std::to_string(j) + "-" + std::to_string(k));
      json.end_array();
      json.end_object();
    }
  }
  json.key("nic").begin_object();
  json.key("bandwidth_bytes_per_s").value(node.nic.bandwidth.bytes_per_second());
  json.key("latency_s").value(node.nic.latency.seconds());
  json.key("send_overhead_s").value(node.nic.send_overhead.seconds());
  json.key("receive_overhead_s").value(node.nic.receive_overhead.seconds());
  json.key("gpu_direct").value(node.nic.gpu_direct);
  json.key("ports").value(node.nic.ports);
  json.end_object();
  json.key("node_peak_flop_per_s").begin_object();
  for (platform::Precision p : platform::all_precisions)
    if (auto peak = platform::node_peak(node, p))
      json.key(platform::to_string(p)).value(peak->flop_per_second());
  json.end_object();
  if (const auto rpeak = base_clock_rpeak(spec))
    json.key("rpeak_base_clock_fp64_flop_per_s").value(rpeak->flop_per_second());
  json.key("interconnect").begin_object();
  json.key("topology").value(platform::topology_name(spec.interconnect.topology));
  json.key("routing").value(platform::to_string(spec.interconnect.routing));
  json.key("slots").value(platform::slot_count(spec));
  json.key("cables_and_switches").value(platform::cable_count(spec)); // (as the machine's size limit counts them)
  write_shape_json(json, spec.interconnect.topology);
  json.key("link_bandwidth_bytes_per_s").value(spec.interconnect.link_bandwidth.bytes_per_second());
  json.key("link_latency_s").value(spec.interconnect.link_latency.seconds());
  json.end_object();
  json.key("bisection_bandwidth_bytes_per_s").value(bisection.bytes_per_second());
  json.key("route_latency_s").begin_object();
  if (latency.sources == 0) // one node: no route
    json.key("min").null().key("max").null();
  else
    json.key("min").value(latency.min_s).key("max").value(latency.max_s);
  json.key("sources").value(latency.sources).key("sampled").value(latency.sampled);
  json.end_object();
  json.end_object();
}

/// The measured rates and sizes a node's file may give beyond its peaks ("" when it gives none):
/// "; host memory 64 GiB; DGEMM 300 GFLOP/s, STREAM 44 GB/s per socket".
template <class Device>
std::string measured_text(const Device& d, std::optional<units::DataSize> host_memory, const char* per) {
  std::string out;
  if (host_memory)
    out += "; host memory " + to_string(*host_memory);
  if (d.dgemm || d.stream_bandwidth) {
    out += "; measured";
    if (d.dgemm)
      out += " DGEMM " + to_string(*d.dgemm);
    if (d.stream_bandwidth)
      out += std::string(d.dgemm ? "," : "") + " STREAM " + to_string(*d.stream_bandwidth);
    out += per;
  }
  return out;
}

void show_text(const PlatformSpec& spec, long long n, const platform::LatencyRange& latency,
               units::Bandwidth bisection) {
  const auto& node = spec.node;
  std::cout << "platform      " << spec.name << "\n";
  if (!spec.description.empty())
    std::cout << "              " << spec.description << "\n";
  std::cout << "nodes         " << n << " of " << spec.nodes << " (allocation: contiguous)\n";
  std::cout << "node kind     " << (node.is_gpu_node() ? "GPU node" : "CPU node") << "\n";
  std::cout << "  CPU         " << node.cpu.sockets << " socket(s) x " << node.cpu.cores_per_socket
            << " cores; peak per node " << peaks_text(node.cpu.peak_per_socket, node.cpu.sockets)
            << "; memory bandwidth per node "
            << to_string(node.cpu.memory_bandwidth_per_socket * node.cpu.sockets)
            << (node.cpu.core_memory_bandwidth
                    ? ", one core " + to_string(*node.cpu.core_memory_bandwidth)
                    : std::string())
            << measured_text(node.cpu, node.cpu.host_memory, " per socket") << "\n";
  if (node.gpu) {
    std::cout << "  GPU         " << node.gpu->count << " x "
              << (node.gpu->model.empty() ? "GPU" : node.gpu->model) << "; peak each "
              << peaks_text(node.gpu->peak, 1.0) << "; memory " << to_string(node.gpu->memory)
              << " at " << to_string(node.gpu->memory_bandwidth)
              << (node.gpu->compute_capability > 0
                      ? "; compute capability " + std::to_string(node.gpu->compute_capability / 10) + "." +
                            std::to_string(node.gpu->compute_capability % 10)
                      : std::string())
              << (node.gpu->multiprocessors > 0 ? ", " + std::to_string(node.gpu->multiprocessors) + " SMs" : std::string())
              << measured_text(*node.gpu, std::nullopt, " each")
              << (node.gpu->device_spread > 0 ? "; device spread " + percent_text(node.gpu->device_spread) : std::string())
              << "\n";
    std::cout << "  PCIe        host->device " << to_string(node.pcie->host_to_device)
              << ", device->host " << to_string(node.pcie->device_to_host) << ", latency "
              << to_string(node.pcie->latency) << " (per GPU); copy call overhead "
              << to_string(node.pcie->copy_overhead) << "\n";
    if (node.gpu_link && node.gpu_link->pairs.empty())
      std::cout << "  GPU link    " << to_string(node.gpu_link->bandwidth) << " per GPU to a switch, latency "
                << to_string(node.gpu_link->latency) << "\n";
    if (node.gpu_link && !node.gpu_link->pairs.empty()) {
      // The links the machine builds: pairs among this node's GPUs, a pair listed twice two links.
      const std::size_t among = node.gpu_link->pairs_among(node.gpu->count).size();
      std::cout << "  GPU links   a mesh of " << among << " links of " << to_string(node.gpu_link->bandwidth)
                << " each way, latency " << to_string(node.gpu_link->latency) << "; other GPU pairs through the host";
      if (among < node.gpu_link->pairs.size())
        std::cout << " (" << node.gpu_link->pairs.size() - among
                  << " listed pairs name a GPU beyond the " << node.gpu->count << " and are left out)";
      std::cout << "\n";
    }
  }
  std::cout << "  NIC         " << to_string(node.nic.bandwidth) << " per direction"
            << (node.nic.ports > 1 ? " (" + std::to_string(node.nic.ports) + " ports together)" : std::string())
            << ", latency "
            << to_string(node.nic.latency) << ", GPU-direct RDMA "
            << (node.nic.gpu_direct ? "yes" : "no") << "; MPI overheads send " << to_string(node.nic.send_overhead)
            << ", receive " << to_string(node.nic.receive_overhead) << "\n";
  std::string node_peaks;
  std::string machine_peaks;
  for (platform::Precision p : platform::all_precisions)
    if (auto peak = platform::node_peak(node, p)) {
      const std::string sep = node_peaks.empty() ? "" : ", ";
      node_peaks += sep + std::string(platform::to_string(p)) + " " + to_string(*peak);
      machine_peaks += sep + std::string(platform::to_string(p)) + " " +
                       to_string(*peak * static_cast<double>(n));
    }
  std::cout << "peak per node " << node_peaks << "\n";
  std::cout << "peak, " << n << " nodes " << machine_peaks << "\n";
  if (const auto rpeak = base_clock_rpeak(spec))
    std::cout << "R_peak        " << to_string(*rpeak) << " fp64, all " << spec.nodes
              << " nodes at the GPUs' base clock (as TOP500 counts it)\n";
  std::cout << "interconnect  " << topology_text(spec.interconnect.topology) << ", routing "
            << platform::to_string(spec.interconnect.routing) << "\n";
  std::cout << "  links       " << to_string(spec.interconnect.link_bandwidth)
            << " per direction, latency " << to_string(spec.interconnect.link_latency) << "\n";
  std::cout << "bisection     " << to_string(bisection) << " (" << n
            << " nodes, one direction; cut at the topology's domains: platforms/README.md)\n";
  if (latency.sources == 0) { // (one node: no pair to route)
    std::cout << "route latency none (one node: no node-to-node route)\n";
    return;
  }
  std::cout << "route latency min " << to_string(units::Duration::from_seconds(latency.min_s))
            << ", max " << to_string(units::Duration::from_seconds(latency.max_s))
            << " (node to node, NIC and fabric, minimal routes"
            << (spec.interconnect.routing == platform::Routing::Adaptive &&
                            std::holds_alternative<platform::Dragonfly>(spec.interconnect.topology)
                    ? ": adaptive routing's longer paths add more"
                    : "")
            << "; "
            << (latency.sampled ? "sampled from " + std::to_string(latency.sources) + " sources"
                                : std::string("all pairs"))
            << ")\n";
}

// Route queries cost up to ~20 us each on a large dragonfly; 100,000 keep `show` near 2 s.
constexpr long long latency_query_budget = 100'000;
long long latency_sources(long long nodes) { return std::max<long long>(8, latency_query_budget / std::max<long long>(nodes, 1)); }

int show(const std::vector<std::string>& args) {
  po::options_description options("options");
  options.add_options()("nodes,n", po::value<long long>(),
                        "nodes to allocate (default: the whole machine)")(
      "json", "print one JSON object (SI units in the key names) instead of text");
  const auto parsed = parse_command_line(args, "platform FILE",
                            "usage: ceiling platform show FILE [--nodes N] [--json]\n\n"
                            "Summarises a platform file: node peak per precision, PCIe and NIC "
                            "bandwidth,\nbisection bandwidth, and the node-to-node route latency "
                            "range SimGrid resolves\n(exact over all pairs while N x N <= " +
                                std::to_string(latency_query_budget) +
                                ", else from 100,000 / N evenly spaced sources, at least 8:\n"
                                "building and sampling a whole machine of 30,000 nodes or more takes tens of "
                                "seconds;\n--nodes N samples an allocation of N).\n",
                            options);
  if (!parsed)
    return 0;
  const PlatformSpec spec = config::load_platform(parsed->file);
  const long long n = checked_nodes(spec, parsed->optional<long long>("nodes"), spec.nodes);
  platform::start_engine({});
  const auto machine = platform::Machine::build(spec, n);
  const auto latency = platform::route_latency_range(machine, latency_sources(n));
  const auto bisection = platform::bisection_bandwidth(spec, n);
  if (parsed->has("json"))
    show_json(spec, n, latency, bisection);
  else
    show_text(spec, n, latency, bisection);
  return 0;
}

int export_command(const std::vector<std::string>& args) {
  po::options_description options("options");
  options.add_options()("nodes,n", po::value<long long>(), "nodes to allocate (required)")(
      "output,o", po::value<std::string>(), "XML file to write (required)");
  const auto parsed = parse_command_line(args, "platform FILE",
                            "usage: ceiling platform export FILE --nodes N -o OUT.xml\n\n"
                            "Writes the first N nodes of the machine as a SimGrid XML platform "
                            "(version 4.1)\nwith explicit routes, loadable by any SimGrid 3.32 "
                            "program. The file grows\nwith N squared; N is at most " +
                                std::to_string(platform::max_xml_export_nodes) + ".\n",
                            options);
  if (!parsed)
    return 0;
  if (!parsed->has("nodes"))
    throw UsageError("platform export: --nodes is required");
  if (!parsed->has("output"))
    throw UsageError("platform export: -o/--output is required");
  const PlatformSpec spec = config::load_platform(parsed->file);
  const long long n = checked_nodes(spec, parsed->optional<long long>("nodes"), spec.nodes);
  if (n > platform::max_xml_export_nodes)
    throw UsageError("--nodes: export lists every node-to-node route, so it is limited to " +
                     std::to_string(platform::max_xml_export_nodes) + " nodes, got " +
                     std::to_string(n));
  const std::string output = parsed->vm["output"].as<std::string>();
  refuse_output_over_inputs("-o", output, {{"platform", parsed->file}});
  refuse_over_other_than_own("-o", output, platform::xml_export_start,
                             "a platform that `platform export` wrote");
  io::AtomicOutput out(output); // checked before the build; whole or not at all
  platform::start_engine({});
  const auto machine = platform::Machine::build(spec, n);
  platform::export_xml(machine, out.stream());
  out.commit();
  std::cout << "wrote " << output << ": " << spec.name << ", " << n << " nodes, SimGrid's static minimal routes"
            << (spec.interconnect.routing == platform::Routing::StaticMinimal
                    ? std::string()
                    : std::string(" (the platform's ") + std::string(platform::to_string(spec.interconnect.routing)) +
                          " routing is the replay's own, not exported)")
            << "\n";
  return 0;
}

/// The whole bytes a timer sends for `flow` (a share of a buffer may not be whole).
double sent_bytes(const collectives::Flow& flow) { return std::round(flow.bytes); }

/// The bytes `flows` carry across the cut between nodes below `half` and the others, the more of
/// the two directions.
double cut_bytes(std::span<const collectives::Flow> flows, long long half) {
  double forward = 0, backward = 0;
  for (const auto& f : flows) {
    if (f.src < half && f.dst >= half)
      forward += sent_bytes(f);
    if (f.src >= half && f.dst < half)
      backward += sent_bytes(f);
  }
  return std::max(forward, backward);
}

/// The least latency of any route between two nodes: two NICs and one fabric link (neighbours on
/// a torus; a switch's or router's nodes cross two links). A flow moves no byte before its
/// route's latency has passed, so a pattern takes at least this and its bytes' time after it.
double route_latency_floor_s(const PlatformSpec& spec) {
  return 2 * spec.node.nic.latency.seconds() + spec.interconnect.link_latency.seconds();
}

/// The step-by-step ring costs O(N^3) in SimGrid 3.32 (about 20 s at 1,024 nodes on a 2-core
/// machine, most of an hour at 5,000), the bisection exchange has (N/2)^2 x 2 flows: beyond this
/// many nodes the benchmarks are refused.
constexpr long long max_bench_nodes = 1024;

struct BenchRow {
  std::string name;
  double simulated_s;
  double closed_form_s;
  std::string formula;
};

/// Rabenseifner's all-reduce of `bytes` over `n` nodes, step by step (MPICH's folding for a
/// non-power of two), each step's exchanges at once as the machine routes them; bounded below
/// by each step's largest exchange over the NIC or its bytes across the cut (the most of either
/// direction) over the bisection bandwidth, whichever is slower.
BenchRow halving_doubling_row(const PlatformSpec& spec, const platform::Machine& machine, long long n, double bytes,
                              std::uint64_t seed) {
  const auto steps = collectives::allreduce_steps(collectives::Algorithm::HalvingDoubling,
                                                  {static_cast<int>(n), 1}, bytes);
  replay::TrafficTimer timer(machine, seed);
  // An exchange is one flow each way: its NIC or the one fabric link it crosses at a time,
  // whichever is less.
  const double flow_bytes_per_s =
      std::min(spec.node.nic.bandwidth.bytes_per_second(), spec.interconnect.link_bandwidth.bytes_per_second());
  const double bisection_bytes_per_s = platform::bisection_bandwidth(spec, n).bytes_per_second();
  double simulated_s = 0;
  double bound_s = 0;
  for (const auto& step : steps) {
    simulated_s += timer.seconds(step.flows);
    double largest_bytes = 0;
    for (const auto& f : step.flows)
      largest_bytes = std::max(largest_bytes, sent_bytes(f));
    bound_s += route_latency_floor_s(spec) +
               std::max(largest_bytes / flow_bytes_per_s, cut_bytes(step.flows, n / 2) / bisection_bytes_per_s);
  }
  return {"halving-doubling all-reduce over " + std::to_string(n) + " nodes (" +
              std::string(platform::to_string(spec.interconnect.routing)) + ")",
          simulated_s, bound_s,
          "sum over steps of the least route latency + max(largest exchange / min(NIC, link), bytes across the cut / "
          "bisection)"};
}

int bench(const std::vector<std::string>& args) {
  po::options_description options("options");
  options.add_options()("nodes,n", po::value<long long>(),
                        "nodes in the ring all-reduce (default: min(machine, 16))")(
      "size", po::value<std::string>()->default_value("100 MB"),
      "bytes moved by each test, with a unit (\"100 MB\", \"64 MiB\")")(
      "seed", po::value<Seed>()->default_value(Seed{1}, "1"), "seed of ECMP's and Valiant routing's hashes")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "KEY=VALUE: override a key of the platform file (--set interconnect.routing=ecmp); repeatable")(
      "json", "print one JSON object instead of a table");
  const auto parsed =
      parse_command_line(args, "platform FILE",
            "usage: ceiling platform bench FILE [--nodes N] [--size SIZE] [--seed S] [--set K=V]... [--json]\n\n"
            "Simulates micro-benchmarks on the machine and prints each next to its\n"
            "closed form: a node-to-node transfer, a host->device copy (GPU nodes), a\n"
            "step-by-step ring all-reduce over N nodes (2(N-1) steps of SIZE/N), a bisection\n"
            "exchange (every node of one half sends SIZE spread evenly over the other half,\n"
            "both ways), an all-to-all (every node sends SIZE spread over all others) and a\n"
            "halving-doubling all-reduce of SIZE step by step, routed as the platform routes\n"
            "(its interconnect.routing), against bounds from the closed-form bisection\n"
            "bandwidth. N is at most " + std::to_string(max_bench_nodes) + ": the ring costs O(N^3) in SimGrid 3.32.\n",
            options);
  if (!parsed)
    return 0;
  const units::DataSize size = parsed->positive_size("size");
  const auto seed = parsed->vm["seed"].as<Seed>().value;
  const auto overrides = parsed->optional<std::vector<std::string>>("set").value_or(std::vector<std::string>{});
  refuse_unread_overrides(overrides, "platform bench", {config::OverrideTarget::Platform});
  // The benchmarks time the hardware alone: the costs a software stack pays are not theirs.
  refuse_unread_keys(overrides, stack_cost_keys,
                     "a software stack's cost, which the benchmarks of the hardware alone do not pay: leave it out "
                     "(`ceiling run` with a stack that pays it prices it)");
  const PlatformSpec spec = config::load_platform(parsed->file, overrides);
  const long long n = checked_nodes(spec, parsed->optional<long long>("nodes"), std::min<long long>(spec.nodes, 16));
  if (n < 2 && parsed->has("nodes"))
    throw UsageError("--nodes: the benchmarks need at least 2 nodes, got " + std::to_string(n));
  if (n < 2)
    throw config::platform_key_error(parsed->file, overrides, "platform.nodes",
                                     "the machine has 1 node; the benchmarks need at least 2");
  if (n > max_bench_nodes)
    throw UsageError("--nodes: at most " + std::to_string(max_bench_nodes) + ", got " + std::to_string(n) +
                     ": the step-by-step ring costs O(N^3) in SimGrid 3.32 (about 20 s at 1,024 nodes, most of an "
                     "hour at 5,000); `ceiling run` times a whole machine's collectives");

  support::exit_on_stop_signals("ceiling platform bench: interrupted before the benchmarks finished: nothing to print "
                                "(signal ");
  platform::start_engine({});
  const auto machine = platform::Machine::build(spec, n);
  const double bytes = size.bytes();
  std::vector<BenchRow> rows;

  // Node to node, alone on the network: latency + size / bottleneck.
  auto* a = machine.node(0).cpu;
  auto* b = machine.node(1).cpu;
  const auto p2p = platform::route_between(a, b);
  rows.push_back({"transfer rank 0 -> rank 1 (CPU to CPU)",
                  platform::time_transfers({{a, b}}, size).seconds(),
                  p2p.latency_s + bytes / p2p.bottleneck_bytes_per_s, "latency + size / bottleneck"});
  if (spec.node.is_gpu_node()) {
    auto* gpu = machine.node(0).gpus.front();
    const auto& pcie = *spec.node.pcie;
    rows.push_back({"host -> device copy (rank 0, GPU 0)",
                    platform::time_transfers({{a, gpu}}, size).seconds(),
                    pcie.latency.seconds() + bytes / pcie.host_to_device.bytes_per_second(),
                    "PCIe latency + size / host_to_device"});
  }
  // Ring: every step waits for the slowest neighbour pair.
  std::vector<simgrid::s4u::Host*> ring;
  double worst_latency = 0;
  double worst_bandwidth = std::numeric_limits<double>::infinity();
  for (long long r = 0; r < n; ++r) {
    ring.push_back(machine.node(r).cpu);
    const auto route = platform::route_between(machine.node(r).cpu, machine.node((r + 1) % n).cpu);
    worst_latency = std::max(worst_latency, route.latency_s);
    worst_bandwidth = std::min(worst_bandwidth, route.bottleneck_bytes_per_s);
  }
  const double steps = 2.0 * static_cast<double>(n - 1);
  const double chunk = std::floor(bytes / static_cast<double>(n)); // whole bytes, as the ring sends them
  rows.push_back({"ring all-reduce over " + std::to_string(n) + " nodes (step level)",
                  platform::time_ring_allreduce(ring, size).seconds(),
                  steps * chunk / worst_bandwidth + steps * worst_latency,
                  "2(N-1) size/N / bw + 2(N-1) latency"});

  // Across the cut: every node of one half to every node of the other, both ways, as the
  // machine routes; the cut's closed-form bandwidth bounds it.
  const std::string routing(platform::to_string(spec.interconnect.routing));
  {
    // (an odd node sits out: the cut is that of the even number that exchange; the closed forms
    // count the whole bytes the flows carry)
    const long long paired = n / 2 * 2;
    const auto exchange = replay::bisection_exchange(n, bytes);
    rows.push_back({"bisection exchange over " + std::to_string(paired) + " nodes (" + routing + ")",
                    replay::time_traffic(machine, exchange, seed),
                    route_latency_floor_s(spec) +
                        cut_bytes(exchange, n / 2) / platform::bisection_bandwidth(spec, paired).bytes_per_second(),
                    "least route latency + N/2 size / bisection bandwidth"});
    // All-to-all: (N/2)^2 of its N(N-1) flows cross the cut each way, and every node sends size.
    const auto everyone = replay::all_to_all(n, bytes);
    rows.push_back({"all-to-all over " + std::to_string(n) + " nodes (" + routing + ")",
                    replay::time_traffic(machine, everyone, seed),
                    route_latency_floor_s(spec) +
                        std::max(cut_bytes(everyone, n / 2) / platform::bisection_bandwidth(spec, n).bytes_per_second(),
                                 static_cast<double>(n - 1) * everyone.front().bytes /
                                     platform::injection_bandwidth(spec).bytes_per_second()),
                    "least route latency + max((N/2)^2 size/(N-1) / bisection, size / injection: min(NIC, the node's "
                    "cables))"});
    rows.push_back(halving_doubling_row(spec, machine, n, bytes, seed));
  }
  support::handle_stop_signals(SIG_DFL); // (done: what follows prints it)

  if (parsed->has("json")) {
    io::JsonWriter json(std::cout);
    json.begin_object().key("platform").value(spec.name).key("nodes").value(n).key("routing").value(routing);
    json.key("size_bytes").value(bytes).key("benchmarks").begin_array();
    for (const BenchRow& row : rows)
      json.begin_object()
          .key("name").value(row.name)
          .key("simulated_s").value(row.simulated_s)
          .key("closed_form_s").value(row.closed_form_s)
          .key("closed_form").value(row.formula)
          .end_object();
    json.end_array().end_object();
    return 0;
  }
  std::cout << spec.name << ": " << n << " nodes, size " << to_string(size) << ", routing " << routing
            << " (network model CM02, no cross-traffic)\n\n";
  std::printf("%-48s %14s %14s %10s\n", "benchmark", "simulated", "closed form", "error");
  for (const BenchRow& row : rows)
    std::printf("%-48s %12.6g s %12.6g s %9.2e\n", row.name.c_str(), row.simulated_s,
                row.closed_form_s, (row.simulated_s - row.closed_form_s) / row.closed_form_s);
  std::printf("\nclosed forms:\n");
  for (const BenchRow& row : rows)
    std::printf("  %s: %s\n", row.name.c_str(), row.formula.c_str());
  std::printf("the bisection exchange's, the all-to-all's and halving-doubling's closed forms are bounds: routing that does not "
              "spread over the cut's links takes longer\n");
  if (std::holds_alternative<platform::Dragonfly>(spec.interconnect.topology))
    std::printf("but on a dragonfly, whose cut counts the global links between the job's own groups at a group boundary: "
                "adaptive routing through the groups outside the job, or a balanced cut through a group (an odd number "
                "of groups), can be faster\n");
  return 0;
}

} // namespace

int platform_command(const std::vector<std::string>& args) {
  return dispatch("platform", args, {{"show", show},{"export", export_command},{"bench", bench}});
}

} // namespace ceiling::tools
