// `ceiling sweep`, `ceiling experiment show` and `ceiling sweep-point` (one point, in a child).
#include "config/experiment_file.hpp"
#include "config/load_error.hpp"
#include "config/overrides.hpp"
#include "config/table_reader.hpp"
#include "replay/engine.hpp"
#include "replay/iteration_plan.hpp"
#include "support/counted.hpp"
#include "support/utf8.hpp"
#include "sweep/point_codec.hpp"
#include "tools/ceiling/commands.hpp"
#include "tools/ceiling/options.hpp"
#include "tools/ceiling/run_options.hpp"
#include "tools/sweep/headlines.hpp"
#include "tools/sweep/stop_signals.hpp"
#include "tools/sweep/sweep_driver.hpp"
#include "workload/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <filesystem>
#include <cstdio>
#include <iostream>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <variant>

namespace po = boost::program_options;

namespace ceiling::tools {
namespace {

/// `ceiling run` options a variant may not set: the experiment sets them per point (the seeds
/// of `run --seeds`, with its --jobs, are the experiment's `seeds`; its points run side by side
/// by `sweep -j`), or they print what a sweep does not read.
const std::set<std::string, std::less<>> per_point_options{
    "platform", "workload", "nodes", "seed", "iterations", "batch", "global-batch"};
/// `ceiling run` options a point never takes: what prints what a sweep does not read, or runs
/// several runs.
const std::set<std::string, std::less<>> unswept_options{"seeds", "jobs", "json", "trace", "timing", "help"};

const char* const sweep_point_usage =
    "usage: ceiling sweep-point [--sweep-version=VERSION] RUN-OPTIONS...\n\n"
    "Runs one point of a sweep (`ceiling sweep` starts it, or CEILING_POINT_PROGRAM's wrapper) with\n"
    "`ceiling run`'s options and prints its result in the sweep's encoding on standard output; a\n"
    "point that cannot run prints a failed result with its error, and exits 0 all the same.\n"
    "--sweep-version=VERSION: the sweep's build (as `ceiling --version` prints it); a program of\n"
    "another build prints a failed result saying so rather than run the point. Of the options\n"
    "below, --trace and --timing are `ceiling run`'s alone (refused here), and --json changes\n"
    "nothing: a point prints its result in the sweep's encoding.\n";

/// The command line a store records (`command`, then `args`), without -j / --jobs: how many
/// points ran at once changes nothing in the results, so that it changes nothing in the store.
std::string recorded_command_line(const std::string& command, const std::vector<std::string>& args) {
  std::string line = command;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-j" || a == "--jobs") {
      ++i; // (its value)
      continue;
    }
    if ((a.starts_with("-j") && !a.starts_with("--")) || a.starts_with("--jobs="))
      continue;
    line += " " + a;
  }
  return line;
}

/// Parses a point's `run` arguments into a scenario; with `refuse_oversubscribed_memory`, a batch
/// that does not fit its GPU is refused, as `ceiling run` refuses it. None where they ask for
/// help, which is printed.
std::optional<replay::Scenario> scenario_of(const std::vector<std::string>& run_args,
                                            bool refuse_oversubscribed_memory) {
  const auto cli = parse_command_line(run_args, "", sweep_point_usage, run_options(), false);
  if (!cli)
    return std::nullopt;
  // (a variant's are refused at it, check_points; --json, which `run --seeds` passes on, changes
  // nothing: a point always prints its encoding)
  for (const char* name : {"trace", "timing"})
    if (cli->has(name))
      throw UsageError(std::string("--") + name + ": a sweep's point does not take it (it prints what a sweep does not read)");
  return scenario_from(*cli, refuse_oversubscribed_memory);
}

