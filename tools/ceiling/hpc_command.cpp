// `ceiling hpc`: an HPL-like or HPCG-like run on a machine, its payload efficiency E and alpha_eff.
#include "analysis/curve_analysis.hpp"
#include "config/hpc_file.hpp"
#include "config/load_error.hpp"
#include "config/platform_file.hpp"
#include "config/workload_file.hpp"
#include "io/json_writer.hpp"
#include "machine/engine.hpp"
#include "machine/machine.hpp"
#include "platform/topology.hpp"
#include "replay/traffic.hpp"
#include "support/stop_signals.hpp"
#include "tools/ceiling/commands.hpp"
#include "tools/ceiling/options.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>

namespace ceiling::tools {
namespace {

namespace po = boost::program_options;

/// Message patterns timed on the simulated machine: its routes and flow sharing.
class MachineTimer : public hpc::PatternTimer {
public:
  MachineTimer(const platform::Machine& machine, std::uint64_t seed) : timer_(machine, seed) {}
  double seconds(std::span<const collectives::Flow> flows) override { return timer_.seconds(flows); }

private:
  replay::TrafficTimer timer_;
};

/// What both workloads report: delivered against peak, and alpha_eff by three counts of N.
struct Payload {
  double seconds = 0;
  double flops = 0;
  long long nodes = 0;
  hpc::NodeKernels node;

