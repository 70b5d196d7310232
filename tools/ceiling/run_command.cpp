// `ceiling run`: replay training iterations of a workload on a machine.
#include "collectives/collective_plan.hpp"
#include "config/overrides.hpp"
#include "config/platform_file.hpp"
#include "config/workload_file.hpp"
#include "io/atomic_output.hpp"
#include "io/chrome_trace.hpp"
#include "io/json_writer.hpp"
#include "platform/topology.hpp"
#include "replay/device_spread.hpp"
#include "replay/engine.hpp"
#include "replay/iteration_plan.hpp"
#include "support/counted.hpp"
#include "support/stop_signals.hpp"
#include "tools/ceiling/commands.hpp"
#include "tools/ceiling/options.hpp"
#include "tools/ceiling/run_options.hpp"
#include "tools/sweep/stop_signals.hpp"
#include "tools/sweep/sweep_driver.hpp"
#include "units/parse.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

namespace po = boost::program_options;

namespace ceiling::tools {
namespace {

void write_iteration_json(io::JsonWriter& json, const replay::IterationResult& it, double samples,
                          double flop) {
  json.begin_object();
  json.key("iteration_time_s").value(it.time_s);
  json.key("samples_per_s").value(samples / it.time_s);
  json.key("delivered_flop_per_s").value(flop / it.time_s);
  json.key("breakdown_s");
  write_breakdown_json(json, it.breakdown);
  // Whole bytes: a ring's chunks divide a bucket by the ranks, so the sums over links carry
  // fractions of a byte that no wire does.
  json.key("bytes").begin_object()
      .key("pcie").value(std::round(it.bytes.pcie))
      .key("nic").value(std::round(it.bytes.nic))
      .key("fabric").value(std::round(it.bytes.fabric))
      .key("gpu_link").value(std::round(it.bytes.gpu_link))
      .key("host_memory").value(std::round(it.bytes.host_memory))
      .end_object();
  json.end_object();
}

/// The stack's fixed algorithm, or "auto" when its library chooses per bucket.
std::string collective_name(const stack::SoftwareStack& software) {
  return software.collective ? std::string(collectives::to_string(*software.collective)) : "auto";
}

/// One line per algorithm the reductions ran, with the rule that chose it: "2 x halving-doubling
/// (97.5 MB): over 2048 bytes: Rabenseifner ...".
void print_collectives(const replay::RunResult& r, const stack::SoftwareStack& software) {
  struct Group {
    std::string algorithm, rule, protocol;
    int count = 0;
    double bytes = 0;
  };
  std::vector<Group> groups;
  for (const auto& k : r.reductions) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.algorithm == k.algorithm && g.rule == k.rule && g.protocol == k.protocol;
    });
    if (it == groups.end())
      it = groups.insert(groups.end(), {k.algorithm, k.rule, k.protocol});
    ++it->count;
    it->bytes += k.bytes;
  }
  for (const auto& g : groups)
    std::printf("  %d x %s%s (%s per rank): %s\n", g.count, g.algorithm.c_str(),
                g.protocol.empty() ? "" : (", NCCL protocol " + g.protocol).c_str(),
                units::to_string(units::DataSize::from_bytes(g.bytes)).c_str(), g.rule.c_str());
  double gathered = 0, pushed = 0, read = 0;
  for (const auto& k : r.reductions) {
    if (!k.sparse)
      continue;
    if (k.gathered)
      gathered += k.bytes;
    else if (k.read)
      read += k.bytes;
    else
      pushed += k.bytes, read += k.result_bytes;
  }
  const auto text = [](double bytes) { return units::to_string(units::DataSize::from_bytes(bytes)); };
  if (gathered > 0)
    std::printf("  sparse gradients: each rank receives %s per iteration from the others' touched rows and their ids\n",
                text(gathered * (r.ranks - 1)).c_str());
  if (pushed > 0)
    std::printf("  sparse gradients: each worker pushes %s per iteration to the tables' servers (the rows its batch "
                "touched and their ids) and reads %s of rows back\n",
                text(pushed).c_str(), text(read).c_str());
  if (r.dense_tables.empty())
    return;
  std::string tables;
  for (const auto& t : r.dense_tables)
    tables += (tables.empty() ? "" : ", ") + t.name + " (" + text(t.bytes) + ")";
  std::printf("  sparse gradients: exchanged dense, whole with the dense gradients: %s; %s\n", tables.c_str(),
              software.sparse == stack::SparseGradients::Dense
                  ? "the stack sends every table dense (software.sparse_gradients = dense)"
                  : "a dense all-reduce would move fewer bytes than all-gathering the touched rows and ids "
                    "(software.sparse_gradients = cheaper)");
}

