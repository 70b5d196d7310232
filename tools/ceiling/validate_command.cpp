// `ceiling validate`: each validation case's real series predicted, efficiency against efficiency.
#include "analysis/validation.hpp"
#include "config/load_error.hpp"
#include "config/overrides.hpp"
#include "config/table_reader.hpp"
#include "config/validation_file.hpp"
#include "io/json_writer.hpp"
#include "support/counted.hpp"
#include "sweep/worker_pool.hpp"
#include "tools/ceiling/commands.hpp"
#include "tools/ceiling/options.hpp"
#include "tools/ceiling/run_options.hpp"
#include "tools/sweep/stop_signals.hpp"
#include "tools/sweep/sweep_driver.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <regex>
#include <stdexcept>
#include <thread>

namespace po = boost::program_options;

namespace ceiling::tools {
namespace {

/// The `ceiling run` arguments of one measured point: whole nodes of gpus_per_node, or one
/// node with as many GPUs as workers.
std::vector<std::string> run_arguments(const std::string& program, const analysis::ValidationCase& c,
                                       const analysis::MeasuredPoint& m) {
  const bool one_node = m.workers < c.gpus_per_node;
  // The point's own stack and batch, if any.
  const std::string& software = m.software.empty() ? c.software : m.software;
  const long long batch = m.batch_per_worker.value_or(c.batch_per_worker);
  std::vector<std::string> argv{program, "run", "-p", c.platform, "-w", c.workload, "-n",
                                std::to_string(one_node ? 1 : m.workers / c.gpus_per_node),
                                "--software", software, "--batch", std::to_string(batch),
                                "--iterations", "3", "--json"};
  if (one_node)
    argv.insert(argv.end(), {"--set", "node.gpu.count=" + std::to_string(m.workers)});
  if (c.servers_per_node > 0) {
    const long long nodes = one_node ? 1 : m.workers / c.gpus_per_node;
    argv.insert(argv.end(), {"--servers", std::to_string(nodes * c.servers_per_node)});
  }
  argv.insert(argv.end(), c.options.begin(), c.options.end());
  argv.insert(argv.end(), m.options.begin(), m.options.end());
  return argv;
}

/// Refuses a case whose options name, with a value attached ("-n2", "--iterations=9"), an option
/// that `ceiling validate` sets itself (analysis::validate_sets_option; the case file's
/// reader refuses the names written in full, at their place in the file).
/// What is wrong with a case's list of `ceiling run` options (config::RunOptionsCheck): options
/// `ceiling run` does not take, parsed and stored as it parses them (values converted, a repeated
/// option, a stray word), or one that `ceiling validate` sets itself or that would change what the
/// run prints, as it parses them (an option's short or written-out form alike).
std::optional<std::string> run_options_problem(const po::options_description& run, const std::vector<std::string>& options,
                                               bool servers_given) {
  po::parsed_options parsed(&run);
  const po::positional_options_description none; // (a word that is no option's value is an error)
  try {
    parsed = po::command_line_parser(options).options(run).positional(none).style(command_line_style).run();
    po::variables_map stored;
    po::store(parsed, stored);
  } catch (const po::unknown_option& e) {
    // (`ceiling run`'s own --seeds and --jobs, beside the options a case may give: run_command.cpp)
    const std::string name = e.get_option_name();
    if (name == "--seeds" || name == "--jobs")
      return "\"" + name + "\" is an option of `ceiling run` with --seeds, which a case may not give: `ceiling "
             "validate` runs each point once (its -j runs points at once)";
    return "not options `ceiling run` takes: " + error_text(e, &run);
  } catch (const po::error& e) {
    return "not options `ceiling run` takes: " + error_text(e, &run);
  }
  for (const auto& o : parsed.options)
    if (analysis::validate_sets_option(o.string_key, servers_given))
      return "\"" + (o.original_tokens.empty() ? o.string_key : o.original_tokens.front()) + "\" is --" + o.string_key +
             ", which `ceiling validate` sets itself or which would change what the run prints";
  return std::nullopt;
}

/// What `ceiling run --json` printed of one point: the mean throughput, and where the mean
/// iteration's time went (its breakdown, averaged over ranks).
struct Prediction {
  double samples_per_s = 0;
  replay::Breakdown breakdown_s;
};

/// The point's prediction from the run's JSON, once its ranks are checked against the point's
/// workers (a platform whose nodes have another number of GPUs than gpus_per_node, or an option
/// that changes it, would simulate another number of GPUs).
Prediction prediction_of(const std::string& json, const analysis::ValidationCase& c, std::size_t point,
                         const std::string& where) {
  const analysis::MeasuredPoint& m = c.measured[point];
  static const std::regex mean(R"("mean":\s*\{\s*"iteration_time_s":\s*[^,]*,\s*"samples_per_s":\s*([-+0-9.eE]+))");
  static const std::regex breakdown(R"re("delivered_flop_per_s":\s*[^,]*,\s*"breakdown_s":\s*\{\s*"compute":\s*([-+0-9.eE]+),\s*"copy":\s*([-+0-9.eE]+),\s*"communication":\s*([-+0-9.eE]+),\s*"synchronisation":\s*([-+0-9.eE]+))re");
  static const std::regex ranks(R"("ranks":\s*([0-9]+))");
  std::smatch match;
  if (!std::regex_search(json, match, ranks) || std::stoll(match[1].str()) != m.workers)
    throw config::LoadError({c.path, c.gpus_per_node_line, c.gpus_per_node_column}, "case.gpus_per_node",
                            "the run of measured[" + std::to_string(point) + "] simulated " +
                                (match.empty() ? std::string("an unknown number of") : match[1].str()) + " ranks for " +
                                std::to_string(m.workers) + " workers: gpus_per_node = " + std::to_string(c.gpus_per_node) +
                                " must be the GPUs of a node of " + c.platform +
                                " (1 for CPU nodes), and no option may change it");
  if (!std::regex_search(json, match, mean))
    throw std::runtime_error(where + ": no mean throughput in the run's output");
  Prediction p{.samples_per_s = std::stod(match[1].str())};
  const auto rest = json.cbegin() + match.position(0) + match.length(0); // the mean's own breakdown follows
  if (!std::regex_search(rest, json.cend(), match, breakdown))
    throw std::runtime_error(where + ": no mean breakdown in the run's output");
  p.breakdown_s = {.compute_s = std::stod(match[1].str()),
                   .copy_s = std::stod(match[2].str()),
                   .communication_s = std::stod(match[3].str()),
                   .synchronisation_s = std::stod(match[4].str())};
  return p;
}

/// The throughputs of `predictions`, in order (analysis::compare's input).
std::vector<double> throughputs(const std::vector<Prediction>& predictions) {
  std::vector<double> samples_per_s;
  for (const auto& p : predictions)
    samples_per_s.push_back(p.samples_per_s);
  return samples_per_s;
}

std::vector<std::string> default_cases() {
  const std::filesystem::path folder = "validation";
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec))
    throw UsageError("validate: no case given and no validation/ folder here: give case files, or run "
                     "from the project's folder");
  std::vector<std::string> cases;
  for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".toml")
      cases.push_back(it->path().string());
  if (ec)
    throw UsageError("validate: cannot list validation/: " + ec.message());
  if (cases.empty())
    throw UsageError("validate: validation/ holds no case file (*.toml): give case files, or run from the "
                     "project's folder");
  std::sort(cases.begin(), cases.end());
  return cases;
}