/// A point's cost in wall time, roughly (tools::PointCost), for the ETA: its flows per iteration
/// (replay::estimated_flows), those that share links weighing more on an adaptive dragonfly.
double estimated_seconds(const replay::Scenario& s) {
  const auto flows = replay::estimated_flows(s);
  const bool adaptive_dragonfly = std::holds_alternative<platform::Dragonfly>(s.platform.interconnect.topology) &&
                                  s.platform.interconnect.routing == platform::Routing::Adaptive;
  const double shared_weight = adaptive_dragonfly ? tools::PointCost::dragonfly_sharing : 1.0;
  return tools::PointCost::seconds(static_cast<double>(s.nodes), s.options.iterations,
                                   flows.alone + flows.shared * shared_weight);
}

config::SourceLocation at(const sweep::EntryLocation& w) { return {w.path, w.line, w.column}; }

/// The index of the entry named `name` among `entries` (a curve's names are always there).
template <class Entries> std::size_t index_named(const Entries& entries, const std::string& name) {
  return static_cast<std::size_t>(
      std::find_if(entries.begin(), entries.end(), [&](const auto& x) { return x.name == name; }) - entries.begin());
}

/// Where the experiment makes `point` of `curve` fail with `message`, and the key there: at the
/// global batch that `--global-batch` comes from; at the element of the variant's, the workload's
/// or the platform's `set` (in that order; in one, the last, which wins) that sets the key an
/// override's own error names ("--set:1:N: error: KEY: ...") or that an option makes useless
/// ("--set KEY: ..."); at the option the message names ("--NAME: ...", or --software for a key
/// of the software file, "FILE:L:C: error: software.KEY: ...") where the curve's variant writes
/// it, at the variant's `set` for a platform key its
/// overridden stack makes wrong; at the variant's option without which the point runs (a
/// platform's key that only that option makes wrong: its adaptive routing under `copies =
/// "simgrid"`); at the curve's platform for a key of its file, or of the stack it names where the
/// variant names none; else at the variant when it sets options (they may be the cause), else at
/// [experiment].
std::pair<sweep::EntryLocation, std::string> failure_where(const sweep::ExperimentSpec& e,
                                                           const sweep::CurveSpec& curve,
                                                           const sweep::PointSpec& point,
                                                           std::string_view message) {
  const std::size_t v = index_named(e.variants, curve.variant), w = index_named(e.workloads, curve.workload),
                    p = index_named(e.platforms, curve.platform);
  const auto& variant = e.variants[v];
  const auto& workload = e.workloads[w];
  const std::string_view option = message.starts_with("--")                             ? message.substr(0, message.find(':'))
                                  : message.find(": error: software.") != std::string::npos ? "--software"
                                                                                            : std::string_view{};
  if (option == "--global-batch")
    return workload.global_batch ? std::pair{workload.global_batch_where, "workloads[" + std::to_string(w) + "].global_batch"}
                                 : std::pair{e.global_batch_where, std::string("experiment.global_batch")};
  const std::vector<std::string> variant_set = variant.overrides();
  // The element of a `set` (the variant's, the workload's, the platform's, in that order; in one,
  // the last, which wins) that sets `key`.
  const auto holding = [&](const std::string& key) -> std::optional<std::pair<sweep::EntryLocation, std::string>> {
    for (const auto& [set, wheres, name] :
         {std::tuple{&variant_set, &variant.set_element_where, "variants[" + std::to_string(v) + "]"},
          std::tuple{&workload.set, &workload.set_element_where, "workloads[" + std::to_string(w) + "]"},
          std::tuple{&e.platforms[p].set, &e.platforms[p].set_element_where, "platforms[" + std::to_string(p) + "]"}})
      if (const auto j = config::last_reaching(*set, key); j && *j < wheres->size())
        return std::pair{(*wheres)[*j], name + ".set[" + std::to_string(*j) + "]"};
    return std::nullopt;
  };
  if (message.starts_with("--set:")) { // an override's own error, "--set:1:N: error: KEY: ..."
    const auto key_at = message.find(": error: ");
    if (key_at != std::string_view::npos)
      if (auto found = holding(std::string(message.substr(key_at + 9, message.find(':', key_at + 9) - key_at - 9))))
        return *found;
  }
  if (message.starts_with("--set ")) // "--set KEY: ...": the override beside an option that sets KEY
    if (auto found = holding(std::string(message.substr(6, message.find(':') - 6))))
      return *found;
  // A platform's key that the stack makes wrong, the stack as the variant's overrides leave it
  // (replay::ScenarioProblem::made_by_stack: "... (the stack as --set software.KEY=... leaves it)").
  if (message.find("(the stack as --set ") != std::string_view::npos && !variant_set.empty())
    return {variant.set_where, "variants[" + std::to_string(v) + "].set"};
  for (std::size_t i = 0; !option.empty() && i < variant.run_args.size(); i += 2)
    if (variant.run_args[i] == option && i / 2 < variant.option_where.size())
      return {variant.option_where[i / 2], "variants[" + std::to_string(v) + "].options." + std::string(option.substr(2))};
  // (the variant's options come last in a point's arguments, as NAME VALUE pairs)
  const auto first_option = point.run_args.size() - variant.run_args.size();
  for (std::size_t i = 0; i < variant.run_args.size() && i / 2 < variant.option_where.size();
       i += 2) {
    std::vector<std::string> without(point.run_args.begin(), point.run_args.end());
    without.erase(without.begin() + static_cast<std::ptrdiff_t>(first_option + i),
                  without.begin() + static_cast<std::ptrdiff_t>(first_option + i + 2));
    try {
      if (scenario_of(without, false))
        return {variant.option_where[i / 2],
                "variants[" + std::to_string(v) + "].options." + variant.run_args[i].substr(2)};
    } catch (const std::exception&) { // (it fails without it too: not the cause alone)
    }
  }
  const auto& platform = e.platforms[p];
  if (option == "--software" || message.starts_with(platform.file + ":"))
    return {platform.where, "platforms[" + std::to_string(p) + "]"};
  return variant.run_args.empty() ? std::pair{e.where, std::string("experiment")}
                                  : std::pair{variant.where, "variants[" + std::to_string(v) + "]"};
}