/// "parameter servers: 4, placement greedy: the hottest, rank 0, receives 411 MB from each
/// worker per iteration (75 % of what the servers receive; 25 % if spread evenly)".
void print_servers(const replay::RunResult& r, const stack::SoftwareStack& software) {
  if (r.server_bytes.empty())
    return;
  const auto hottest = std::max_element(r.server_bytes.begin(), r.server_bytes.end());
  double total = 0;
  for (double b : r.server_bytes)
    total += b;
  std::printf("parameter servers: %zu, placement %s: the hottest, rank %td, receives %s from each worker per "
              "iteration (%.1f %% of what the servers receive; %.1f %% if spread evenly)\n",
              r.server_bytes.size(), std::string(stack::to_string(software.placement)).c_str(),
              (hottest - r.server_bytes.begin()) * r.server_rank_stride, units::to_string(units::DataSize::from_bytes(*hottest)).c_str(),
              total > 0 ? 100 * *hottest / total : 0.0, 100.0 / static_cast<double>(r.server_bytes.size()));
}

/// 0, or 128 + the signal that stopped the run early, as a shell reports a process it ended
/// (the finished iterations are printed first).
int exit_status(const replay::RunResult& r) { return r.stopped_by == 0 ? 0 : 128 + r.stopped_by; }

/// The last line of a run that a signal stopped, and the exit status of any run.
int interrupted(const replay::RunResult& r, const replay::ReplayOptions& o) {
  if (r.stopped_by != 0)
    std::printf("interrupted by signal %d: %zu of %d iterations finished%s\n", r.stopped_by,
                r.iterations.size(), o.iterations,
                r.dropped_iteration ? " (the one under way was dropped: it had not ended 0.5 s after the signal)"
                                    : "");
  return exit_status(r);
}

/// Where the job sits: its allocation, the domains it spans and, for a few nodes, its slots.
void print_allocation(const replay::Scenario& s, const replay::RunResult& r) {
  std::printf("allocation: %s, %lld nodes on %lld of %lld %s", allocation_text(s).c_str(), s.nodes, r.domains_spanned,
              platform::domain_count(s.platform),
              std::string(platform::domain_name(s.platform.interconnect.topology)).c_str());
  if (s.options.allocation.policy != platform::AllocationPolicy::Contiguous && r.slots.size() <= 16) {
    std::printf(" (slots");
    for (long long slot : r.slots)
      std::printf(" %lld", slot);
    std::printf(")");
  }
  if (const auto load = background_text(s); !load.empty())
    std::printf("; %s", load.c_str());
  std::printf("\n");
}

/// The seeds of --seeds "1,2,3": distinct, in the order given.
std::vector<std::uint64_t> seeds_of(const std::string& text) {
  std::vector<std::uint64_t> seeds;
  std::stringstream in(text);
  if (!text.empty() && text.back() == ',')
    throw UsageError("--seeds: expected comma-separated seeds (\"1,2,3\"), got a trailing comma");
  for (std::string item; std::getline(in, item, ',');) {
    const auto read = seed_of(item);
    if (!read)
      throw UsageError("--seeds: expected comma-separated seeds (\"1,2,3\"), each from 0 to " + std::to_string(max_seed) +
                       ", got \"" + item + "\"");
    const std::uint64_t seed = *read;
    if (std::find(seeds.begin(), seeds.end(), seed) != seeds.end())
      throw UsageError("--seeds: seed " + item + " is given twice");
    seeds.push_back(seed);
  }
  if (seeds.empty())
    throw UsageError("--seeds: expected comma-separated seeds (\"1,2,3\"), got nothing");
  return seeds;
}