/// A case given by its id alone (no folder, no .toml), as the table names it, is the file of that
/// name in validation/ where there is one; anything else is a path.
std::string case_path(const std::string& given) {
  const bool id = given.find('/') == std::string::npos && !given.ends_with(".toml");
  const std::filesystem::path as_id = std::filesystem::path("validation") / (given + ".toml");
  std::error_code ec; // (a loop of links, a name too long: not a case file here; a path given is read, which says why)
  if (id && std::filesystem::exists(as_id, ec))
    return as_id.string(); // (something other than a file there is refused by its reader, which says what)
  if (id && !std::filesystem::exists(given, ec))
    throw UsageError(given + ": no such case: neither a file nor " + as_id.string() + " (run from the project's folder, or give the case file)");
  return given;
}

/// `whole_points`: each case's points in its file, where an interrupted run prints some of them
/// (empty: every case whole).
void print_table(const std::vector<analysis::ValidationCase>& cases,
                 const std::vector<analysis::CaseComparison>& results, const analysis::Summary& all,
                 const std::vector<std::size_t>& whole_points) {
  int width = 4; // the widest case id, for the first column
  for (const auto& c : cases)
    width = std::max(width, static_cast<int>(c.id.size()));
  std::printf("%-*s %7s %12s %12s %7s %7s %7s %8s\n", width, "case", "workers", "measured/s", "predicted/s", "ratio",
              "E meas", "E pred", "error");
  for (std::size_t c = 0; c < results.size(); ++c) {
    for (const auto& p : results[c].points) {
      char measured[32] = "-";
      char ratio[32] = "-";
      if (p.measured_throughput) {
        std::snprintf(measured, sizeof measured, "%.6g", *p.measured_throughput);
        std::snprintf(ratio, sizeof ratio, "%.3f", p.predicted_throughput / *p.measured_throughput);
      }
      std::printf("%-*s %7lld %12s %12.6g %7s %7.3f %7.3f %+8.1f\n", width, results[c].id.c_str(), p.workers, measured,
                  p.predicted_throughput, ratio, p.measured_efficiency, p.predicted_efficiency, p.error_points);
    }
    if (c < whole_points.size() && whole_points[c] > results[c].points.size())
      std::printf("%-*s interrupted: %zu of its %zu points\n", width, results[c].id.c_str(), results[c].points.size(),
                  whole_points[c]);
    if (results[c].points.size() < 2) // its reference alone: nothing to compare an efficiency with
      std::printf("%-*s no point after the reference: its throughput alone  (%s)\n\n", width, results[c].id.c_str(),
                  cases[c].source.c_str());
    else
      std::printf("%-*s median |error| %.1f points, worst %+.1f  (%s)\n\n", width, results[c].id.c_str(),
                  results[c].median_abs_error_points, results[c].worst_error_points, cases[c].source.c_str());
  }
  if (all.points == 0)
    std::printf("%s, no point after the references: no efficiency to compare\n",
                support::counted(static_cast<long long>(results.size()), "case").c_str());
  else
    std::printf("%s, %s after the references: median |error| %.1f points, worst %+.1f\n",
                support::counted(static_cast<long long>(results.size()), "case").c_str(),
                support::counted(all.points, "point").c_str(), all.median_abs_error_points,
                all.worst_error_points);
  std::printf("error = 100 x (predicted - measured efficiency), E(N) = (X(N)/N) / (X(N0)/N0), N0 the series' smallest N "
              "(the measured E as the source reports it, where it does); ratio = predicted / measured throughput\n");
}

