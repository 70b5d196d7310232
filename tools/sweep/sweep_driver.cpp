// The sweep's bookkeeping: setup, resume, the store after each point, progress.
#include "tools/sweep/sweep_driver.hpp"

#include "config/experiment_file.hpp"
#include "sweep/point_codec.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

namespace ceiling::tools {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The input files, each once, in the order the experiment names them.
std::vector<io::InputFile> inputs_of(const sweep::ExperimentSpec& e) {
  std::vector<io::InputFile> inputs{{"experiment", e.path, e.text}};
  for (const auto* entries : {&e.platforms, &e.workloads})
    for (const sweep::InputEntry& entry : *entries) {
      const bool seen = std::any_of(inputs.begin(), inputs.end(),
                                    [&](const io::InputFile& f) { return f.path == entry.file; });
      if (!seen)
        inputs.push_back({entries == &e.platforms ? "platform" : "workload", entry.file,
                          read_text(entry.file)});
    }
  return inputs;
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0)
    return "--:--";
  const long long s = std::llround(seconds);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%02lld:%02lld", s / 60, s % 60);
  return text;
}

} // namespace

SweepSetup prepare_sweep(const std::string& experiment_path, const std::string& output_override,
                         ExistingOutput existing, const std::string& command_line) {
  SweepSetup setup;
  setup.experiment = config::load_experiment(experiment_path);
  setup.expansion = sweep::expand(setup.experiment);
  setup.output = output_override.empty() ? setup.experiment.output : output_override;

  io::ResultFile& r = setup.results;
  r.tool_version = CEILING_VERSION;
  r.simgrid_version = CEILING_SIMGRID_VERSION;
  r.command_line = command_line;
  r.experiment_path = experiment_path;
  r.title = setup.experiment.title;
  r.question = setup.experiment.question;
  r.inputs = inputs_of(setup.experiment);
  std::vector<std::string> texts;
  for (const io::InputFile& f : r.inputs)
    texts.push_back(f.path + "\n" + f.text);
  r.digest = sweep::digest(texts);
  r.points_total = static_cast<long long>(setup.expansion.points.size());
  r.cost_unit = setup.experiment.cost_unit;
  r.curves = setup.expansion.curves;

  const bool exists = std::filesystem::exists(setup.output);
  if (exists && existing == ExistingOutput::Refuse)
    throw SweepError(setup.output + " exists: --resume runs the points it lacks, --overwrite "
                                    "starts again, -o writes elsewhere");
  std::vector<bool> done(setup.expansion.points.size(), false);
  if (exists && existing == ExistingOutput::Resume) {
    const io::ResultFile before = io::read_results(setup.output);
    if (before.digest != r.digest)
      throw SweepError(setup.output + " was made from another experiment text or other input "
                                      "files (digest " + before.digest + ", now " + r.digest +
                       "): --overwrite starts again, -o writes elsewhere");
    for (const sweep::PointRecord& p : before.points) {
      const auto i = static_cast<std::size_t>(p.spec.index);
      if (i >= done.size() || !(p.spec == setup.expansion.points[i]))
        throw SweepError(setup.output + ": point " + std::to_string(p.spec.index) +
                         " does not match the experiment's expansion; --overwrite starts again");
      // A failed point runs again: its failure may have been the machine's, not the point's.
      if (!p.result.ok)
        continue;
      done[i] = true;
      r.points.push_back(p);
    }
  }
  for (int i : sweep::run_order(setup.expansion.points))
    if (!done[static_cast<std::size_t>(i)])
      setup.to_run.push_back(i);
  analyse_curves(r);
  return setup;
}

void analyse_curves(io::ResultFile& results) {
  std::vector<std::vector<analysis::CurvePoint>> per_curve(results.curves.size());
  for (const sweep::PointRecord& p : results.points) {
    if (!p.result.ok)
      continue;
    const sweep::PointResult& x = p.result;
    per_curve[static_cast<std::size_t>(p.spec.curve)].push_back(
        {.n = static_cast<double>(p.spec.nodes),
         .iteration_time_s = x.iteration_time_s,
         .samples_per_iteration = x.samples_per_iteration,
         .flop_per_iteration = x.flop_per_iteration,
         .peak_flop_per_s = x.peak_flop_per_s,
         .compute_s = x.compute_s,
         .copy_s = x.copy_s,
         .communication_s = x.communication_s,
         .synchronisation_s = x.synchronisation_s});
  }
  results.analyses.clear();
  for (std::size_t c = 0; c < results.curves.size(); ++c)
    results.analyses.push_back(analysis::analyse(per_curve[c], results.curves[c].scaling));
}