/// `args` without the options that only `run --seeds` reads (and the --seed it replaces), their
/// values following or attached ("--jobs 2", "--seeds=1,2").
std::vector<std::string> point_arguments(const std::vector<std::string>& args) {
  const auto is_ours = [](std::string_view name) { return name == "jobs" || name == "seed" || name == "seeds"; };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.starts_with("--")) {
      const auto eq = a.find('=');
      const std::string_view name = std::string_view(a).substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (is_ours(name)) {
        i += eq == std::string::npos ? 1 : 0; // its value follows unless given with "="
        continue;
      }
    }
    out.push_back(a);
  }
  return out;
}

/// Seconds in a column `width` wide, after a space: six decimals, or four significant digits in
/// exponent form in a table whose first iteration takes under a millisecond (which six decimals
/// would round towards 0).
void print_seconds(double seconds, int width, bool exponent_form) {
  if (exponent_form)
    std::printf(" %*.3e", width, seconds);
  else
    std::printf(" %*.6f", width, seconds);
}

/// Whether a table whose first row's iteration takes `first_s` prints its seconds in exponent form.
bool sub_millisecond(double first_s) { return first_s < 1e-3; }

/// A row's time and breakdown columns (the samples' and FLOPs' rates between, as `rates` prints
/// them), in the table's form (sub_millisecond()).
template <class Rates>
void print_timed_row(double time_s, const replay::Breakdown& b, int time_width, bool exponent_form, Rates&& rates) {
  print_seconds(time_s, time_width, exponent_form);
  rates();
  for (double part : {b.compute_s, b.copy_s, b.communication_s, b.synchronisation_s})
    print_seconds(part, 10, exponent_form);
  std::printf("\n");
}

/// `ceiling run --seeds`: the run once per seed, each in a process of its own (SimGrid's engine
/// is one per process; `jobs` at a time), then the spread of the iteration time over the seeds.
int run_seeds(const replay::Scenario& s, const std::vector<std::string>& args,
              const std::vector<std::uint64_t>& seeds, int jobs, bool as_json) {
  const std::string program = point_program_path();
  const auto point_args = point_arguments(args);
  std::vector<sweep::PointResult> results(seeds.size());
  std::vector<bool> ran(seeds.size(), false);
  sweep::WorkerPool pool;
  pool.set_wake_fd(catch_stop_signals());
  std::size_t next = 0;
  const auto keep = [&](const sweep::WorkerPool::Finished& finished) {
    results[static_cast<std::size_t>(finished.tag)] = point_result(finished);
    ran[static_cast<std::size_t>(finished.tag)] = true;
  };
  for (std::size_t done = 0; done < seeds.size() && stop_signal == 0;) {
    while (next < seeds.size() && pool.running() < jobs && stop_signal == 0) {
      std::vector<std::string> args = point_args;
      args.insert(args.end(), {"--seed", std::to_string(seeds[next])});
      pool.start(static_cast<int>(next), point_command(program, args));
      ++next;
    }
    if (const auto finished = pool.wait_one()) {
      keep(*finished);
      ++done;
    }
  }
  if (stop_signal != 0) { // the seeds that finished are printed, the others stopped
    for (const auto& finished : pool.take_finished())
      keep(finished);
    pool.terminate_all();
    std::size_t stopped = 0, unstarted = 0;
    for (std::size_t i = 0; i < seeds.size(); ++i)
      if (!ran[i]) {
        results[i].error = i < next ? "stopped by signal " + std::to_string(stop_signal) + " before it finished"
                                    : "not started: signal " + std::to_string(stop_signal) + " came first";
        ++(i < next ? stopped : unstarted);
      }
    std::fprintf(stderr, "ceiling run: interrupted by signal %d: %zu of %zu seeds finished, printed; %zu stopped, %zu not started\n",
                 static_cast<int>(stop_signal), seeds.size() - stopped - unstarted, seeds.size(), stopped, unstarted);
  }
  // (128 + the signal when stopped, as `ceiling run` exits)
  const int status = stop_signal != 0 ? 128 + stop_signal : 0;
  std::vector<double> times;
  for (const auto& r : results)
    if (r.ok)
      times.push_back(r.iteration_time_s);
  std::sort(times.begin(), times.end());
  const auto median = [&] {
    const std::size_t mid = times.size() / 2;
    return times.size() % 2 == 1 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  };
  const bool all_ok = times.size() == results.size();
  if (as_json) {
    io::JsonWriter json(std::cout);
    json.begin_object();
    json.key("platform").value(s.platform.name).key("workload").value(s.workload.name);
    json.key("nodes").value(s.nodes);
    json.key("allocation").value(std::string(platform::to_string(s.options.allocation.policy)));
    json.key("stopped_by_signal").value(static_cast<int>(stop_signal));
    json.key("runs").begin_array();
    for (std::size_t i = 0; i < seeds.size(); ++i) {
      const auto& r = results[i];
      json.begin_object().key("seed").value(static_cast<long long>(seeds[i])).key("ok").value(r.ok);
      if (r.ok)
        json.key("iteration_time_s").value(r.iteration_time_s)
            .key("samples_per_s").value(r.samples_per_iteration / r.iteration_time_s)
            .key("compute_s").value(r.compute_s).key("copy_s").value(r.copy_s)
            .key("communication_s").value(r.communication_s).key("synchronisation_s").value(r.synchronisation_s);
      else
        json.key("error").value(r.error);
      json.end_object();
    }
    json.end_array();
    json.key("iteration_time_s").begin_object();
    if (times.empty()) // no seed finished (all failed, or stopped before any ended)
      json.key("min").null().key("median").null().key("max").null();
    else
      json.key("min").value(times.front()).key("median").value(median()).key("max").value(times.back());
    json.end_object();
    json.end_object();
    return status != 0 ? status : all_ok ? 0 : 1;
  }
  std::cout << s.workload.title << " on " << s.platform.name << ": " << support::counted(s.nodes, "node") << ", "
            << support::counted(static_cast<long long>(seeds.size()), "seed") << ", each its own run (allocation " << platform::to_string(s.options.allocation.policy) << ")\n\n";
  std::printf("%-20s %12s %14s %10s %10s %10s %10s\n", "seed", "time (s)", "samples/s", "compute", "copy", "comm",
              "sync");
  const auto first_ok = std::find_if(results.begin(), results.end(), [](const auto& r) { return r.ok; });
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    const auto& r = results[i];
    if (!r.ok) {
      std::printf("%-20llu FAILED: %s\n", static_cast<unsigned long long>(seeds[i]), r.error.c_str());
      continue;
    }
    std::printf("%-20llu", static_cast<unsigned long long>(seeds[i]));
    print_timed_row(r.iteration_time_s, {r.compute_s, r.copy_s, r.communication_s, r.synchronisation_s}, 12,
                    sub_millisecond(first_ok->iteration_time_s),
                    [&] { std::printf(" %14.6g", r.samples_per_iteration / r.iteration_time_s); });
  }
  if (!times.empty())
    std::printf("\nspread over %zu seeds: iteration time min %.6g s, median %.6g s, max %.6g s (max / min %.4f)\n",
                times.size(), times.front(), median(), times.back(), times.back() / times.front());
  return status != 0 ? status : all_ok ? 0 : 1;
}

