// The options of `ceiling run` and the scenario they describe (shared with sweep points).
#include "tools/ceiling/run_options.hpp"

#include "config/overrides.hpp"
#include "config/platform_file.hpp"
#include "config/software_file.hpp"
#include "config/table_reader.hpp"
#include "config/workload_file.hpp"
#include "io/json_writer.hpp"
#include "platform/topology.hpp"
#include "replay/iteration_plan.hpp"
#include "tools/ceiling/commands.hpp"
#include "units/parse.hpp"
#include "workload/cost_model.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <sstream>

#include <unistd.h>
#include <limits>

namespace po = boost::program_options;

namespace ceiling::tools {
namespace {

/// A number as one would type it: 2000, not 2e+03 (up to 15 significant digits).
std::string as_typed(double value) {
  std::ostringstream text;
  text.precision(15);
  text << value;
  return text.str();
}

bool on_off(const CommandLine& cli, const char* option) {
  const auto text = cli.vm[option].as<std::string>();
  if (text != "on" && text != "off")
    throw UsageError(std::string("--") + option + ": expected on or off, got \"" + text + "\"");
  return text == "on";
}

/// --batch sets the samples per rank; --global-batch divides a total among the ranks.
void set_batch(replay::Scenario& s, const CommandLine& cli) {
  constexpr long long max_batch = workload::max_batch_per_worker;
  if (cli.has("batch") && cli.has("global-batch"))
    throw UsageError("--batch and --global-batch exclude each other: give the samples per rank "
                     "(weak scaling) or the samples over all ranks (strong scaling)");
  if (auto batch = cli.optional<long long>("batch")) {
    if (*batch < 1 || *batch > max_batch)
      throw UsageError("--batch: must be between 1 and " + std::to_string(max_batch) + ", got " +
                       std::to_string(*batch));
    s.workload.batch_per_worker = static_cast<int>(*batch);
  }
  if (auto global = cli.optional<long long>("global-batch")) {
    // The node count first: the ranks it makes divide the batch (none, or too many, cannot).
    if (auto problem = platform::allocation_problem(s.platform, s.nodes))
      throw UsageError(*problem);
    const long long ranks = replay::rank_count(s);
    if (*global < 1)
      throw UsageError("--global-batch: must be positive, got " + std::to_string(*global));
    if (*global % ranks != 0)
      throw UsageError("--global-batch: " + std::to_string(*global) +
                       " samples do not divide evenly among the " + std::to_string(ranks) +
                       " ranks of " + std::to_string(s.nodes) + " nodes: give a positive multiple "
                       "of " + std::to_string(ranks) + " (at most " +
                       std::to_string(max_batch) + " samples per rank)");
    if (*global / ranks > max_batch)
      throw UsageError("--global-batch: " + std::to_string(*global) + " samples make " +
                       std::to_string(*global / ranks) + " per rank on the " + std::to_string(ranks) +
                       " ranks of " + std::to_string(s.nodes) + " nodes, more than the " + std::to_string(max_batch) +
                       " a rank may take");
    s.workload.batch_per_worker = static_cast<int>(*global / ranks);
  }
}

} // namespace

void write_breakdown_json(io::JsonWriter& json, const replay::Breakdown& b) {
  json.begin_object()
      .key("compute").value(b.compute_s)
      .key("copy").value(b.copy_s)
      .key("communication").value(b.communication_s)
      .key("synchronisation").value(b.synchronisation_s)
      .end_object();
}

po::options_description run_options() {
  po::options_description options("options");
  options.add_options()
      ("platform,p", po::value<std::string>(), "platform file (required)")
      ("workload,w", po::value<std::string>(), "workload file (required)")
      ("nodes,n", po::value<long long>(), "nodes to run on (required); every GPU of a node is a rank")
      ("batch", po::value<long long>(), "samples per rank and iteration (weak scaling); default: the workload's batch_per_worker")
      ("global-batch", po::value<long long>(),
       "samples per iteration over all ranks, divided evenly among them (strong scaling); must be a multiple of the ranks")
      ("set", po::value<std::vector<std::string>>()->composing(),
       "KEY=VALUE: override a key of the platform, workload or software file (software.KEY), read as "
       "the file is (--set interconnect.link_bandwidth=\"25 GB/s\"); repeatable")
      ("software", po::value<std::string>(),
       "the training software stack: a bundled stack's name or a software file (see "
       "platforms/software/README.md); default: the platform's software, else ideal")
      ("collective", po::value<std::string>(),
       ("all-reduce algorithm, overriding the stack's: auto (the stack's library chooses per "
        "bucket) or " + collectives::algorithm_names()).c_str())
      ("servers", po::value<std::string>()->default_value("1"),
       "parameter servers, with --collective parameter-server: a count (4), or one per K workers (1/4: the workers "
       "over K, rounded up)")
      ("precision", po::value<std::string>(),
       "fp64, fp32, fp16 or mixed (fp16 compute, fp32 gradients); default: the workload's")
      ("staging", po::value<std::string>(),
       "host (copy gradients through host memory) or direct (GPU-direct RDMA); default: direct "
       "when the platform's NIC has GPU-direct, else host")
      ("overlap", po::value<std::string>(),
       "on: reduce each gradient bucket while backward goes on; off: after backward; default: the "
       "software stack's (software.overlap)")
      ("input-overlap", po::value<std::string>()->default_value("on"),
       "on: copy the next batch to the device during this iteration; off: before forward")
      ("fidelity", po::value<std::string>()->default_value("aggregated"),
       "aggregated (one flow per rank per collective phase) or exact (every message; slow above ~1,000 ranks)")
      ("iterations", po::value<int>()->default_value(5), "iterations; the first is reported apart as warm-up")
      ("seed", po::value<Seed>()->default_value(Seed{1}, "1"),
       "seed of everything drawn: compute jitter, which GPU gets which pace of the device spread, a random allocation, ECMP's and Valiant routing's hashes")
      ("allocation", po::value<std::string>()->default_value("contiguous"),
       "how the job's nodes are chosen: contiguous (the first N), random (N of the machine's, seeded), "
       "spread (round-robin over dragonfly groups, fat-tree leaf switches or torus planes) or list (--node-list)")
      ("background-load", po::value<std::vector<std::string>>()->composing(),
       "KIND=SHARE: other jobs' traffic keeps SHARE (0 to 0.95) of each fabric link busy; KIND fabric (every link "
       "between routers or switches) or global (a dragonfly's global links, instead of fabric there); repeatable")
      ("max-memory", po::value<std::string>(),
       "refuse a run whose simulation is estimated to need more memory than this (default: the "
       "machine's physical memory), e.g. \"8 GiB\"")
      ("allow-oversubscribed-memory",
       "run a batch whose device-memory estimate exceeds the GPU's memory, with a warning, instead of refusing it")
      ("node-list", po::value<std::string>(),
       "the job's node slots, comma-separated (\"0,4,8,12\"), with --allocation list (implied)")
      ("jitter", po::value<double>(),
       "per-rank compute slowdown per iteration, 1 + |N(0, X)| (OS noise, stragglers); 0 = off; default: "
       "the software stack's (software.jitter)")
      ("fusion-threshold", po::value<std::string>(), "gradient bucket size, with a unit; default: the stack's")
      ("network-model", po::value<std::string>()->default_value("CM02"),
       "SimGrid network model: CM02 (exact alpha-beta), LV08, SMPI or IB (the last three, with static routing "
       "only: a platform routed adaptively or by ECMP is the replay's own, CM02)")
      ("latency-factor", po::value<double>(), "multiply every route latency, 0.001 to 1000 (default: the model's, 1 for CM02)")
      ("bandwidth-factor", po::value<double>(), "multiply every flow's bandwidth, 0.001 to 1000 (default: the model's, 1 for CM02)")
      ("json", "print one JSON object instead of a table")
      ("trace", po::value<std::string>(), "write a Chrome trace (JSON) of every activity to this file")
      ("timing", "print to stderr the wall-clock time of the build (the plan and machine, the routes and flows) and of each iteration, and the simulation's work (transfers, clock advances, the shared flows' solves)")
      ("transfer-driver", po::value<std::string>()->default_value("auto"),
       "how transfers are driven in SimGrid, same results, different speed: maestro (comms started "
       "by maestro), couriers (pooled actors) or auto (couriers from 6,144 ranks on)")
      ("copies", po::value<std::string>()->default_value("auto"),
       "auto: PCIe copies that only other copies can share are computed by the replay; simgrid: "
       "every copy is a SimGrid comm (same results, slower; for validation; static routing only)")
      ("flows", po::value<std::string>()->default_value("auto"),
       "auto: collective flows are timed by the replay, in closed form when a flow shares no link "
       "with another flow of its collective, else shared out as SimGrid's CM02 does (CM02, no copy "
       "in SimGrid); simgrid: every flow is a SimGrid comm (same results within 1e-9, slower; for "
       "validation; but pipelined trees: each edge or chunk a comm that pays its latency first; static routing only)");
  return options;
}

double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page)
                               : std::numeric_limits<double>::infinity();
}