/// `stopped_by_signal`: the signal that interrupted the run (its cases then those whose reference
/// finished, each with its points that finished), 0 when every point ran; `whole_points` as
/// print_table's.
void print_json(const std::vector<analysis::ValidationCase>& cases,
                const std::vector<std::vector<Prediction>>& predictions,
                const std::vector<analysis::CaseComparison>& results, const analysis::Summary& all,
                int stopped_by_signal, const std::vector<std::size_t>& whole_points) {
  io::JsonWriter json(std::cout);
  // (median and worst are null where no point follows the reference)
  const auto errors = [&json](bool any, double median, double worst) {
    json.key("median_abs_error_points");
    any ? json.value(median) : json.null();
    json.key("worst_error_points");
    any ? json.value(worst) : json.null();
  };
  json.begin_object().key("cases").begin_array();
  for (std::size_t c = 0; c < results.size(); ++c) {
    const auto& r = results[c];
    const auto& v = cases[c];
    json.begin_object().key("id").value(r.id).key("title").value(v.title).key("source").value(v.source)
        .key("file").value(v.path)
        .key("scaling").value(v.scaling == analysis::ValidationCase::Scaling::Weak ? "weak" : "per-point-batch")
        .key("complete").value(c >= whole_points.size() || whole_points[c] == r.points.size())
        .key("points").begin_array();
    for (std::size_t i = 0; i < r.points.size(); ++i) {
      const auto& p = r.points[i];
      const auto& m = v.measured[i];
      json.begin_object().key("workers").value(p.workers)
          .key("batch_per_worker").value(m.batch_per_worker.value_or(v.batch_per_worker))
          .key("software").value(m.software.empty() ? v.software : m.software);
      if (p.measured_throughput)
        json.key("measured_throughput").value(*p.measured_throughput);
      json.key("predicted_throughput").value(p.predicted_throughput)
          .key("measured_efficiency").value(p.measured_efficiency)
          .key("measured_efficiency_reported").value(m.reported_efficiency.has_value())
          .key("predicted_efficiency").value(p.predicted_efficiency)
          .key("error_points").value(p.error_points);
      json.key("predicted_breakdown_s");
      write_breakdown_json(json, predictions[c][i].breakdown_s);
      json.end_object();
    }
    json.end_array();
    errors(r.points.size() >= 2, r.median_abs_error_points, r.worst_error_points);
    json.end_object();
  }
  json.end_array().key("points").value(all.points);
  errors(all.points > 0, all.median_abs_error_points, all.worst_error_points);
  json.key("stopped_by_signal").value(stopped_by_signal);
  json.end_object();
}

} // namespace