/// One row of the iterations' table.
void print_row(const std::string& label, const replay::IterationResult& it, const replay::RunResult& r) {
  std::printf("%-11s", label.c_str());
  print_timed_row(it.time_s, it.breakdown, 11, sub_millisecond(r.iterations.front().time_s), [&] {
    std::printf(" %14.6g %14.6g", r.samples_per_iteration / it.time_s, r.flop_per_iteration / it.time_s);
  });
}

/// What the text output says before the first iteration: the run, the machine, the plan, and
/// the head of the iterations' table.
void print_started(const replay::Scenario& s, const replay::RunResult& r) {
  const auto& o = s.options;
  std::cout << s.workload.title << " on " << s.platform.name << ": " << support::counted(s.nodes, "node") << ", "
            << support::counted(r.ranks, "rank") << ", software " << o.software.name << ", " << collective_name(o.software)
            << (o.software.runs_nccl() ? ", NCCL rings " + std::to_string(replay::nccl_rings(s)) : std::string())
            << " (" << replay::to_string(o.fidelity) << "), "
            << replay::to_string(replay::resolved_precision(s))
            // (CPU nodes send from host memory: no staging to speak of)
            << (s.platform.node.is_gpu_node() ? ", staging " + std::string(replay::to_string(replay::resolved_staging(s)))
                                              : std::string())
            << ", overlap " << (o.overlaps_backward() ? "on" : "off") << ", routing "
            << platform::to_string(s.platform.interconnect.routing) << "\n";
  if (const auto& network = o.network; network != platform::NetworkSettings{}) {
    std::cout << "network model: " << network.model;
    if (network.latency_factor)
      std::cout << ", latency factor " << units::number_text(*network.latency_factor);
    if (network.bandwidth_factor)
      std::cout << ", bandwidth factor " << units::number_text(*network.bandwidth_factor);
    std::cout << (network.cross_traffic ? ", cross-traffic" : "")
              << (network.tcp_gamma_bytes > 0 ? ", TCP window " + units::number_text(network.tcp_gamma_bytes) + " B" : "")
              << "\n";
  }
  std::printf("compute: %s\n", r.calibration.c_str());
  if (const double jitter = o.compute_jitter(); jitter > 0)
    std::printf("jitter: each rank computes 1 + |N(0, %s)| times that, drawn per iteration (seed %llu)\n",
                units::number_text(jitter).c_str(), static_cast<unsigned long long>(o.seed));
  if (const double spread = s.platform.node.gpu ? s.platform.node.gpu->device_spread : 0.0; spread > 0) {
    const long long gpus = s.nodes * s.platform.node.gpu->count;
    std::printf("device spread: this model's GPUs differ by %.3g %% in compute time (coefficient of variation); ", 100 * spread);
    if (gpus == 1)
      std::printf("one GPU computes at its calibration\n");
    else
      std::printf("the slowest of these %lld computes %.3g %% above its calibrated time (seed %llu deals the paces)\n", gpus,
                  100 * (replay::slowest_device_factor(gpus, spread) - 1), static_cast<unsigned long long>(o.seed));
  }
  if (const auto memory = replay::device_memory_estimate(s))
    if (const auto capacity = workload::memory_capacity(s.platform.node))
      std::printf("%s: at least %s of %s per %s (%s; a lower bound)\n", capacity->kind.c_str(),
                  units::to_string(memory->total()).c_str(), units::to_string(capacity->bytes).c_str(),
                  capacity->per.c_str(), workload::parts_text(*memory).c_str());
  print_allocation(s, r);
  if (!r.reductions.empty()) {
    std::printf("collectives per iteration:\n");
    print_collectives(r, o.software);
    print_servers(r, o.software);
  } else if (replay::fuses_by_cycle(s) && r.ranks > 1) {
    std::printf("collectives per iteration: formed every %s cycle from the gradients ready on every rank, fused up "
                "to %s (--json: the last iteration's)\n",
                units::to_string(o.software.cycle).c_str(), units::to_string(o.software.fusion_threshold).c_str());
  }
  std::printf("\n");
  std::printf("%-11s %11s %14s %14s %10s %10s %10s %10s\n", "iteration", "time (s)", "samples/s",
              "FLOP/s", "compute", "copy", "comm", "sync");
  std::fflush(stdout);
}