/// A lower estimate of what simulating `s` takes, from measured growth (README, Speed): SimGrid's
/// machine and the replay's state, 12-16 KiB per node on 16,384 ring nodes (260-322 MiB), beyond
/// 64 MiB of program; a result per iteration; with a trace, each rank's events of every
/// iteration (two per layer for forward and backward and a few per collective, about 64 bytes
/// each); at exact fidelity with a pipelined tree fixed as the collective, each chunk of the
/// gradient a flow up and one down on every rank (at least 2 bytes a parameter, about 64 bytes a
/// flow).
double simulation_memory_estimate(const replay::Scenario& s) {
  const double nodes = static_cast<double>(s.nodes);
  const double iterations = s.options.iterations;
  const double ranks = nodes * (s.platform.node.gpu ? s.platform.node.gpu->count : 1);
  double bytes = 64.0 * (1 << 20) + nodes * 14 * 1024 + iterations * 256;
  if (s.options.record_timeline)
    bytes += ranks * iterations * (2.0 * static_cast<double>(s.workload.layers.size()) + 8) * 64;
  const auto& stack = s.options.software;
  // (A library's own choice is not known before the plan: counted only where fixed, so that the
  // estimate stays a lower one.)
  const bool pipelined = stack.collective && (*stack.collective == collectives::Algorithm::PipelinedTree ||
                                              *stack.collective == collectives::Algorithm::PipelinedDoubleTree);
  if (s.options.fidelity == replay::Fidelity::Exact && pipelined) {
    const double chunks = std::ceil(2.0 * static_cast<double>(workload::total_trained_params(s.workload)) /
                                    stack.pipeline_chunk.bytes());
    bytes += chunks * ranks * 2 * 64;
  }
  return bytes;
}