/// Each point's estimated cost in seconds (estimated_seconds), and why it does not fit its GPU's
/// memory where it does not (it then costs nothing: it is never run).
struct PointCosts {
  std::vector<double> seconds;
  std::vector<std::optional<std::string>> too_big;
};

/// Every variant names `run` options that exist and that a variant may set, and every point
/// makes a scenario that can run; else a LoadError at the variant that makes it fail. A point
/// whose batch does not fit its GPU's memory is not an error of the experiment (a
/// strong-scaling curve starts where its global batch fits): it is said once, and the point is
/// recorded as not fitting (status does-not-fit) with the reason, never run.
PointCosts check_points(const sweep::ExperimentSpec& e, const sweep::Expansion& x) {
  const auto run_option_set = run_options();
  for (std::size_t v = 0; v < e.variants.size(); ++v) {
    const auto& args = e.variants[v].run_args;
    for (std::size_t i = 0; i < args.size(); i += 2) {
      const std::string name = args[i].substr(2);
      const std::string key = "variants[" + std::to_string(v) + "].options." + name;
      if (name == "set")
        continue;
      // (an option is where it is written; the variant's header where it has no place of its own)
      const auto& options = e.variants[v].option_where;
      const auto where = i / 2 < options.size() ? options[i / 2] : e.variants[v].where;
      if (per_point_options.contains(name))
        throw config::LoadError(at(where), key, "set by the experiment for each point, not by a variant");
      if (unswept_options.contains(name))
        throw config::LoadError(at(where), key,
                                name == "seeds" || name == "jobs"
                                    ? "runs several runs in one; an experiment's `seeds` gives a point per seed"
                                    : "prints what a sweep does not read; a point's `command` in the store reruns it by hand");
      // (an empty name matches every option, which boost reports as ambiguous: none is meant)
      const auto* option = name.empty() ? nullptr : run_option_set.find_nothrow(name, false);
      if (!option) {
        std::vector<std::string> names;
        for (const auto& o : run_option_set.options())
          names.push_back(o->long_name());
        throw config::LoadError(at(where), key,
                                "not an option of `ceiling run`" + config::did_you_mean(name, names) +
                                    " (see ceiling run --help)");
      }
      // (a sweep records a batch that does not fit as such, status does-not-fit, never run)
      if (option->semantic()->max_tokens() == 0)
        throw config::LoadError(at(where), key, "a switch of `ceiling run`, which a variant cannot set");
    }
  }
  PointCosts costs;
  std::vector<std::string> too_big;
  // A curve's points at one N differ only in their seed, which changes neither the memory nor the
  // cost: each is found once (the input files read again per point made 1,000 seeds take minutes).
  std::map<std::pair<int, long long>, std::pair<std::optional<std::string>, double>> by_nodes;
  // An override of a cost that the stacks pay at none of the points it reaches (unpaid_stack_costs)
  // changes nothing: refused at its `set`, a variant's or a platform entry's. Per entry and key:
  // whether a point pays it, and the first that does not and why. (A platform entry's, which
  // describes the machine, is taken where one variant's stack pays it.)
  struct Payment {
    sweep::EntryLocation set_where;
    bool paid = false;
    std::string unpaid_at;
  };
  std::map<std::pair<std::string, std::string>, Payment> payments; // by entry ("variants[0].set") and key
  for (const sweep::PointSpec& p : x.points) {
    const auto& curve = x.curves[static_cast<std::size_t>(p.curve)];
    try {
      auto known = by_nodes.find({p.curve, p.nodes});
      if (known == by_nodes.end()) {
        const auto scenario = scenario_of(p.run_args, false).value(); // (a variant never sets help)
        const std::size_t v = index_named(e.variants, curve.variant), pl = index_named(e.platforms, curve.platform);
        for (const auto& [entry, where, overrides] :
             {std::tuple{"variants[" + std::to_string(v) + "].set", e.variants[v].set_where, e.variants[v].overrides()},
              std::tuple{"platforms[" + std::to_string(pl) + "].set", e.platforms[pl].set_where, e.platforms[pl].set}}) {
          const auto unpaid = unpaid_stack_costs(scenario, overrides);
          for (const char* key : stack_cost_keys) {
            if (!config::overrides_set(overrides, key))
              continue;
            Payment& payment = payments.try_emplace({entry, key}, Payment{.set_where = where}).first->second;
            const auto cost = std::find_if(unpaid.begin(), unpaid.end(), [&](const UnpaidCost& c) { return c.key == key; });
            if (cost == unpaid.end())
              payment.paid = true;
            else if (payment.unpaid_at.empty())
              payment.unpaid_at = "point " + std::to_string(p.index) + " (" + curve.id + ", " +
                                  support::counted(p.nodes, "node") + "): " + cost->why;
          }
        }
        auto problem = replay::memory_problem(scenario);
        if (scenario.options.allow_oversubscribed_memory)
          problem.reset();
        const double seconds = problem ? tools::PointCost::refused_s : estimated_seconds(scenario);
        known = by_nodes.try_emplace({p.curve, p.nodes}, std::move(problem), seconds).first;
      }
      auto problem = known->second.first;
      costs.seconds.push_back(known->second.second);
      if (problem)
        too_big.push_back("point " + std::to_string(p.index) + " (" + curve.id + ", " +
                          support::counted(p.nodes, "node") + "): " + *problem);
      costs.too_big.push_back(std::move(problem));
    } catch (const std::exception& error) {
      const std::string why = error_text(error);
      const auto [where, key] = failure_where(e, curve, p, why);
      throw config::LoadError(at(where), key,
                              "point " + std::to_string(p.index) + " (" + curve.id + ", " +
                                  support::counted(p.nodes, "node") + ") cannot run: " + why);
    }
  }
  for (const auto& [entry_key, payment] : payments)
    if (!payment.paid)
      throw config::LoadError(at(payment.set_where), entry_key.first,
                              entry_key.second + " changes nothing: the stacks pay it at none of the points it reaches, " +
                                  "e.g. " + payment.unpaid_at + "; give it to the variants whose stacks pay it, or in " +
                                  "a platform entry's set, which every variant's points take");
  if (!too_big.empty())
    std::printf("note: %zu points do not fit in device memory; they are recorded as such (status does-not-fit), "
                "not run, e.g. %s\n\n",
                too_big.size(), too_big.front().c_str());
  return costs;
}