  double delivered() const { return flops / seconds; }
  double peak() const { return node.peak_flop_per_s * static_cast<double>(nodes); }
  std::optional<double> base_peak() const {
    return node.base_clock_peak_flop_per_s ? std::optional(*node.base_clock_peak_flop_per_s * static_cast<double>(nodes)) : std::nullopt;
  }
  /// E against TOP500's R_peak (base clock) when the platform gives it, else the model's peak.
  double efficiency() const { return delivered() / base_peak().value_or(peak()); }
};

struct CountOfN {
  const char* name;
  double n;
};

std::vector<CountOfN> counts_of_n(const Payload& p) {
  const auto nodes = static_cast<double>(p.nodes);
  std::vector<CountOfN> counts{{"nodes", nodes}};
  if (p.node.gpu)
    counts.push_back({"GPUs", nodes * p.node.gpus});
  if (!p.node.gpu || p.node.gpu_multiprocessors > 0)
    counts.push_back({"TOP500 cores", nodes * p.node.top500_cores()});
  return counts;
}

/// 1 - alpha_eff from Végh (B3): (1/E - 1) / (N - 1); NaN for N = 1.
double non_parallel(double efficiency, double n) {
  return n > 1 ? (1 / efficiency - 1) / (n - 1) : std::nan("");
}

std::string si(double value, const char* unit) {
  const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int p = 0;
  while (std::fabs(value) >= 1000 && p < 6) {
    value /= 1000;
    ++p;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.4g %s%s", value, prefixes[p], unit);
  return text;
}

void print_payload(const Payload& p, const std::string& flop_rule) {
  std::printf("time               %.6g s\n", p.seconds);
  std::printf("delivered          %s  (%s)\n", si(p.delivered(), "FLOP/s").c_str(), flop_rule.c_str());
  // The model's own peak beside TOP500's where the GPUs' base clock makes them differ.
  const auto base = p.base_peak();
  const bool differ = base && *base != p.peak();
  if (differ)
    std::printf("peak               %s (TOP500's R_peak: GPUs at base clock); %s as the model runs them\n",
                si(*base, "FLOP/s").c_str(), si(p.peak(), "FLOP/s").c_str());
  else
    std::printf("peak               %s%s\n", si(p.peak(), "FLOP/s").c_str(), base ? " (TOP500's R_peak: GPUs at base clock)" : "");
  // (above 1 only against the base clock's R_peak, which the model's GPUs run above)
  const char* above =
      p.efficiency() > 1 ? " (above 1: the GPUs deliver more than their base clock's peak)" : "";
  if (differ)
    std::printf("E = delivered/peak %.4f%s  (against the model's peak: %.4f)\n", p.efficiency(),
                above, p.delivered() / p.peak());
  else
    std::printf("E = delivered/peak %.4f\n", p.efficiency());
  for (const CountOfN& c : counts_of_n(p)) {
    const double x = non_parallel(p.efficiency(), c.n);
    if (!std::isfinite(x)) {
      std::printf("1 - alpha_eff      n/a with N = %.0f %s: (B3) needs N > 1\n", c.n, c.name);
      continue;
    }
    const char* why = x > 1   ? ": above 1, since (B3) assumes E = 1 on one unit and E is far below that here"
                      : x < 0 ? ": below 0, since E is above 1"
                              : "";
    std::printf("1 - alpha_eff      %.4e with N = %.0f %s (Vegh B3)%s\n", x, c.n, c.name, why);
  }
}

/// `per`: what `time_s` and `flop` count, "run" (HPL) or "iteration" (HPCG's one CG iteration).
void json_payload(io::JsonWriter& json, const Payload& p, const char* per) {
  json.key("per").value(per);
  json.key("time_s").value(p.seconds).key("flop").value(p.flops);
  json.key("delivered_flop_per_s").value(p.delivered());
  // The peak that `efficiency` divides by is `top500_peak_flop_per_s` where the platform gives
  // the GPUs' base clock, else `peak_flop_per_s`; `model_peak_efficiency` divides by the latter
  // always (the text output prints both where they differ).
  json.key("peak_flop_per_s").value(p.peak());
  if (auto base = p.base_peak())
    json.key("top500_peak_flop_per_s").value(*base);
  json.key("efficiency").value(p.efficiency());
  json.key("model_peak_efficiency").value(p.delivered() / p.peak());
  json.key("non_parallel_fraction").begin_object();
  for (const CountOfN& c : counts_of_n(p)) {
    const double x = non_parallel(p.efficiency(), c.n);
    json.key(c.name).begin_object().key("n").value(c.n);
    // (null where the text says n/a: at N = 1 no fraction is defined)
    if (std::isfinite(x))
      json.key("one_minus_alpha_eff").value(x);
    else
      json.key("one_minus_alpha_eff").null();
    json.end_object();
  }
  json.end_object();
}

hpc::Sampling sampling_from(const std::string& text) {
  if (text == "every")
    return {.every = true, .samples = 0};
  try {
    std::size_t used = 0;
    const int n = std::stoi(text, &used);
    if (used == text.size() && n >= 2)
      return {.every = false, .samples = n};
  } catch (const std::exception&) {
  }
  throw UsageError("--message-sizes: expected \"every\" or a whole number of sizes from 2 to 2147483647, got \"" + text + "\"");
}

/// Runs `plan`, turning the model's refusals (std::invalid_argument) into usage errors; those of
/// one key of a file (KeyRefusal) go on to be located there.
template <class Plan> auto refusing(Plan plan) {
  try {
    return plan();
  } catch (const hpc::KeyRefusal&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("hpc: ") + e.what());
  }
}

/// Runs `simulate` with message patterns timed on `machine`; its result and wall seconds.
template <class Simulate> auto on_machine(const platform::Machine& machine, std::uint64_t seed, Simulate simulate) {
  const auto start = std::chrono::steady_clock::now();
  MachineTimer timer(machine, seed);
  auto result = simulate(timer);
  support::handle_stop_signals(SIG_DFL); // (done: what follows prints it)
  return std::pair{result, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

int hpl(const config::HpcWorkload& w, const hpc::HplSpec& spec, const platform::PlatformSpec& platform,
        const platform::Machine& machine, long long nodes, hpc::Sampling sampling, std::uint64_t seed, bool json,
        double build_s) {
  const auto node = refusing([&] { return hpc::node_kernels(platform.node, hpc::Needs::Dgemm); });
  const auto setup = refusing([&] { return hpc::plan_hpl(spec, node, nodes); });
  const auto [r, wall_s] =
      on_machine(machine, seed, [&](hpc::PatternTimer& timer) { return hpc::simulate_hpl(setup, timer, sampling); });
  const Payload p{.seconds = r.seconds, .flops = r.flops, .nodes = nodes, .node = node};
  const auto& b = r.breakdown;
  const std::pair<const char*, double> parts[] = {{"update (DGEMM, DTRSM)", b.update_s}, {"panel factorisation", b.panel_s},
                                                  {"panel broadcast", b.broadcast_s},     {"row swaps", b.swaps_s},
                                                  {"PCIe copies", b.pcie_s},              {"back substitution", b.solve_s},
                                                  {"waiting", b.waiting_s}};
  if (json) {
    io::JsonWriter out(std::cout);
    out.begin_object().key("workload").value(w.name).key("kind").value("hpl").key("platform").value(platform.name);
    out.key("nodes").value(nodes).key("grid_rows").value(setup.grid.rows).key("grid_columns").value(setup.grid.columns);
    out.key("matrix_order").value(setup.matrix_order).key("block_size").value(setup.block_size);
    out.key("lookahead").value(spec.lookahead).key("broadcast").value(std::string(hpc::to_string(spec.broadcast)));
    out.key("swap").value(std::string(hpc::to_string(spec.swap))).key("resident_at_start").value(setup.resident_at_start);
    json_payload(out, p, "run");
    out.key("breakdown_s").begin_object();
    for (const auto& [name, s] : parts)
      out.key(name).value(s);
    out.end_object();
    out.key("patterns_timed").value(r.patterns_timed).key("message_sizes").value(r.sizes_asked);
    if (build_s >= 0)
      out.key("wall_build_s").value(build_s).key("wall_simulate_s").value(wall_s);
    out.end_object(); // (the writer ends the document with its newline)
    return 0;
  }
  std::printf("%s on %s: %lld nodes, grid %d x %d (%lld idle), routing %s\n", w.title.c_str(), platform.name.c_str(),
              nodes, setup.grid.rows, setup.grid.columns, nodes - setup.grid.size(),
              std::string(platform::to_string(platform.interconnect.routing)).c_str());
  std::printf("matrix order %lld (%.3g GB per process), NB %d, %lld steps, look-ahead %d, broadcast %s, swap %s",
              setup.matrix_order,
              static_cast<double>(setup.matrix_order) * static_cast<double>(setup.matrix_order) * 8 /
                  static_cast<double>(setup.grid.size()) / 1e9,
              setup.block_size, setup.steps, spec.lookahead, std::string(hpc::to_string(spec.broadcast)).c_str(),
              std::string(hpc::to_string(spec.swap)).c_str());
  if (spec.swap == hpc::Swap::Mixed)
    std::printf(" (binary exchange up to %d columns)", spec.swap_threshold);
  std::printf("\n");
  if (node.gpu)
    std::printf("update on the GPU; trailing matrix %.0f %% in device memory at the start%s\n",
                100 * setup.resident_at_start,
                setup.resident_at_start < 1 ? ", the rest in host memory, streamed over PCIe with the CPU taking a share" : "");
  print_payload(p, "HPL's 2/3 N^3 + 3/2 N^2");
  std::printf("\nper process, seconds and share of the run:\n");
  for (const auto& [name, s] : parts)
    std::printf("  %-22s %12.4f s  %5.1f %%\n", name, s, 100 * s / r.seconds);
  std::printf("\nmessages: %d pattern timings on the machine for %d (pattern, size) pairs\n", r.patterns_timed,
              r.sizes_asked);
  if (build_s >= 0)
    std::printf("wall time: build %.2f s, simulation %.2f s\n", build_s, wall_s);
  return 0;
}

int hpcg(const config::HpcWorkload& w, const hpc::HpcgSpec& spec, const platform::PlatformSpec& platform,
         const platform::Machine& machine, long long nodes, hpc::Sampling sampling, std::uint64_t seed, bool json,
         double build_s) {
  const auto node = refusing([&] { return hpc::node_kernels(platform.node, hpc::Needs::Stream); });
  const auto setup = refusing([&] { return hpc::plan_hpcg(spec, node, nodes); });
  const auto [r, wall_s] =
      on_machine(machine, seed, [&](hpc::PatternTimer& timer) { return hpc::simulate_hpcg(setup, timer, sampling); });
  const Payload p{.seconds = r.seconds_per_iteration, .flops = r.flops_per_iteration, .nodes = nodes, .node = node};
  const auto& b = r.breakdown;
  const std::pair<const char*, double> parts[] = {
      {"kernels (memory-bound)", b.compute_s}, {"halo exchanges", b.halo_s}, {"dot-product all-reduces", b.allreduce_s},
      {"PCIe copies", b.pcie_s}};
  if (json) {
    io::JsonWriter out(std::cout);
    out.begin_object().key("workload").value(w.name).key("kind").value("hpcg").key("platform").value(platform.name);
    out.key("nodes").value(nodes).key("grid").begin_array().value(setup.grid.x).value(setup.grid.y).value(setup.grid.z).end_array();
    out.key("local_grid").begin_array().value(spec.nx).value(spec.ny).value(spec.nz).end_array();
    json_payload(out, p, "iteration");
    out.key("bytes_per_process").value(r.bytes_per_process);
    out.key("breakdown_s").begin_object();
    for (const auto& [name, s] : parts)
      out.key(name).value(s);
    out.end_object();
    out.key("patterns_timed").value(r.patterns_timed);
    if (build_s >= 0)
      out.key("wall_build_s").value(build_s).key("wall_simulate_s").value(wall_s);
    out.end_object(); // (the writer ends the document with its newline)
    return 0;
  }
  std::printf("%s on %s: %lld nodes, grid %d x %d x %d, local grid %d x %d x %d, %d levels, routing %s\n",
              w.title.c_str(), platform.name.c_str(), nodes, setup.grid.x, setup.grid.y, setup.grid.z,
              spec.nx, spec.ny, spec.nz, spec.levels,
              std::string(platform::to_string(platform.interconnect.routing)).c_str());
  std::printf("kernels on the %s at %s (measured STREAM rate); %s of memory traffic per process and iteration\n",
              node.gpu ? "GPU" : "CPU", si(node.gpu ? node.gpu_stream_bytes_per_s : node.cpu_stream_bytes_per_s, "B/s").c_str(),
              si(r.bytes_per_process, "B").c_str());
  std::printf("one CG iteration:\n");
  print_payload(p, "HPCG's own count, src/ReportResults.cpp");
  std::printf("\nper iteration, seconds and share:\n");
  for (const auto& [name, s] : parts)
    std::printf("  %-24s %12.6g s  %5.1f %%\n", name, s, 100 * s / r.seconds_per_iteration);
  std::printf("\nmessages: %d pattern timings on the machine\n", r.patterns_timed);
  if (build_s >= 0)
    std::printf("wall time: build %.2f s, simulation %.2f s\n", build_s, wall_s);
  return 0;
}

} // namespace

int hpc_command(const std::vector<std::string>& args) {
  po::options_description options("options");
  options.add_options()("workload,w", po::value<std::string>(), "HPC workload file (workloads/hpl.toml, workloads/hpcg.toml)")(
      "platform,p", po::value<std::string>(), "platform file")(
      "nodes,n", po::value<long long>(), "nodes (default: the whole machine)")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "KEY=VALUE: override a key of the platform or workload file (--set hpl.block_size=512); repeatable")(
      "message-sizes", po::value<std::string>()->default_value("every"),
      "every: each distinct message size is timed on the machine; K: K sizes per pattern, the others "
      "interpolated (faster on large machines)")(
      "seed", po::value<Seed>()->default_value(Seed{1}, "1"), "seed of ECMP's and Valiant routing's hashes")(
      "timing", "also print the wall time of building the machine and of the simulation")(
      "json", "print one JSON object instead of text");
  const auto parsed = parse_command_line(
      args, "", 
      "usage: ceiling hpc --workload W --platform P [--nodes N] [--set K=V]... [--message-sizes every|K] [--seed S]\n"
      "                   [--timing] [--json]\n\n"
      "Simulates an HPC workload (kind = \"hpl\" or \"hpcg\") on the machine and prints the time,\n"
      "the delivered FLOP/s, the peak, E = delivered / peak and 1 - alpha_eff with N counted as\n"
      "nodes, GPUs and TOP500 cores, and where the time goes. Messages are timed on the machine's\n"
      "routes with its flow sharing (CM02, no cross-traffic).\n",
      options, false);
  if (!parsed)
    return 0;
  for (const char* required : {"workload", "platform"})
    if (!parsed->has(required))
      throw UsageError(std::string("hpc: --") + required + " is required");
  const auto overrides = parsed->optional<std::vector<std::string>>("set").value_or(std::vector<std::string>{});
  refuse_unread_overrides(overrides, "hpc", {config::OverrideTarget::Platform, config::OverrideTarget::Workload});
  // The GPU keys of training runs, which HPL and HPCG do not read (they run at the GPU's peak
  // and their own efficiencies): an override of one would change nothing.
  constexpr const char* training_keys[] = {"node.gpu.device_spread", "node.gpu.calibration_device",
                                           "node.gpu.compute_capability"};
  refuse_unread_keys(overrides, training_keys,
                     "a key of training runs (platforms/README.md), which `ceiling hpc` does not read: leave it out");
  const auto sampling = sampling_from(parsed->vm["message-sizes"].as<std::string>());
  const auto workload_path = parsed->vm["workload"].as<std::string>();
  const auto w = config::load_hpc_workload(workload_path, overrides);
  const auto platform_path = parsed->vm["platform"].as<std::string>();
  const auto platform = config::load_platform(platform_path, overrides);
  const long long nodes = parsed->optional<long long>("nodes").value_or(platform.nodes);
  if (auto problem = platform::allocation_problem(platform, nodes))
    throw UsageError("--nodes: " + *problem);
  // The node's measured rates the workload needs, refused at the platform file before the machine is built.
  try {
    hpc::node_kernels(platform.node, std::holds_alternative<hpc::HplSpec>(w.spec) ? hpc::Needs::Dgemm : hpc::Needs::Stream);
  } catch (const hpc::MissingRate& e) {
    throw config::platform_key_error(platform_path, overrides, e.key, e.what());
  }
  const auto located = [&](const hpc::KeyRefusal& e) {
    return e.file == hpc::KeyRefusal::File::Platform
               ? config::platform_key_error(platform_path, overrides, e.key, e.what())
               : config::workload_key_error(workload_path, overrides, e.key, e.what());
  };
  support::exit_on_stop_signals("ceiling hpc: interrupted before the simulation finished: nothing to print (signal ");
  const auto start = std::chrono::steady_clock::now();
  platform::start_engine({});
  const auto machine = platform::Machine::build(platform, nodes);
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto seed = parsed->vm["seed"].as<Seed>().value;
  const bool json = parsed->has("json");
  const double shown_build_s = parsed->has("timing") ? build_s : -1; // < 0: not shown (outputs stay bit for bit)
  try {
    if (const auto* spec = std::get_if<hpc::HplSpec>(&w.spec))
      return hpl(w, *spec, platform, machine, nodes, sampling, seed, json, shown_build_s);
    return hpcg(w, std::get<hpc::HpcgSpec>(w.spec), platform, machine, nodes, sampling, seed, json, shown_build_s);
  } catch (const hpc::KeyRefusal& e) {
    throw located(e);
  }
}

} // namespace ceiling::tools
