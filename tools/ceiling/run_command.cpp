// `ceiling run`: replay training iterations of a workload on a machine.
#include "config/platform_file.hpp"
#include "config/workload_file.hpp"
#include "io/chrome_trace.hpp"
#include "io/json_writer.hpp"
#include "replay/engine.hpp"
#include "replay/iteration_plan.hpp"
#include "tools/ceiling/commands.hpp"
#include "tools/ceiling/options.hpp"
#include "units/parse.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>

namespace po = boost::program_options;

namespace ceiling::tools {
namespace {

bool on_off(const CommandLine& cli, const char* option) {
  const auto text = cli.vm[option].as<std::string>();
  if (text != "on" && text != "off")
    throw UsageError(std::string("--") + option + ": expected on or off, got \"" + text + "\"");
  return text == "on";
}

void write_iteration_json(io::JsonWriter& json, const replay::IterationResult& it, double samples,
                          double flop) {
  json.begin_object();
  json.key("iteration_time_s").value(it.time_s);
  json.key("samples_per_s").value(samples / it.time_s);
  json.key("delivered_flop_per_s").value(flop / it.time_s);
  json.key("breakdown_s").begin_object()
      .key("compute").value(it.breakdown.compute_s)
      .key("copy").value(it.breakdown.copy_s)
      .key("communication").value(it.breakdown.communication_s)
      .key("synchronisation").value(it.breakdown.synchronisation_s)
      .end_object();
  json.key("bytes").begin_object()
      .key("pcie").value(it.bytes.pcie)
      .key("nic").value(it.bytes.nic)
      .key("fabric").value(it.bytes.fabric)
      .key("gpu_link").value(it.bytes.gpu_link)
      .key("host_memory").value(it.bytes.host_memory)
      .end_object();
  json.end_object();
}

/// 0, or 128 + the signal that stopped the run early, as a shell reports a process it ended
/// (the finished iterations are printed first).
int exit_status(const replay::RunResult& r) { return r.stopped_by == 0 ? 0 : 128 + r.stopped_by; }

} // namespace

int run_command(const std::vector<std::string>& args) {
  po::options_description options("options");
  options.add_options()
      ("platform,p", po::value<std::string>(), "platform file (required)")
      ("workload,w", po::value<std::string>(), "workload file (required)")
      ("nodes,n", po::value<long long>(), "nodes to run on (required); every GPU of a node is a rank")
      ("collective", po::value<std::string>()->default_value("ring"),
       ("all-reduce algorithm: " + collectives::algorithm_names()).c_str())
      ("servers", po::value<int>()->default_value(1), "parameter servers, with --collective parameter-server")
      ("precision", po::value<std::string>(),
       "fp64, fp32, fp16 or mixed (fp16 compute, fp32 gradients); default: the workload's")
      ("staging", po::value<std::string>(),
       "host (copy gradients through host memory) or direct (GPU-direct RDMA); default: direct "
       "when the platform's NIC has GPU-direct, else host")
      ("overlap", po::value<std::string>()->default_value("on"),
       "on: reduce each gradient bucket while backward goes on; off: after backward")
      ("input-overlap", po::value<std::string>()->default_value("on"),
       "on: copy the next batch to the device during this iteration; off: before forward")
      ("fidelity", po::value<std::string>()->default_value("aggregated"),
       "aggregated (one flow per rank per collective phase) or exact (every message; slow above ~1,000 ranks)")
      ("iterations", po::value<int>()->default_value(5), "iterations; the first is reported apart as warm-up")
      ("seed", po::value<unsigned long long>()->default_value(1), "seed of the compute jitter")
      ("jitter", po::value<double>()->default_value(0.0),
       "per-rank compute slowdown per iteration, 1 + |N(0, X)| (OS noise, stragglers); 0 = off")
      ("fusion-threshold", po::value<std::string>()->default_value("64 MiB"), "gradient bucket size, with a unit")
      ("network-model", po::value<std::string>()->default_value("CM02"),
       "SimGrid network model: CM02 (exact alpha-beta), LV08, SMPI or IB")
      ("latency-factor", po::value<double>(), "multiply every route latency (default: the model's, 1 for CM02)")
      ("bandwidth-factor", po::value<double>(), "multiply every flow's bandwidth (default: the model's, 1 for CM02)")
      ("json", "print one JSON object instead of a table")
      ("trace", po::value<std::string>(), "write a Chrome trace (JSON) of every activity to this file")
      ("timing", "print to stderr the wall-clock time of the machine build and of each iteration, and the simulation's work (transfers, clock advances)")
      ("transfer-driver", po::value<std::string>()->default_value("auto"),
       "how transfers are driven in SimGrid, same results, different speed: maestro (comms started "
       "by maestro), couriers (pooled actors) or auto (couriers from 6,144 ranks on)")
      ("copies", po::value<std::string>()->default_value("auto"),
       "auto: PCIe copies that only other copies can share are computed by the replay; simgrid: "
       "every copy is a SimGrid comm (same results, slower; for validation)")
      ("flows", po::value<std::string>()->default_value("auto"),
       "auto: a collective flow that shares no link with another flow of its collective is timed "
       "in closed form (aggregated fidelity, CM02); simgrid: every flow is a SimGrid comm (same "
       "results, slower; for validation)");
  const auto cli = parse_command_line(
      args, "",
      "usage: ceiling run --platform P --workload W --nodes N [options]\n\n"
      "Replays data-parallel training iterations (forward, backward, gradient reductions,\n"
      "update) event by event on the machine and prints per-iteration time, throughput,\n"
      "delivered FLOP/s and a breakdown into compute, exposed copies, exposed communication\n"
      "and synchronisation, plus bytes per link class.\n",
      options, false);
  if (!cli)
    return 0;
  for (const char* required : {"platform", "workload", "nodes"})
    if (!cli->has(required))
      throw UsageError(std::string("run: --") + required + " is required");

  replay::Scenario s;
  s.platform = config::load_platform(cli->vm["platform"].as<std::string>());
  s.workload = config::load_workload(cli->vm["workload"].as<std::string>());
  s.nodes = cli->vm["nodes"].as<long long>();
  auto& o = s.options;
  const auto collective = cli->vm["collective"].as<std::string>();
  const auto algorithm = collectives::algorithm_from_string(collective);
  if (!algorithm)
    throw UsageError("--collective: unknown algorithm \"" + collective + "\": expected one of " +
                     collectives::algorithm_names());
  o.collective = *algorithm;
  o.servers = cli->vm["servers"].as<int>();
  if (auto p = cli->optional<std::string>("precision")) {
    o.precision = replay::precision_mode_from_string(*p);
    if (!o.precision)
      throw UsageError("--precision: expected fp64, fp32, fp16 or mixed, got \"" + *p + "\"");
  }
  if (auto st = cli->optional<std::string>("staging")) {
    if (*st != "host" && *st != "direct")
      throw UsageError("--staging: expected host or direct, got \"" + *st + "\"");
    o.staging = *st == "host" ? replay::Staging::Host : replay::Staging::Direct;
  }
  o.overlap = on_off(*cli, "overlap");
  o.input_overlap = on_off(*cli, "input-overlap");
  const auto fidelity = cli->vm["fidelity"].as<std::string>();
  if (fidelity != "aggregated" && fidelity != "exact")
    throw UsageError("--fidelity: expected aggregated or exact, got \"" + fidelity + "\"");
  o.fidelity = fidelity == "exact" ? replay::Fidelity::Exact : replay::Fidelity::Aggregated;
  o.iterations = cli->vm["iterations"].as<int>();
  o.seed = cli->vm["seed"].as<unsigned long long>();
  o.jitter = cli->vm["jitter"].as<double>();
  o.fusion_threshold = cli->positive_size("fusion-threshold");
  o.network.model = cli->vm["network-model"].as<std::string>();
  if (o.network.model != "CM02" && o.network.model != "LV08" && o.network.model != "SMPI" && o.network.model != "IB")
    throw UsageError("--network-model: expected CM02, LV08, SMPI or IB, got \"" + o.network.model + "\"");
  o.network.latency_factor = cli->optional<double>("latency-factor");
  o.network.bandwidth_factor = cli->optional<double>("bandwidth-factor");
  for (auto [name, factor] : {std::pair{"--latency-factor", o.network.latency_factor},
                              std::pair{"--bandwidth-factor", o.network.bandwidth_factor}})
    if (factor && !(*factor > 0 && std::isfinite(*factor)))
      throw UsageError(std::string(name) + ": must be a positive number, got " + std::to_string(*factor));
  o.stop_at_interrupt = true;
  const auto driver = cli->vm["transfer-driver"].as<std::string>();
  if (driver != "auto" && driver != "maestro" && driver != "couriers")
    throw UsageError("--transfer-driver: expected auto, maestro or couriers, got \"" + driver + "\"");
  if (driver != "auto")
    o.courier_transfers_from_ranks = driver == "couriers" ? 0 : std::numeric_limits<int>::max();
  const auto copies = cli->vm["copies"].as<std::string>();
  if (copies != "auto" && copies != "simgrid")
    throw UsageError("--copies: expected auto or simgrid, got \"" + copies + "\"");
  o.copies_through_simgrid = copies == "simgrid";
  const auto flows = cli->vm["flows"].as<std::string>();
  if (flows != "auto" && flows != "simgrid")
    throw UsageError("--flows: expected auto or simgrid, got \"" + flows + "\"");
  o.flows_through_simgrid = flows == "simgrid";
  const auto trace = cli->optional<std::string>("trace");
  o.record_timeline = trace.has_value();
  if (auto problem = replay::scenario_problem(s))
    throw UsageError(*problem);

  const replay::RunResult r = replay::run(s);
  if (trace) {
    std::ofstream out(*trace);
    io::write_chrome_trace(r.timeline, out);
    if (!out)
      throw UsageError("writing the trace \"" + *trace + "\" failed");
  }
  if (cli->has("timing")) {
    std::fprintf(stderr, "timing: build %.3f s; iterations", r.build_wall_s);
    for (double w : r.iteration_wall_s)
      std::fprintf(stderr, " %.6f", w);
    std::fprintf(stderr, " s\n");
    std::fprintf(stderr, "work: %lld transfers, %lld flows in closed form, %lld link copies, %lld clock advances "
                 "in %zu iterations; transfer driver %s\n",
                 r.transfers, r.flows_in_closed_form, r.link_copies, r.clock_advances, r.iteration_wall_s.size(),
                 r.transfers_by_couriers ? "couriers" : "maestro");
  }
  const auto mean = r.measured_mean();
  if (cli->has("json")) {
    io::JsonWriter json(std::cout);
    json.begin_object();
    json.key("platform").value(s.platform.name).key("workload").value(s.workload.name);
    json.key("nodes").value(s.nodes).key("ranks").value(r.ranks);
    json.key("collective").value(collectives::to_string(o.collective));
    json.key("precision").value(replay::to_string(replay::resolved_precision(s)));
    json.key("staging").value(replay::to_string(replay::resolved_staging(s)));
    json.key("overlap").value(o.overlap).key("input_overlap").value(o.input_overlap);
    json.key("fidelity").value(replay::to_string(o.fidelity));
    json.key("fusion_threshold_bytes").value(o.fusion_threshold.bytes());
    json.key("seed").value(static_cast<long long>(o.seed)).key("jitter").value(o.jitter);
    json.key("network_model").value(o.network.model);
    if (o.network.latency_factor)
      json.key("latency_factor").value(*o.network.latency_factor);
    if (o.network.bandwidth_factor)
      json.key("bandwidth_factor").value(*o.network.bandwidth_factor);
    json.key("iterations_requested").value(o.iterations);
    json.key("stopped_by_signal").value(r.stopped_by);
    json.key("samples_per_iteration").value(r.samples_per_iteration);
    json.key("flop_per_iteration").value(r.flop_per_iteration);
    json.key("warmup");
    write_iteration_json(json, r.iterations.front(), r.samples_per_iteration, r.flop_per_iteration);
    json.key("iterations").begin_array();
    for (const auto& it : r.iterations)
      write_iteration_json(json, it, r.samples_per_iteration, r.flop_per_iteration);
    json.end_array();
    json.key("mean");
    write_iteration_json(json, mean, r.samples_per_iteration, r.flop_per_iteration);
    json.end_object();
    return exit_status(r);
  }
  std::cout << s.workload.title << " on " << s.platform.name << ": " << s.nodes << " nodes, "
            << r.ranks << " ranks, " << collectives::to_string(o.collective) << " ("
            << replay::to_string(o.fidelity) << "), "
            << replay::to_string(replay::resolved_precision(s)) << ", staging "
            << replay::to_string(replay::resolved_staging(s)) << ", overlap "
            << (o.overlap ? "on" : "off") << "\n\n";
  std::printf("%-11s %11s %14s %14s %10s %10s %10s %10s\n", "iteration", "time (s)", "samples/s",
              "FLOP/s", "compute", "copy", "comm", "sync");
  const auto row = [&](const std::string& label, const replay::IterationResult& it) {
    std::printf("%-11s %11.6f %14.6g %14.6g %10.6f %10.6f %10.6f %10.6f\n", label.c_str(), it.time_s,
                r.samples_per_iteration / it.time_s, r.flop_per_iteration / it.time_s,
                it.breakdown.compute_s, it.breakdown.copy_s, it.breakdown.communication_s,
                it.breakdown.synchronisation_s);
  };
  for (std::size_t i = 0; i < r.iterations.size(); ++i)
    row(i == 0 ? "0 (warm-up)" : std::to_string(i), r.iterations[i]);
  row("mean", mean);
  std::printf("\nbytes per iteration (mean): PCIe %s, NIC %s, fabric %s, GPU links %s, host memory %s\n",
              units::to_string(units::DataSize::from_bytes(mean.bytes.pcie)).c_str(),
              units::to_string(units::DataSize::from_bytes(mean.bytes.nic)).c_str(),
              units::to_string(units::DataSize::from_bytes(mean.bytes.fabric)).c_str(),
              units::to_string(units::DataSize::from_bytes(mean.bytes.gpu_link)).c_str(),
              units::to_string(units::DataSize::from_bytes(mean.bytes.host_memory)).c_str());
  std::printf("breakdown columns are seconds per iteration, averaged over ranks; they sum to the time\n");
  if (r.stopped_by != 0)
    std::printf("interrupted by signal %d: %zu of %d iterations finished\n", r.stopped_by, r.iterations.size(),
                o.iterations);
  return exit_status(r);
}

} // namespace ceiling::tools