void store_point(SweepSetup& setup, sweep::PointRecord record) {
  auto& points = setup.results.points;
  const auto at = std::lower_bound(points.begin(), points.end(), record.spec.index,
                                   [](const sweep::PointRecord& p, int index) {
                                     return p.spec.index < index;
                                   });
  points.insert(at, std::move(record));
  analyse_curves(setup.results);
  io::write_results(setup.output, setup.results);
}

sweep::PointResult point_result(const sweep::WorkerPool::Finished& f) {
  std::string problem;
  if (f.exit_status == 0) {
    if (auto r = sweep::decode(f.out, problem))
      return *r;
  }
  sweep::PointResult failed;
  std::string tail = f.err.size() > 2000 ? "..." + f.err.substr(f.err.size() - 2000) : f.err;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' '))
    tail.pop_back();
  if (f.signal != 0)
    failed.error = "the point's process was ended by signal " + std::to_string(f.signal) + " (" +
                   strsignal(f.signal) + ")";
  else if (f.exit_status != 0)
    failed.error = "the point's process exited with status " + std::to_string(f.exit_status);
  else
    failed.error = "the point's process printed no result: " + problem;
  if (!tail.empty())
    failed.error += ": " + tail;
  return failed;
}

std::vector<std::string> point_command(const std::string& ceiling_program,
                                       const sweep::PointSpec& p) {
  std::vector<std::string> argv{ceiling_program, "sweep-point"};
  argv.insert(argv.end(), p.run_args.begin(), p.run_args.end());
  return argv;
}

std::string point_label(const SweepSetup& setup, const sweep::PointSpec& p) {
  return setup.expansion.curves[static_cast<std::size_t>(p.curve)].id + ", " +
         std::to_string(p.nodes) + " nodes, seed " + std::to_string(p.seed);
}

std::string point_program_path() {
  if (const char* wrapper = std::getenv("CEILING_POINT_PROGRAM"); wrapper && *wrapper)
    return wrapper;
  const std::string name = "ceiling";
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    return name;
  const auto beside = self.parent_path() / name;
  if (std::filesystem::exists(beside))
    return beside.string();
  // The MPI program sits in tools/mpi_sweep/ of the build tree, the ceiling program in tools/.
  const auto above = self.parent_path().parent_path() / name;
  return std::filesystem::exists(above) ? above.string() : name;
}

double point_weight(const sweep::ExperimentSpec& e, const sweep::PointSpec& p) {
  // A point costs about its nodes times its iterations, plus a start-up (loading, building).
  return static_cast<double>(p.nodes) * e.iterations + 64.0;
}

Progress::Progress(int total, int already_done, std::FILE* out)
    : total_(total), done_(already_done), out_(out), terminal_(isatty(fileno(out)) != 0),
      start_(std::chrono::steady_clock::now()) {}

void Progress::point_done(bool ok, double weight, double weight_left, const std::string& line) {
  ++done_;
  if (!ok)
    ++failed_;
  weight_done_ += weight;
  if (terminal_) {
    std::fprintf(out_, "\r\033[K%s\n", line.c_str());
    draw(weight_left);
  } else {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(out_, "[%d/%d, %d failed, %s elapsed, ETA %s] %s\n", done_, total_, failed_,
                 format_duration(elapsed).c_str(),
                 format_duration(elapsed / weight_done_ * weight_left).c_str(), line.c_str());
  }
  std::fflush(out_);
}

void Progress::draw(double weight_left) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  constexpr int width = 30;
  const int filled = total_ == 0 ? width : width * done_ / total_;
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(width, '.');
  std::fprintf(out_, "\r\033[K[%s] %d/%d points, %d failed, %s elapsed, ETA %s", bar.c_str(),
               done_, total_, failed_, format_duration(elapsed).c_str(),
               weight_done_ > 0 ? format_duration(elapsed / weight_done_ * weight_left).c_str()
                                : "--:--");
  std::fflush(out_);
}

void Progress::finish() {
  if (terminal_)
    std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
}

} // namespace ceiling::tools