/// An override of a key that an option of the same run sets is refused, not ignored: the option
/// wins, so the override would change nothing (a sweep's variant would run what its name denies).
/// (Not workload.precision beside --precision: the file's precision is also the one its
/// calibration and memory figures were given in, which the override does change.)
void refuse_shadowed_overrides(const CommandLine& cli, const std::vector<std::string>& overrides) {
  constexpr std::pair<const char*, const char*> shadowing[] = {
      {"batch", "workload.batch_per_worker"},      {"global-batch", "workload.batch_per_worker"},
      {"collective", "software.collective"},       {"overlap", "software.overlap"},
      {"jitter", "software.jitter"},               {"fusion-threshold", "software.fusion_threshold"}};
  for (const auto& [option, key] : shadowing)
    if (cli.has(option) && config::overrides_set(overrides, key))
      throw UsageError(std::string("--set ") + key + ": --" + option + " sets it for this run, so the override " +
                       "would change nothing: give one of them");
}

/// A run prices compute by a fitted efficiency, never by fitting one: an override of the
/// calibration's measurement changes nothing, nor one of [calibration]'s efficiency where the
/// run's device has a [[device_calibration]] of its own, nor of its half batch where that
/// device calibration has its own too. All are refused, not ignored.
void refuse_unused_calibration(const replay::Scenario& s, const std::vector<std::string>& overrides) {
  for (const char* key : {"calibration.measured_throughput", "calibration.batch"})
    if (config::overrides_set(overrides, key))
      throw UsageError(std::string("--set ") + key + ": a run does not fit the calibration again: it computes at " +
                       "calibration.compute_efficiency, which `ceiling workload calibrate --write` fits from the " +
                       "measurement; set that instead");
  const bool efficiency_set = config::overrides_set(overrides, "calibration.compute_efficiency");
  const bool half_batch_set = config::overrides_set(overrides, "calibration.half_batch");
  if (!efficiency_set && !half_batch_set)
    return;
  const auto device = workload::compute_device(s.platform.node);
  const auto mode = replay::to_string(replay::resolved_precision(s));
  const auto* own = workload::efficiency_for(s.workload, device, mode, s.options.software.framework).device_calibration;
  const auto refuse = [&](const std::string& key) {
    throw UsageError("--set " + key + ": this run prices the " + device.name + " by the workload's " +
                     "[[device_calibration]] for the " + own->device + ", which [calibration] does not change");
  };
  if (own && efficiency_set)
    refuse("calibration.compute_efficiency");
  if (own && own->half_batch && half_batch_set)
    refuse("calibration.half_batch");
}