int validate_command(const std::vector<std::string>& args) {
  po::options_description options("options");
  options.add_options()("jobs,j", po::value<int>(), "points run at once (default: the cores)")(
      "json", "print one JSON object instead of a table");
  const auto cli = parse_command_line_files(
      args,
      "usage: ceiling validate [CASE...] [-j JOBS] [--json]\n\n"
      "Predicts each validation case's measured series (default: validation/*.toml; a CASE is\n"
      "a case file, or the name of one in validation/ without .toml, which each bundled case\n"
      "shares with its id) with `ceiling run`, and prints measured\n"
      "against predicted throughput and efficiency per N, the error in efficiency points, the\n"
      "median and worst per case and overall. Interrupted (SIGINT, SIGTERM), it prints the cases\n"
      "whose every point finished and exits 128 + the signal.\n",
      options);
  if (!cli)
    return 0;
  const int jobs = cli->optional<int>("jobs").value_or(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  if (jobs < 1)
    throw UsageError("--jobs: must be at least 1, got " + std::to_string(jobs));
  std::vector<analysis::ValidationCase> cases;
  const auto run = run_options();
  for (const auto& path : cli->files.empty() ? default_cases() : cli->files) {
    cases.push_back(config::load_validation_case(case_path(path), [&](const std::vector<std::string>& options, bool servers) {
      return run_options_problem(run, options, servers);
    }));
    for (std::size_t c = 0; c + 1 < cases.size(); ++c)
      if (cases[c].id == cases.back().id)
        throw UsageError(cases.back().path + ": case id " + cases.back().id + " is " + cases[c].path +
                         "'s too: each case once (the table and the medians count it by its id)");
  }

  struct Point {
    std::size_t c, m;
  };
  std::vector<Point> points;
  for (std::size_t c = 0; c < cases.size(); ++c)
    for (std::size_t m = 0; m < cases[c].measured.size(); ++m)
      points.push_back({c, m});
  std::vector<std::vector<Prediction>> predicted(cases.size());
  for (std::size_t c = 0; c < cases.size(); ++c)
    predicted[c].assign(cases[c].measured.size(), Prediction{});
  const std::string program = ceiling_program_path();
  sweep::WorkerPool pool;
  pool.set_wake_fd(catch_stop_signals());
  std::vector<std::size_t> unfinished(cases.size()); // points of each case without a prediction
  std::vector<std::vector<char>> done_points(cases.size()); // by case and point: predicted
  for (std::size_t c = 0; c < cases.size(); ++c) {
    unfinished[c] = cases[c].measured.size();
    done_points[c].assign(cases[c].measured.size(), 0);
  }
  std::size_t next = 0;
  // A point that fails (its run does, or its run simulated another case than the point's) stops
  // the starting of others; those running end, and the first failure in point order is reported
  // (points start in that order, so every earlier one has run): the same message whatever order
  // the runs end in.
  struct Failure {
    std::size_t point;
    int status;
    std::string where, err;
    std::exception_ptr refused; ///< a run that succeeded but did not simulate the case (prediction_of)
  };
  std::optional<Failure> failure;
  const auto take = [&](const sweep::WorkerPool::Finished& done) {
    const auto& p = points[static_cast<std::size_t>(done.tag)];
    const auto& c = cases[p.c];
    const analysis::MeasuredPoint& m = c.measured[p.m];
    const std::string where = c.path + ":" + std::to_string(m.line) + ":" +
                              std::to_string(m.column) + ": measured[" + std::to_string(p.m) +
                              "] (" + support::counted(m.workers, "worker") + ")";
    // A run that refuses its input (status 2) names what the case asked for: bad input here too;
    // one that crashed or was killed is an internal error, as `ceiling run`'s own would be.
    const auto index = static_cast<std::size_t>(done.tag);
    if (done.exit_status != 0 && (!failure || index < failure->point))
      failure = Failure{index, done.exit_status, where, done.err};
    if (done.exit_status == 0 && (!failure || index < failure->point)) {
      try {
        predicted[p.c][p.m] = prediction_of(done.out, c, p.m, where);
        --unfinished[p.c];
        done_points[p.c][p.m] = 1;
      } catch (const std::exception&) {
        failure = Failure{index, 0, where, "", std::current_exception()};
      }
    }
  };
  while (stop_signal == 0 && ((!failure && next < points.size()) || pool.running() > 0)) {
    while (stop_signal == 0 && !failure && pool.running() < jobs && next < points.size()) {
      const auto& p = points[next];
      pool.start(static_cast<int>(next), run_arguments(program, cases[p.c], cases[p.c].measured[p.m]));
      ++next;
    }
    if (const auto done = pool.wait_one())
      take(*done);
  }
  if (stop_signal != 0) { // what finished is printed: each case's points after its reference's
    for (const auto& done : pool.take_finished())
      take(done);
    pool.terminate_all();
    std::vector<analysis::ValidationCase> finished;
    std::vector<std::vector<Prediction>> finished_predictions;
    std::vector<analysis::CaseComparison> results;
    std::vector<std::size_t> whole_points;
    std::size_t points_done = 0, whole = 0;
    for (std::size_t c = 0; c < cases.size(); ++c) {
      points_done += cases[c].measured.size() - unfinished[c];
      whole += unfinished[c] == 0 ? 1 : 0;
      if (!done_points[c][0]) // (its reference, the smallest N: no efficiency without it)
        continue;
      analysis::ValidationCase part = cases[c];
      part.measured.clear();
      std::vector<Prediction> part_predicted;
      for (std::size_t m = 0; m < cases[c].measured.size(); ++m)
        if (done_points[c][m]) {
          part.measured.push_back(cases[c].measured[m]);
          part_predicted.push_back(predicted[c][m]);
        }
      results.push_back(analysis::compare(part, throughputs(part_predicted)));
      finished.push_back(std::move(part));
      finished_predictions.push_back(std::move(part_predicted));
      whole_points.push_back(cases[c].measured.size());
    }
    std::fprintf(stderr, "ceiling validate: interrupted by signal %d: %zu of %zu points finished; %zu of %zu cases whole, "
                 "%zu in part (from their reference), printed\n",
                 static_cast<int>(stop_signal), points_done, points.size(), whole, cases.size(), finished.size() - whole);
    const auto all = analysis::summarize(results);
    if (cli->has("json"))
      print_json(finished, finished_predictions, results, all, static_cast<int>(stop_signal), whole_points);
    else
      print_table(finished, results, all, whole_points);
    return 128 + stop_signal;
  }
  if (failure && failure->refused)
    std::rethrow_exception(failure->refused);
  if (failure && failure->status == 2) {
    // The run's error, past the notes and warnings it printed before it (its own "ceiling: error: "
    // would come after this command's).
    const std::string_view prefix = "ceiling: error: ";
    std::string_view why = failure->err;
    while ((why.starts_with("ceiling: note: ") || why.starts_with("ceiling: warning: ")) &&
           why.find('\n') != std::string_view::npos)
      why.remove_prefix(why.find('\n') + 1);
    if (why.starts_with(prefix))
      why.remove_prefix(prefix.size());
    while (why.ends_with('\n')) // (its line's end: the error ends with validate's own)
      why.remove_suffix(1);
    const auto& p = points[failure->point];
    const analysis::ValidationCase& k = cases[p.c];
    const analysis::MeasuredPoint& m = k.measured[p.m];
    const std::string message = "the run of " + support::counted(m.workers, "worker") +
                                " refused the case's input: " + std::string(why);
    // At the key the refusal is about where it names one: an option the case or the point gives
    // ("--servers: ..."; a --set's refusal, "--set:1:20: error: KEY: ..." or "--set KEY: ...",
    // by the KEY its override sets, not validate's own node.gpu.count), the servers validate
    // gives from case.servers_per_node, or one of the case's files (its own error first); else
    // at the point.
    const bool set_located = why.starts_with("--set:"), set_named = why.starts_with("--set ");
    const bool set = set_located || set_named;
    const std::string option =
        set ? std::string("--set")
            : std::string(why.substr(0, why.starts_with("--") ? why.find(':') : 0));
    std::string set_key; // the key the refused override sets, as the error names it
    if (const auto at = why.find(": error: "); set_located && at != std::string_view::npos) {
      const std::string_view rest = why.substr(at + 9);
      set_key = std::string(rest.substr(0, rest.find(':')));
    } else if (set_named) {
      set_key = std::string(why.substr(6, why.find(':') - 6));
    }
    // An override sets the error's key where it is that key or a table holding it; without a
    // key named, any override may be it.
    const auto sets_key = [&](const std::string& value) {
      return set_key.empty() || config::override_reaches(value, set_key);
    };
    const auto gives = [&](const std::vector<std::string>& options) {
      for (std::size_t i = 0; i < options.size(); ++i) {
        const std::string& o = options[i];
        if (set) { // "--set K=V" or "--set=K=V", naming the refused key
          if ((o == option && i + 1 < options.size() && sets_key(options[i + 1])) ||
              (o.starts_with(option + "=") && sets_key(o.substr(option.size() + 1))))
            return true;
        } else if (!option.empty() && (o == option || o.starts_with(option + "="))) {
          return true;
        }
      }
      return false;
    };
    const std::string point = "measured[" + std::to_string(p.m) + "]";
    std::string key = gives(m.options)                                  ? point + ".options"
                      : gives(k.options)                                ? "case.options"
                      : option == "--servers" && k.servers_per_node > 0 ? "case.servers_per_node"
                                                                        : "";
    for (const auto& [file, name] : {std::pair{&k.workload, "case.workload"}, std::pair{&k.platform, "case.platform"},
                                     std::pair{&k.software, "case.software"}})
      if (key.empty() && !file->empty() && why.starts_with(*file + ":"))
        key = name;
    if (!key.empty())
      throw config::key_error(config::parse_toml_file(k.path), k.path, key, message);
    throw config::LoadError({k.path, m.line, m.column}, point, message);
  }
  if (failure)
    throw std::runtime_error(failure->where + ": the run failed (" +
                             (failure->status < 0 ? std::string("ended by a signal")
                                                  : "exit status " + std::to_string(failure->status)) +
                             "): " + failure->err);
  std::vector<analysis::CaseComparison> results;
  for (std::size_t c = 0; c < cases.size(); ++c)
    results.push_back(analysis::compare(cases[c], throughputs(predicted[c])));
  const auto all = analysis::summarize(results);
  if (cli->has("json"))
    print_json(cases, predicted, results, all, 0, {});
  else
    print_table(cases, results, all, {});
  return 0;
}

} // namespace ceiling::tools