/// The row of the iteration that has just ended, at once (flushed): a run cut short keeps it.
void print_iteration(const replay::RunResult& r) {
  const std::size_t i = r.iterations.size() - 1;
  print_row(i == 0 ? "0 (warm-up)" : std::to_string(i), r.iterations[i], r);
  std::fflush(stdout);
}

/// The run's results once it has ended: the JSON document, or the text's mean row and bytes
/// (its header and iterations' rows were printed as the run went); the exit status.
int print_results(const replay::Scenario& s, const replay::RunResult& r, bool json_output) {
  const auto& o = s.options;
  const auto mean = r.measured_mean();
  if (json_output) {
    io::JsonWriter json(std::cout);
    json.begin_object();
    json.key("platform").value(s.platform.name).key("workload").value(s.workload.name);
    json.key("nodes").value(s.nodes).key("ranks").value(r.ranks);
    json.key("batch_per_rank").value(s.workload.batch_per_worker);
    json.key("calibration").value(r.calibration);
    json.key("software").value(o.software.name);
    json.key("provenance").value(provenance(s, r));
    json.key("routing").value(std::string(platform::to_string(s.platform.interconnect.routing)));
    json.key("allocation").value(std::string(platform::to_string(o.allocation.policy)));
    json.key("seed").value(static_cast<long long>(o.seed));
    json.key("domain").value(std::string(platform::domain_name(s.platform.interconnect.topology)));
    json.key("domains_spanned").value(r.domains_spanned);
    if (const auto memory = replay::device_memory_estimate(s)) {
      json.key("device_memory_estimate_bytes").value(memory->total().bytes());
      json.key("device_memory_bytes").value(workload::memory_capacity(s.platform.node)->bytes.bytes());
    } else { // (CPU nodes: no device memory; the keys stay, for scripts)
      json.key("device_memory_estimate_bytes").null();
      json.key("device_memory_bytes").null();
    }
    json.key("background_load").begin_object();
    json.key("fabric").value(o.background.fabric);
    json.key("global").value(o.background.of(platform::FabricLinkKind::Global));
    json.end_object();
    json.key("node_slots").begin_array();
    for (long long slot : r.slots)
      json.value(slot);
    json.end_array();
    json.key("library").value(o.software.library ? collectives::to_string(*o.software.library) : "none");
    json.key("collective").value(collective_name(o.software));
    json.key("reductions").begin_array();
    for (const auto& k : r.reductions) {
      json.begin_object()
          .key("name").value(k.name)
          .key("bytes").value(k.bytes)
          .key("algorithm").value(k.algorithm)
          .key("rule").value(k.rule)
          .key("protocol");
      if (k.protocol.empty())
        json.null();
      else
        json.value(k.protocol);
      json.end_object();
    }
    json.end_array();
    if (!r.server_bytes.empty()) {
      json.key("placement").value(stack::to_string(o.software.placement));
      json.key("server_bytes").begin_array();
      for (double b : r.server_bytes)
        json.value(b);
      json.end_array().key("server_ranks").begin_array();
      for (std::size_t q = 0; q < r.server_bytes.size(); ++q)
        json.value(static_cast<long long>(q) * r.server_rank_stride);
      json.end_array();
    }
    json.key("dense_tables").begin_array();
    for (const auto& t : r.dense_tables)
      json.begin_object().key("name").value(t.name).key("bytes").value(t.bytes).end_object();
    json.end_array();
    json.key("nccl_rings");
    if (o.software.runs_nccl())
      json.value(replay::nccl_rings(s));
    else
      json.null();
    json.key("precision").value(replay::to_string(replay::resolved_precision(s)));
    json.key("staging"); // null on CPU nodes, which send from host memory (as the header says)
    if (s.platform.node.is_gpu_node())
      json.value(replay::to_string(replay::resolved_staging(s)));
    else
      json.null();
    json.key("overlap").value(o.overlaps_backward()).key("input_overlap").value(o.input_overlap);
    json.key("fidelity").value(replay::to_string(o.fidelity));
    json.key("fusion").value(stack::to_string(o.software.fusion));
    json.key("fusion_threshold_bytes");
    if (o.software.exchange == stack::Exchange::PerVariable) // nothing is fused
      json.null();
    else
      json.value(o.software.fusion_threshold.bytes());
    json.key("jitter").value(o.compute_jitter()); // (the seed is given with the routing, above)
    json.key("device_spread").value(s.platform.node.gpu ? s.platform.node.gpu->device_spread : 0.0);
    json.key("network_model").value(o.network.model);
    if (o.network.latency_factor)
      json.key("latency_factor").value(*o.network.latency_factor);
    if (o.network.bandwidth_factor)
      json.key("bandwidth_factor").value(*o.network.bandwidth_factor);
    json.key("iterations_requested").value(o.iterations);
    json.key("stopped_by_signal").value(r.stopped_by);
    json.key("dropped_iteration").value(r.dropped_iteration);
    json.key("samples_per_iteration").value(r.samples_per_iteration);
    json.key("flop_per_iteration").value(r.flop_per_iteration);
    // A run stopped before its first iteration ended has no warm-up and no mean: null.
    json.key("warmup");
    if (r.iterations.empty())
      json.null();
    else
      write_iteration_json(json, r.iterations.front(), r.samples_per_iteration, r.flop_per_iteration);
    json.key("iterations").begin_array();
    for (const auto& it : r.iterations)
      write_iteration_json(json, it, r.samples_per_iteration, r.flop_per_iteration);
    json.end_array();
    json.key("mean");
    if (r.iterations.empty())
      json.null();
    else
      write_iteration_json(json, mean, r.samples_per_iteration, r.flop_per_iteration);
    json.end_object();
    return exit_status(r);
  }
  // The header and the iterations' rows were printed as the run went (print_started,
  // print_iteration); the mean and the bytes come once it has ended.
  if (r.iterations.empty()) {
    std::printf("(no iteration finished)\n");
    return interrupted(r, o);
  }
  print_row("mean", mean, r);
  std::printf("\nbytes per iteration (mean, summed over the machine's links of each class): PCIe %s, NIC %s, fabric %s, GPU links %s, host memory %s\n",
              units::to_string(units::DataSize::from_bytes(mean.bytes.pcie)).c_str(),
              units::to_string(units::DataSize::from_bytes(mean.bytes.nic)).c_str(),
              units::to_string(units::DataSize::from_bytes(mean.bytes.fabric)).c_str(),
              units::to_string(units::DataSize::from_bytes(mean.bytes.gpu_link)).c_str(),
              units::to_string(units::DataSize::from_bytes(mean.bytes.host_memory)).c_str());
  std::printf("breakdown columns are seconds per iteration, averaged over ranks; they sum to the time\n");
  return interrupted(r, o);
}

} // namespace