std::vector<UnpaidCost> unpaid_stack_costs(const replay::Scenario& s, const std::vector<std::string>& overrides) {
  const auto& stack = s.options.software;
  const bool nic_paid =
      stack.message_overheads || stack.negotiation || (stack.gather_library && replay::gathers_sparse_gradients(s));
  std::vector<UnpaidCost> unpaid;
  for (const char* key : {stack_cost_keys[0], stack_cost_keys[1]})
    if (!nic_paid && config::overrides_set(overrides, key))
      unpaid.push_back({key, "the software stack " + stack.name + " pays no MPI overheads per message (message_overheads " +
                                 "and negotiation are off, and no gather library gathers sparse gradients)",
                        "message_overheads"});
  if (!stack.copy_overheads && config::overrides_set(overrides, stack_cost_keys[2]))
    unpaid.push_back({stack_cost_keys[2],
                      "the software stack " + stack.name + " pays no copy call overhead (copy_overheads = false)",
                      "copy_overheads"});
  return unpaid;
}

/// A workload named as a bundled one is named, without its folder and .toml ("-w resnet50_v1"): the
/// file in workloads/ here that it names, begins or comes closest to is suggested.
void refuse_workload_name(const std::string& given) {
  std::error_code ec;
  if (given.find('/') != std::string::npos || std::filesystem::exists(given, ec) ||
      !std::filesystem::is_directory("workloads", ec))
    return; // (read as a path: its reader says what is wrong)
  const std::string stem = given.ends_with(".toml") ? given.substr(0, given.size() - 5) : given;
  const auto path_of = [](const std::string& name) { return "workloads/" + name + ".toml"; };
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator("workloads", ec))
    if (entry.path().extension() == ".toml")
      names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  const auto name = config::suggested_name(stem, names);
  const std::string hint = name ? " (did you mean \"" + path_of(*name) + "\"?)" : std::string();
  throw UsageError("--workload: " + given + ": no such file; a workload is given by its file's path" +
                   (hint.empty() ? std::string(", such as workloads/resnet50_v1.toml") : hint));
}