int sweep_main(const std::vector<std::string>& args) {
  po::options_description options("options");
  options.add_options()
      ("jobs,j", po::value<int>(), "points simulated at once, each in its own process; default: the number of cores")
      ("output,o", po::value<std::string>(), "the result file (HDF5); default: the experiment's output")
      ("resume", "continue the result file: run the points it lacks and those that failed (it must come from the same experiment text)")
      ("overwrite", "start again even if the result file exists");
  const auto cli = parse_command_line(
      args, "EXPERIMENT",
      "usage: ceiling sweep EXPERIMENT.toml [-j JOBS] [--resume | --overwrite] [-o OUT.h5]\n\n"
      "Runs every point of the experiment (each a `ceiling run` in its own process) and stores\n"
      "each the moment it finishes, with the analysis of every curve, in an HDF5 file.\n"
      "Exit status: 0 every point ran, 3 some point failed (recorded with its error),\n"
      "2 bad input, 130/143 interrupted (the finished points are kept; --resume continues).\n",
      options);
  if (!cli)
    return 0;
  if (cli->has("resume") && cli->has("overwrite"))
    throw UsageError("--resume and --overwrite exclude each other");
  int jobs = cli->optional<int>("jobs").value_or(
      std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
  if (jobs < 1)
    throw UsageError("--jobs: must be at least 1, got " + std::to_string(jobs));
  // Caught from here on, so that a stop while the inputs load and the store is set up still
  // releases the store's lock and says so.
  const int wake_fd = catch_stop_signals();
  SweepSetup setup = prepare_sweep(
      cli->file, cli->optional<std::string>("output").value_or(""),
      cli->has("resume") ? ExistingOutput::Resume
                         : (cli->has("overwrite") ? ExistingOutput::Overwrite : ExistingOutput::Refuse),
      recorded_command_line("ceiling sweep", args));
  // The ETA weighs the points by their estimated cost: a 4,096-node point costs far more.
  const std::vector<double> cost = check_points(setup.experiment, setup.expansion).seconds;
  if (stop_signal != 0) {
    std::fprintf(stderr, "ceiling sweep: interrupted by signal %d before any point ran; %s is as it was\n",
                 static_cast<int>(stop_signal), setup.output.c_str());
    return 128 + stop_signal;
  }
  const auto& points = setup.expansion.points;
  std::printf("%s\n%s (%s); %zu to run, %zu already in %s; %d at once\n", setup.experiment.title.c_str(),
              support::counted(static_cast<long long>(points.size()), "point").c_str(),
              support::counted(static_cast<long long>(setup.expansion.curves.size()), "curve").c_str(),
              setup.to_run.size(), setup.already_done(), setup.output.c_str(), jobs);
  std::fflush(stdout);
  if (setup.to_run.empty() && cli->has("resume") && std::filesystem::exists(setup.output)) {
    // Every point is stored already: the file stays as it is.
    std::printf("nothing to run: %s holds every point, %s\n", setup.output.c_str(), failures(setup.results).c_str());
    std::fputs(headlines(setup.results).c_str(), stdout);
    return 0;
  }
  // The store exists from the start (inputs, curves, no points), so it is never absent; one that
  // --overwrite replaces or --resume continues is kept as it is until the first point is stored.
  begin_store(setup);

  double weight_left = 0;
  for (int i : setup.to_run)
    weight_left += cost[static_cast<std::size_t>(i)];
  Progress progress(static_cast<int>(points.size()), static_cast<int>(setup.already_done()),
                    stderr);
  const std::string program = point_program_path();
  sweep::WorkerPool pool;
  pool.set_wake_fd(wake_fd);
  const auto store_finished = [&](const sweep::WorkerPool::Finished& finished) {
    record_finished(setup, finished, cost[static_cast<std::size_t>(points[static_cast<std::size_t>(finished.tag)].index)],
                    weight_left, progress);
  };
  std::size_t next = 0;
  while (stop_signal == 0 && (next < setup.to_run.size() || pool.running() > 0)) {
    while (stop_signal == 0 && pool.running() < jobs && next < setup.to_run.size()) {
      const int i = setup.to_run[next];
      try {
        pool.start(i, point_command(program, points[static_cast<std::size_t>(i)]));
      } catch (const std::runtime_error& e) {
        // Out of processes or file descriptors: go on with the points already running.
        if (pool.running() == 0)
          throw;
        jobs = pool.running();
        std::fprintf(stderr, "\nceiling: warning: %s; going on with %d points at once\n", e.what(),
                     jobs);
        break;
      }
      ++next;
    }
    if (const auto finished = pool.wait_one())
      store_finished(*finished);
  }
  if (stop_signal != 0) {
    // What ended before the stop is kept (its result may still sit in its pipe); the rest stops.
    for (const auto& finished : pool.take_finished())
      store_finished(finished);
    progress.finish();
    pool.terminate_all();
    // (the same on standard error with the signal: "interrupted by signal 2: 3 of 64 points ...")
    const std::string message = interrupted_message(setup);
    std::printf("%s\n", message.c_str());
    const std::size_t word = std::string_view("interrupted").size();
    std::fprintf(stderr, "ceiling sweep: interrupted by signal %d%s\n", static_cast<int>(stop_signal),
                 message.substr(std::min(word, message.size())).c_str());
    return 128 + stop_signal;
  }
  progress.finish();
  print_sweep_end(setup);
  return progress.failed() > 0 ? 3 : 0;
}

/// Runs one point and prints its encoded result; a point that cannot run prints a failed
/// result (exit 0): the sweep records it with its error.
int sweep_point_main(const std::vector<std::string>& args) {
  sweep::PointResult out;
  try {
    // The sweep's build, which must be this one (point_command).
    std::vector<std::string> run_args = args;
    if (!run_args.empty() && run_args.front().starts_with(sweep_version_option)) {
      const std::string sweep_version = run_args.front().substr(sweep_version_option.size());
      if (sweep_version != tool_version())
        throw UsageError("this point's program is another build than the sweep's (ceiling " + tool_version() +
                         ", the sweep's " + sweep_version + "; rebuilt while the sweep ran?): not run; --overwrite "
                         "starts again with one build");
      run_args.erase(run_args.begin());
    }
    auto scenario = scenario_of(run_args, false);
    if (!scenario)
      return 0; // --help
    replay::Scenario& s = *scenario;
    if (auto problem = replay::memory_problem(s); problem && !s.options.allow_oversubscribed_memory) {
      out.does_not_fit = true;
      out.error = *problem;
      out.ranks = replay::rank_count(s); // (what would have run)
      out.batch_per_rank = s.workload.batch_per_worker;
      std::cout << sweep::encode(out);
      return 0;
    }
    s.options.stop_at_interrupt = false; // a point that is stopped is dropped, not cut short
    const replay::RunResult r = replay::run(s);
    const auto mean = r.measured_mean();
    out.ok = true;
    out.provenance = provenance(s, r);
    out.ranks = r.ranks;
    out.batch_per_rank = s.workload.batch_per_worker;
    out.iteration_time_s = mean.time_s;
    out.warmup_time_s = r.iterations.front().time_s;
    const auto measured = r.iterations.size() > 1
                              ? std::span(r.iterations).subspan(1)
                              : std::span(r.iterations);
    out.iteration_time_min_s = out.iteration_time_max_s = measured.front().time_s;
    for (const auto& it : measured) {
      out.iteration_time_min_s = std::min(out.iteration_time_min_s, it.time_s);
      out.iteration_time_max_s = std::max(out.iteration_time_max_s, it.time_s);
    }
    out.samples_per_iteration = r.samples_per_iteration;
    out.flop_per_iteration = r.flop_per_iteration;
    const auto precision = replay::compute_precision(replay::resolved_precision(s));
    out.peak_flop_per_s =
        workload::compute_device(s.platform.node).peak.at(precision)->flop_per_second() * r.ranks;
    out.compute_s = mean.breakdown.compute_s;
    out.copy_s = mean.breakdown.copy_s;
    out.communication_s = mean.breakdown.communication_s;
    out.synchronisation_s = mean.breakdown.synchronisation_s;
    out.bytes_pcie = mean.bytes.pcie;
    out.bytes_nic = mean.bytes.nic;
    out.bytes_fabric = mean.bytes.fabric;
    out.bytes_gpu_link = mean.bytes.gpu_link;
    out.bytes_host_memory = mean.bytes.host_memory;
  } catch (const std::exception& e) {
    out = {};
    out.error = e.what();
  }
  std::cout << sweep::encode(out);
  return 0;
}

int experiment_show(const std::vector<std::string>& args) {
  const auto cli = parse_command_line(
      args, "EXPERIMENT",
      "usage: ceiling experiment show EXPERIMENT.toml\n\n"
      "Checks the experiment and prints the curves and points it expands to (each with the\n"
      "`ceiling run` command that reproduces it) and a rough estimate of the sweep's cost.\n",
      po::options_description("options"));
  if (!cli)
    return 0;
  const auto e = config::load_experiment(cli->file);
  const auto x = sweep::expand(e);
  const PointCosts costs = check_points(e, x);
  std::printf("%s\nquestion: %s\noutput: %s\n%s, %s (%s x %s per curve), %s each\n\n",
              e.title.c_str(), e.question.c_str(), e.output.c_str(),
              support::counted(static_cast<long long>(x.curves.size()), "curve").c_str(),
              support::counted(static_cast<long long>(x.points.size()), "point").c_str(),
              support::counted(static_cast<long long>(e.nodes.size()), "node count").c_str(),
              support::counted(static_cast<long long>(e.seeds.size()), "seed").c_str(),
              support::counted(e.iterations, "iteration").c_str());
  double total = 0, largest = 0;
  for (const auto& p : x.points) {
    const auto i = static_cast<std::size_t>(p.index);
    const double t = costs.seconds[i];
    total += t;
    largest = std::max(largest, t);
    char cost[32];
    std::snprintf(cost, sizeof cost, "~%.2g s", t);
    const auto& too_big = costs.too_big[i];
    std::printf("%4d  %s %7lld %-5s  seed %llu  %s\n      %s\n", p.index,
                support::padded(x.curves[static_cast<std::size_t>(p.curve)].id, 58).c_str(), p.nodes,
                p.nodes == 1 ? "node" : "nodes", static_cast<unsigned long long>(p.seed),
                too_big ? "does not fit: not run" : cost,
                too_big ? too_big->c_str() : sweep::command_of(p).c_str());
  }
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::printf("\nestimated cost: %.3g s of simulation in all, about %.3g s on %u cores (the "
              "largest point alone: %.3g s); a rough figure from the replay benchmark's costs\n",
              total, std::max(total / cores, largest), cores, largest);
  return 0;
}

} // namespace

int sweep_command(const std::vector<std::string>& args) { return sweep_main(args); }
int sweep_point_command(const std::vector<std::string>& args) { return sweep_point_main(args); }
int experiment_command(const std::vector<std::string>& args) {
  return dispatch("experiment", args, {{"show", experiment_show}});
}

} // namespace ceiling::tools