int run_command(const std::vector<std::string>& args) {
  auto options = run_options();
  options.add_options()
      ("seeds", po::value<std::string>(),
       "run once per seed, each in a process of its own, and print the spread of the iteration time "
       "(min, median, max): comma-separated seeds (\"1,2,3\"), instead of --seed")
      ("jobs", po::value<int>()->default_value(1), "with --seeds, runs at once");
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
  const std::vector<std::string> overrides = cli->optional<std::vector<std::string>>("set").value_or(std::vector<std::string>{});
  // (not a sweep's point: there a platform entry's stack serves the variants that name none)
  if (cli->has("software") && config::overrides_set(overrides, "platform.software"))
    throw UsageError("--set platform.software: --software sets it for this run, so the override would change nothing: "
                     "give one of them");
  const replay::Scenario s = scenario_from(*cli);
  // An override of a cost the stack does not pay is said once the run is sure to start, not
  // refused: a sweep's platform entry gives its overrides to every variant's points.
  const auto note_unpaid_costs = [&] {
    for (const auto& cost : unpaid_stack_costs(s, overrides))
      std::fprintf(stderr, "ceiling: note: --set %s changes nothing in this run: %s; a stack that pays it would (such as horovod-mpi, or --set software.%s=true)\n",
                   cost.key.c_str(), cost.why.c_str(), cost.flag.c_str());
  };
  if (!cli->vm["jobs"].defaulted() && !cli->has("seeds"))
    throw UsageError("--jobs goes with --seeds (the runs at once), not with a single run");
  if (cli->has("seeds")) {
    if (!cli->vm["seed"].defaulted())
      throw UsageError("--seeds runs each of its seeds: give --seed or --seeds, not both");
    for (const char* alone : {"trace", "timing"})
      if (cli->has(alone))
        throw UsageError(std::string("--") + alone + " goes with a single run, not with --seeds");
    const int jobs = cli->vm["jobs"].as<int>();
    if (jobs < 1)
      throw UsageError("--jobs: must be at least 1, got " + std::to_string(jobs));
    note_unpaid_costs();
    return run_seeds(s, args, seeds_of(cli->vm["seeds"].as<std::string>()), jobs, cli->has("json"));
  }
  if (auto problem = replay::memory_problem(s)) // allowed, or scenario_from would have refused it
    std::fprintf(stderr, "ceiling: warning: %s\n", problem->c_str());
  // A trace's path that cannot be written is refused before the simulation (its temporary file
  // opened and gone at once, so that no signal during the run leaves it behind); the trace is
  // written after the results, and renamed into place only once whole.
  const auto trace_path = cli->optional<std::string>("trace");
  if (trace_path) {
    std::vector<std::pair<std::string, std::string>> inputs{
        {"platform", cli->vm["platform"].as<std::string>()},
        {"workload", cli->vm["workload"].as<std::string>()},
        {"software", cli->optional<std::string>("software").value_or(s.platform.software)}};
    for (const workload::FileRead& f : s.workload.files_read)
      inputs.emplace_back(f.kind, f.path);
    refuse_output_over_inputs("--trace", *trace_path, inputs);
    refuse_over_other_than_own("--trace", *trace_path, io::chrome_trace_start, "a trace");
    io::AtomicOutput{*trace_path};
  }
  note_unpaid_costs();
  // The text output streams: the header once the machine is built, each iteration's row when
  // it ends. JSON is one document, written at the end.
  replay::Progress progress;
  if (!cli->has("json")) {
    progress.started = [&s](const replay::RunResult& started) { print_started(s, started); };
    progress.iteration = print_iteration;
  }
  const replay::RunResult r = [&] {
    try {
      return replay::run(s, progress);
    } catch (const replay::Unrunnable& e) { // located at the platform's key where it holds the cause
      if (e.platform_key.empty())
        throw;
      throw config::platform_key_error(cli->vm["platform"].as<std::string>(), overrides, e.platform_key, e.what());
    }
  }();
  // The pipelined trees' chunk sizes nothing else: its override is said to change nothing where
  // no collective ran one (as a stack cost nobody pays is, note_unpaid_costs).
  const auto pipelined = [](const replay::ReductionSummary& red) {
    return red.algorithm == collectives::to_string(collectives::Algorithm::PipelinedTree) ||
           red.algorithm == collectives::to_string(collectives::Algorithm::PipelinedDoubleTree);
  };
  if (config::overrides_set(overrides, "software.pipeline_chunk") &&
      !r.reductions.empty() && std::none_of(r.reductions.begin(), r.reductions.end(), pipelined))
    std::fprintf(stderr, "ceiling: note: --set software.pipeline_chunk changes nothing in this run: no collective ran a "
                         "pipelined tree (pipelined-tree or pipelined-double-tree), whose chunks it sizes\n");
  if (cli->has("timing")) {
    std::fprintf(stderr, "timing: build %.3f s; iterations", r.build_wall_s);
    for (double w : r.iteration_wall_s)
      std::fprintf(stderr, " %.6f", w);
    std::fprintf(stderr, " s\n");
    std::fprintf(stderr, "build: %.3f s plan and machine, %.3f s routes and flows\n", r.machine_wall_s,
                 r.build_wall_s - r.machine_wall_s);
    std::fprintf(stderr, "work: %lld transfers, %lld flows in closed form, %lld flows shared by the replay, %lld link "
                 "copies, %lld clock advances in %zu iterations; transfer driver %s\n",
                 r.transfers, r.flows_in_closed_form, r.flows_shared, r.link_copies, r.clock_advances,
                 r.iteration_wall_s.size(),
                 r.transfers_by_couriers ? "couriers" : "maestro");
    const replay::SharingWork& w = r.sharing;
    const auto per_solve = [&w](long long n) { return w.solves > 0 ? static_cast<double>(n) / w.solves : 0.0; };
    std::fprintf(stderr, "sharing: %lld events, %lld solves (rounds after one: %lld for overtaken flows, %lld for "
                 "unbound flows, %lld for filled slack links), %.1f flows and %.1f links per solve; %lld flows "
                 "started alone (on links that couple nothing: their caps, no solve); %lld slack links passed "
                 "unread (their flows' values bounded)\n",
                 w.events, w.solves, w.overtaken_rounds, w.unbound_rounds, w.slack_rounds, per_solve(w.flows_solved),
                 per_solve(w.links_solved), w.alone_starts, w.slack_passed);
    std::fprintf(stderr,
                 "fans: %lld events on level clocks, %lld entries, %lld certifications after them, "
                 "%lld links made clocks on them, %lld classes dropped without flows, %lld exits\n",
                 w.fan_events, w.fan_entries, w.fan_certifications, w.fan_clocks_made,
                 w.fan_classes_dropped, w.fan_exits);
  }
  // The results first, whole: a signal while they are printed and flushed waits (the run's own
  // handler is gone, and its default action would lose what stdout still buffers). Then the
  // trace, whose writing may take seconds: a signal then removes its unfinished file and ends
  // the run, the results already out.
  std::optional<support::StopSignalsHeld> held(std::in_place);
  const int status = print_results(s, r, cli->has("json"));
  std::cout.flush();
  std::fflush(stdout);
  if (!trace_path)
    return status; // (a signal that came meanwhile acts now, the results out)
  io::AtomicOutput trace(*trace_path);
  const io::RemovedOnSignal guard(trace);
  held.reset(); // a signal that came meanwhile removes the trace's temporary file now
  io::write_chrome_trace(r.timeline, trace.stream());
  trace.commit();
  return status;
}

} // namespace ceiling::tools