namespace {

/// The parameter servers `text` asks for among `workers`: a count ("4"), or one per K workers
/// ("1/4": the workers over K, rounded up); the count's range is checked with the scenario
/// (replay::scenario_problem).
int server_count(const std::string& text, long long workers) {
  const auto expected = [&] {
    return UsageError("--servers: expected a count of parameter servers (such as 4) or one per K workers (such as "
                      "1/4), got \"" + text + "\"");
  };
  const auto slash = text.find('/');
  const std::string count = slash == std::string::npos ? text : text.substr(slash + 1);
  if (slash != std::string::npos && text.substr(0, slash) != "1")
    throw expected();
  if (count.empty() || count.size() > 9 || !std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw expected();
  const long long k = std::stoll(count);
  if (slash == std::string::npos)
    return static_cast<int>(k);
  if (k < 1)
    throw UsageError("--servers: one per K workers needs K of 1 or more, got \"" + text + "\"");
  return static_cast<int>(std::max(1LL, (workers + k - 1) / k));
}

} // namespace

replay::Scenario scenario_from(const CommandLine& cli, bool refuse_oversubscribed_memory) {
  for (const char* required : {"platform", "workload", "nodes"})
    if (!cli.has(required))
      throw UsageError(std::string("run: --") + required + " is required");
  const auto overrides = cli.optional<std::vector<std::string>>("set").value_or(std::vector<std::string>{});
  replay::Scenario s;
  s.platform = config::load_platform(cli.vm["platform"].as<std::string>(), overrides);
  refuse_workload_name(cli.vm["workload"].as<std::string>());
  s.workload = config::load_workload(cli.vm["workload"].as<std::string>(), overrides);
  // A fitted efficiency of the file that no longer reproduces its measurement (the file edited
  // since its fit) is refused, whatever the overrides make of it for this run (a what-if).
  // (read again without the overrides where some change the workload; a file that loads only
  // with them is not checked: what they make of it is what runs)
  const std::string workload_path = cli.vm["workload"].as<std::string>();
  std::optional<workload::WorkloadSpec> reread;
  const workload::WorkloadSpec* as_written = &s.workload;
  if (std::any_of(overrides.begin(), overrides.end(),
                  [](const std::string& o) { return config::override_target(o) == config::OverrideTarget::Workload; })) {
    try {
      as_written = &reread.emplace(config::load_workload(workload_path));
    } catch (const config::LoadError&) {
      as_written = nullptr;
    }
  }
  if (as_written)
    if (auto stale = config::stale_calibration(*as_written, workload_path))
      throw *stale;
  s.nodes = cli.vm["nodes"].as<long long>();
  if (auto problem = platform::allocation_problem(s.platform, s.nodes))
    throw UsageError("--nodes: " + *problem);
  refuse_shadowed_overrides(cli, overrides);
  set_batch(s, cli);
  auto& o = s.options;
  const std::string software = cli.optional<std::string>("software").value_or(
      s.platform.software.empty() ? std::string("ideal") : s.platform.software);
  if (config::is_blank(software)) // (an empty name is not the default stack)
    throw UsageError("--software: empty: expected a bundled stack (" + config::bundled_software_list() +
                     ") or a software file's path");
  o.software = config::load_software(software, overrides);
  if (auto collective = cli.optional<std::string>("collective")) {
    if (*collective == "auto") {
      if (!o.software.library)
        throw UsageError("--collective auto: the software stack " + o.software.name +
                         " has no library to choose (library = \"none\"): name an algorithm (" +
                         collectives::algorithm_names() + ") or a stack with a library");
      o.software.collective.reset();
    } else {
      o.software.collective = collectives::algorithm_from_string(*collective);
      if (!o.software.collective)
        throw UsageError("--collective: unknown algorithm \"" + *collective + "\": expected auto or one of " +
                         collectives::algorithm_names() +
                         config::did_you_mean_listed(*collective, "auto, " + collectives::algorithm_names()));
    }
  }
  o.servers = server_count(cli.vm["servers"].as<std::string>(), replay::parameter_server_workers(s));
  if (!cli.vm["servers"].defaulted() && o.software.collective != collectives::Algorithm::ParameterServer)
    throw UsageError("--servers: counts parameter servers, but the collective is " +
                     std::string(o.software.collective ? collectives::to_string(*o.software.collective)
                                                       : "auto (a library picks an all-reduce)") +
                     ": add --collective parameter-server or leave --servers out");
  if (auto p = cli.optional<std::string>("precision")) {
    o.precision = replay::precision_mode_from_string(*p);
    if (!o.precision)
      throw UsageError("--precision: expected fp64, fp32, fp16 or mixed, got \"" + *p + "\"" +
                       config::did_you_mean_listed(*p, "fp64, fp32, fp16, mixed"));
  }
  if (auto st = cli.optional<std::string>("staging")) {
    if (*st != "host" && *st != "direct")
      throw UsageError("--staging: expected host or direct, got \"" + *st + "\"");
    o.staging = *st == "host" ? replay::Staging::Host : replay::Staging::Direct;
    if (!s.platform.node.is_gpu_node())
      throw UsageError("--staging: stages messages between host and GPU memory, but the nodes of " + s.platform.name +
                       " have no GPU: leave --staging out");
    if (*o.staging == replay::Staging::Direct && !s.platform.node.nic.gpu_direct)
      throw UsageError("--staging: direct sends from GPU memory (GPUDirect RDMA), but the NICs of " + s.platform.name +
                       " cannot read it (node.nic.gpu_direct = false): stage through the host, or add "
                       "--set node.nic.gpu_direct=true to ask what GPUDirect would change");
  }
  if (cli.has("overlap"))
    o.overlap = on_off(cli, "overlap");
  o.input_overlap = on_off(cli, "input-overlap");
  // (as --staging: what only GPU nodes do, given for CPU nodes, is a slip, not a no-op)
  if (!s.platform.node.is_gpu_node())
    for (const auto& [name, does] : {std::pair<std::string, std::string>{"input-overlap", "overlaps the next batch's copy to GPU memory"},
                                     {"copies", "times the copies between host and GPU memory"}})
      if (!cli.vm[name].defaulted())
        throw UsageError("--" + name + ": " + does + ", but the nodes of " + s.platform.name + " have no GPU: leave --" +
                         name + " out");
  const auto fidelity = cli.vm["fidelity"].as<std::string>();
  if (fidelity != "aggregated" && fidelity != "exact")
    throw UsageError("--fidelity: expected aggregated or exact, got \"" + fidelity + "\"");
  o.fidelity = fidelity == "exact" ? replay::Fidelity::Exact : replay::Fidelity::Aggregated;
  o.iterations = cli.vm["iterations"].as<int>();
  o.seed = cli.vm["seed"].as<Seed>().value;
  if (cli.has("background-load")) {
    std::vector<std::string> given;
    for (const std::string& entry : cli.vm["background-load"].as<std::vector<std::string>>()) {
      const auto eq = entry.find('=');
      const std::string kind = entry.substr(0, eq);
      if (eq == std::string::npos || (kind != "fabric" && kind != "global"))
        throw UsageError("--background-load: expected fabric=SHARE or global=SHARE, got \"" + entry + "\"");
      if (std::find(given.begin(), given.end(), kind) != given.end())
        throw UsageError("--background-load: " + kind + " given twice: expected each kind once");
      given.push_back(kind);
      // (a decimal number: not std::stod's hexadecimal, "inf" or "nan"; a leading + allowed)
      std::string_view text = std::string_view(entry).substr(eq + 1);
      if (text.starts_with('+'))
        text.remove_prefix(1);
      double share = -1;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), share);
      share += 0.0; // (-0 as 0)
      if (text.empty() || ec != std::errc{} || end != text.data() + text.size() ||
          !(share >= 0 && share <= platform::BackgroundLoad::max))
        throw UsageError("--background-load: " + kind + " expects a share from 0 to 0.95, got \"" + entry.substr(eq + 1) + "\"");
      (kind == "fabric" ? o.background.fabric : o.background.global.emplace()) = share;
    }
  }
  const auto allocation = cli.vm["allocation"].as<std::string>();
  const auto policy = platform::allocation_policy_from_string(allocation);
  if (!policy)
    throw UsageError("--allocation: expected one of " + platform::allocation_policy_list() + ", got \"" + allocation + "\"");
  o.allocation.policy = cli.has("node-list") ? platform::AllocationPolicy::List : *policy;
  if (cli.has("node-list") && *policy != platform::AllocationPolicy::List && !cli.vm["allocation"].defaulted())
    throw UsageError("--node-list: goes with --allocation list, not " + allocation);
  if (o.allocation.policy == platform::AllocationPolicy::List) {
    if (!cli.has("node-list"))
      throw UsageError("--allocation: list needs --node-list (the nodes, such as --node-list 0,384,768)");
    const std::string list = cli.vm["node-list"].as<std::string>();
    if (list.empty() || list.back() == ',')
      throw UsageError("--node-list: expected comma-separated node numbers from 0, got \"" + list + "\"");
    std::stringstream ids(list);
    for (std::string id; std::getline(ids, id, ',');) {
      // (blanks around a number are no part of it: " 0, 1" as "0,1")
      id.erase(0, std::min(id.find_first_not_of(' '), id.size()));
      id.erase(id.find_last_not_of(' ') + 1);
      std::size_t used = 0;
      long long slot = -1;
      try {
        slot = std::stoll(id, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != id.size() || slot < 0)
        throw UsageError("--node-list: expected comma-separated node numbers from 0, got \"" + id + "\"");
      o.allocation.slots.push_back(slot);
    }
  }
  if (cli.has("jitter"))
    o.jitter = cli.vm["jitter"].as<double>();
  o.allow_oversubscribed_memory = cli.has("allow-oversubscribed-memory");
  if (cli.has("fusion-threshold")) {
    if (o.software.exchange == stack::Exchange::PerVariable)
      throw UsageError("--fusion-threshold: the software stack " + o.software.name +
                       " exchanges every layer's variables on its own (exchange = \"per-variable\"): nothing is fused");
    o.software.fusion_threshold = cli.positive_size("fusion-threshold");
  }
  o.network.model = cli.vm["network-model"].as<std::string>();
  if (o.network.model != "CM02" && o.network.model != "LV08" && o.network.model != "SMPI" && o.network.model != "IB")
    throw UsageError("--network-model: expected CM02, LV08, SMPI or IB, got \"" + o.network.model + "\"");
  o.network.latency_factor = cli.optional<double>("latency-factor");
  o.network.bandwidth_factor = cli.optional<double>("bandwidth-factor");
  for (auto [name, factor] : {std::pair{"--latency-factor", o.network.latency_factor},
                              std::pair{"--bandwidth-factor", o.network.bandwidth_factor}})
    // (SimGrid's own factors lie within 0.1 and 20: a factor outside these bounds is a slip, and
    // would make times whose digits drown each other)
    if (factor && !(*factor >= 1e-3 && *factor <= 1e3))
      throw UsageError(std::string(name) + ": expected a factor from 0.001 to 1000, got " + as_typed(*factor));
  o.stop_at_interrupt = true;
  const auto driver = cli.vm["transfer-driver"].as<std::string>();
  if (driver != "auto" && driver != "maestro" && driver != "couriers")
    throw UsageError("--transfer-driver: expected auto, maestro or couriers, got \"" + driver + "\"");
  if (driver != "auto")
    o.courier_transfers_from_ranks = driver == "couriers" ? 0 : std::numeric_limits<int>::max();
  const auto copies = cli.vm["copies"].as<std::string>();
  if (copies != "auto" && copies != "simgrid")
    throw UsageError("--copies: expected auto or simgrid, got \"" + copies + "\"");
  o.copies_through_simgrid = copies == "simgrid";
  const auto flows = cli.vm["flows"].as<std::string>();
  if (flows != "auto" && flows != "simgrid")
    throw UsageError("--flows: expected auto or simgrid, got \"" + flows + "\"");
  o.flows_through_simgrid = flows == "simgrid";
  o.record_timeline = cli.has("trace");
  const bool allowed = o.allow_oversubscribed_memory;
  o.allow_oversubscribed_memory = allowed || !refuse_oversubscribed_memory;
  if (auto problem = replay::scenario_problem(s)) {
    using Input = replay::ScenarioProblem::Input;
    // A combination the exchange forbids is --collective's: the file (its --set overrides
    // applied) was refused with any such problem when it was read, and no other option changes
    // what exchange_problem reads.
    if (const auto exchange = stack::exchange_problem(o.software);
        exchange && problem->input == Input::Software && problem->key == "software." + std::string(exchange->key))
      throw UsageError("--collective " + cli.vm["collective"].as<std::string>() + ": the software stack " +
                       o.software.name + "'s " + problem->key + ": " + problem->message);
    if (problem->input == Input::Software)
      throw config::software_key_error(software, overrides, problem->key, problem->message);
    if (problem->input == Input::Platform) {
      const auto error = config::platform_key_error(cli.vm["platform"].as<std::string>(), overrides, problem->key,
                                                    problem->message);
      const std::string stack_overrides =
          problem->made_by_stack ? config::overrides_text(overrides, config::OverrideTarget::Software) : "";
      if (stack_overrides.empty())
        throw error;
      throw config::LoadError(error.where(), error.key(), error.message() + " (the stack as " + stack_overrides + " leaves it)");
    }
    if (problem->input == Input::Workload)
      throw config::workload_key_error(cli.vm["workload"].as<std::string>(), overrides,
                                       problem->key, problem->message);
    // A batch beyond the device's memory: at the option or the key that gives the batch, but where
    // an override of the memory made it so (the message names both).
    if (const auto memory = replay::memory_problem(s); memory && problem->message.starts_with(*memory)) {
      for (const char* option : {"batch", "global-batch"})
        if (cli.has(option))
          throw UsageError(std::string("--") + option + ": " + problem->message);
      const bool memory_set =
          config::overrides_set(overrides, "node.gpu.memory") || config::overrides_set(overrides, "node.cpu.host_memory");
      if (!memory_set || config::overrides_set(overrides, "workload.batch_per_worker"))
        throw config::workload_key_error(cli.vm["workload"].as<std::string>(), overrides, "workload.batch_per_worker",
                                         problem->message);
    }
    throw UsageError(problem->message);
  }
  o.allow_oversubscribed_memory = allowed;
  refuse_unused_calibration(s, overrides);
  const double limit = cli.has("max-memory") ? cli.positive_size("max-memory").bytes() : physical_memory_bytes();
  const double estimate = simulation_memory_estimate(s);
  // The limit as given, and in the units of the estimate where that reads otherwise ("1 KiB, 1.024 kB").
  const std::string limit_bytes = units::to_string(units::DataSize::from_bytes(limit));
  const std::string given = cli.has("max-memory") ? *cli.optional<std::string>("max-memory") : "";
  const std::string limit_text = !cli.has("max-memory") ? "this machine has (" + limit_bytes + ")"
                                 : given == limit_bytes ? "the limit (" + given + ")"
                                                        : "the limit (" + given + ", " + limit_bytes + ")";
  if (estimate > limit)
    throw UsageError(std::string(cli.has("max-memory") ? "--max-memory: " : "") + "the simulation would need at least " +
                     units::to_string(units::DataSize::from_bytes(estimate)) +
                     " of memory (" + std::to_string(s.nodes) + " nodes, " + std::to_string(o.iterations) +
                     " iterations" + (o.record_timeline ? ", a trace" : "") +
                     (o.fidelity == replay::Fidelity::Exact ? ", every message exact" : "") + "), more than " +
                     limit_text +
                     ": use fewer nodes or iterations" +
                     (o.fidelity == replay::Fidelity::Exact ? ", aggregated fidelity, a larger software.pipeline_chunk" : "") +
                     ", or raise --max-memory");
  return s;

}

std::string allocation_text(const replay::Scenario& s) {
  const auto& o = s.options;
  std::string text(platform::to_string(o.allocation.policy));
  if (o.allocation.policy == platform::AllocationPolicy::Random)
    text += " (seed " + std::to_string(o.seed) + ")";
  return text;
}

std::string background_text(const replay::Scenario& s) {
  const auto& background = s.options.background;
  if (!background.any())
    return "";
  char text[96];
  const int n = std::snprintf(text, sizeof text, "background load %.0f %% of fabric links", 100 * background.fabric);
  if (std::holds_alternative<platform::Dragonfly>(s.platform.interconnect.topology))
    std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), ", %.0f %% of global links",
                  100 * background.of(platform::FabricLinkKind::Global));
  return text;
}

std::string provenance(const replay::Scenario& s, const replay::RunResult& r) {
  std::string text = "compute: " + r.calibration + "; routing " +
                     std::string(platform::to_string(s.platform.interconnect.routing)) + "; allocation " + allocation_text(s) +
                     ", " + std::to_string(r.domains_spanned) + " of " +
                     std::to_string(platform::domain_count(s.platform)) + " " +
                     std::string(platform::domain_name(s.platform.interconnect.topology));
  if (const auto load = background_text(s); !load.empty())
    text += "; " + load;
  return text;
}

} // namespace ceiling::tools
