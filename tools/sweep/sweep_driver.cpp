// The sweep's bookkeeping: setup, resume, the store after each point, progress.
#include "tools/sweep/sweep_driver.hpp"

#include "config/experiment_file.hpp"
#include "config/input_file.hpp"
#include "config/platform_file.hpp"
#include "config/software_file.hpp"
#include "config/workload_file.hpp"
#include "io/atomic_output.hpp"
#include "source_id.hpp"
#include "tools/sweep/headlines.hpp"
#include "support/counted.hpp"
#include "support/utf8.hpp"
#include "sweep/point_codec.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string_view>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace ceiling::tools {
namespace {

/// The input files, each once, in the order the experiment names them: the experiment, its
/// platforms, its workloads and the files their loading reads (workload::WorkloadSpec::files_read).
std::vector<io::InputFile> inputs_of(const sweep::ExperimentSpec& e) {
  std::vector<io::InputFile> inputs{{"experiment", e.path, e.text}};
  const auto add = [&inputs](const char* kind, const std::string& path) {
    const bool seen = std::any_of(inputs.begin(), inputs.end(),
                                  [&](const io::InputFile& f) { return f.path == path; });
    if (!seen)
      inputs.push_back({kind, path, config::read_input_file(path)});
  };
  // Software stacks, bundled or files: those the platforms name and those variants choose.
  const auto add_software = [&inputs](const std::string& name_or_path) {
    const bool seen = std::any_of(inputs.begin(), inputs.end(),
                                  [&](const io::InputFile& f) { return f.path == name_or_path; });
    if (!seen && !name_or_path.empty())
      inputs.push_back({"software", name_or_path, config::software_text(name_or_path)});
  };
  for (const sweep::InputEntry& entry : e.platforms) {
    add("platform", entry.file);
    add_software(config::load_platform(entry.file).software);
  }
  for (const sweep::VariantSpec& v : e.variants)
    for (std::size_t i = 0; i + 1 < v.run_args.size(); i += 2)
      if (v.run_args[i] == "--software")
        add_software(v.run_args[i + 1]);
  // The workloads, then their lenders and the platforms of their measured devices (whose models
  // say which calibration a run takes, and whether it is calibrated: the run's provenance), so
  // that a workload run is listed as one, whichever other workload borrows its calibration.
  for (const sweep::InputEntry& entry : e.workloads)
    add("workload", entry.file);
  for (const sweep::InputEntry& entry : e.workloads)
    for (const workload::FileRead& f : config::load_workload(entry.file).files_read)
      add(f.kind.c_str(), f.path);
  return inputs;
}

/// The fingerprint of the inputs' texts (not their paths: the same files reached by another
/// spelling, or the whole tree moved, are the same inputs).
std::string digest_of(const std::vector<io::InputFile>& inputs) {
  std::vector<std::string> texts;
  for (const io::InputFile& f : inputs)
    texts.push_back(f.kind + "\n" + f.text);
  return sweep::digest(texts);
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

/// What differs between the inputs a store was made from and the sweep's, file by file: "the
/// platform file P changed", "... is new", "... is no longer read"; empty where only their
/// order or nothing does.
std::string input_changes(const std::vector<io::InputFile>& before, const std::vector<io::InputFile>& now) {
  std::string changes;
  const auto note = [&](const io::InputFile& f, const char* what) {
    changes += (changes.empty() ? "" : "; ") + std::string("the ") + f.kind + " file " + f.path + " " + what;
  };
  const auto find = [](const std::vector<io::InputFile>& files, const io::InputFile& f) {
    return std::find_if(files.begin(), files.end(),
                        [&](const io::InputFile& g) { return g.kind == f.kind && g.path == f.path; });
  };
  for (const io::InputFile& f : now) {
    const auto was = find(before, f);
    if (was == before.end())
      note(f, "is new");
    else if (was->text != f.text)
      note(f, "changed");
  }
  for (const io::InputFile& f : before)
    if (find(now, f) == now.end())
      note(f, "is no longer read");
  return changes;
}

/// Whether the file at `path` begins with HDF5's signature (a result store, or another HDF5
/// file), or is empty.
bool is_hdf5_or_empty(const std::string& path) {
  constexpr std::string_view signature = "\x89HDF\r\n\x1a\n";
  std::ifstream in(path, std::ios::binary);
  std::string start(signature.size(), '\0');
  in.read(start.data(), static_cast<std::streamsize>(start.size()));
  return in.gcount() == 0 || start == signature;
}

} // namespace

SweepSetup prepare_sweep(const std::string& experiment_path, const std::string& output_override,
                         ExistingOutput existing, const std::string& command_line) {
  // The store keeps the command line and the inputs' paths (the experiment's folder, then theirs)
  // as UTF-8 text, which `report` and `plot` read as such.
  for (const auto& [what, text] : {std::pair<const char*, const std::string&>{"the experiment file's path", experiment_path},
                                   {"the output's path", output_override},
                                   {"the command line", command_line}})
    if (!support::is_utf8(text))
      throw SweepError(std::string(what) + " is not UTF-8 text, which the result store keeps it as (report and plot "
                       "read it so): give files and folders names in UTF-8");
  SweepSetup setup;
  setup.experiment = config::load_experiment(experiment_path);
  setup.expansion = sweep::expand(setup.experiment);
  setup.output = output_override.empty() ? setup.experiment.output : output_override;
  if (setup.output == "-") // (no standard output: that carries the sweep's progress)
    throw SweepError("\"-\": the output (-o, or the experiment's output) is a result file, not standard output: give its path (./- for a file named so)");
  if (std::error_code ec; setup.output.back() == '/' || std::filesystem::is_directory(setup.output, ec)) {
    const std::string why = setup.output + " names a folder: the output (-o, or the experiment's output) names the result file, such as " +
                            (std::filesystem::path(setup.output) / "sweep.h5").lexically_normal().string();
    if (!output_override.empty())
      throw SweepError(why);
    const sweep::EntryLocation& at = setup.experiment.output_where; // (where the experiment names it)
    throw config::LoadError({at.path, at.line, at.column}, "experiment.output", why);
  }

  io::ResultFile& r = setup.results;
  r.tool_version = tool_version(); // (resume refuses another build's store)
  r.simgrid_version = CEILING_SIMGRID_VERSION;
  r.command_line = command_line;
  r.experiment_path = experiment_path;
  r.title = setup.experiment.title;
  r.question = setup.experiment.question;
  r.inputs = inputs_of(setup.experiment);
  r.digest = digest_of(r.inputs);
  r.points_total = static_cast<long long>(setup.expansion.points.size());
  r.cost_unit = setup.experiment.cost_unit;
  r.curves = setup.expansion.curves;

  if (const auto dir = std::filesystem::path(setup.output).parent_path(); !dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
      throw SweepError("cannot create the folder " + dir.string() + " for " + setup.output +
                       ": " + ec.message());
  }
  // The result file must not be one of the sweep's inputs (--overwrite would replace it).
  for (const io::InputFile& input : r.inputs) {
    std::error_code ec;
    if (std::filesystem::equivalent(setup.output, input.path, ec))
      throw SweepError(setup.output + " is the sweep's " + input.kind + " file: " +
                       (output_override.empty() ? "the experiment's output" : std::string("-o")) +
                       " names the result file, which is written over: name another");
  }
  // Through a symbolic link, the file it names: its lock, its writes (the link stays).
  setup.output = io::output_target(setup.output);
  setup.lock = std::make_shared<OutputLock>(setup.output);
  const bool exists = std::filesystem::exists(setup.output);
  if (exists && existing == ExistingOutput::Refuse)
    throw SweepError(setup.output + " exists: --resume runs the points it lacks, --overwrite "
                                    "starts again, -o writes elsewhere");
  setup.overwriting = exists && existing == ExistingOutput::Overwrite;
  setup.resuming = exists && existing == ExistingOutput::Resume;
  // --overwrite replaces a result store, not a file named by mistake (an input copied aside, notes).
  if (setup.overwriting && !is_hdf5_or_empty(setup.output))
    throw SweepError(setup.output + " exists and is not a result store (an HDF5 file): --overwrite replaces "
                                    "only a result store; -o writes elsewhere, or remove that file first");
  std::vector<bool> done(setup.expansion.points.size(), false);
  if (exists && existing == ExistingOutput::Resume) {
    const io::ResultFile before = io::read_results(setup.output);
    if (before.digest != r.digest) {
      const std::string changes = input_changes(before.inputs, r.inputs);
      throw SweepError(setup.output + " was made from another experiment text or other input files (" +
                       (changes.empty() ? "" : changes + "; ") + "digest " + before.digest + ", now " + r.digest +
                       "): --overwrite starts again, -o writes elsewhere");
    }
    if (before.tool_version != r.tool_version)
      throw SweepError(setup.output + " was made by ceiling " + before.tool_version + ", this is " +
                       r.tool_version + ": --overwrite starts again, -o writes elsewhere");
    // The points' commands name their files as the experiment's path was typed: another spelling
    // (another current directory) would store some points' files one way and the rest another.
    if (before.experiment_path != r.experiment_path)
      throw SweepError(setup.output + " was made from the experiment \"" + before.experiment_path +
                       "\" (as typed, from the directory the sweep ran in), this is \"" + r.experiment_path +
                       "\": resume from that directory with that path (its points' commands name their "
                       "files relative to it), or --overwrite starts again");
    // The store keeps the command that started it and each that continued it, a line each.
    r.command_line = before.command_line + "\n" + command_line;
    for (const sweep::PointRecord& p : before.points) {
      const auto i = static_cast<std::size_t>(p.spec.index);
      const auto same = [&](const sweep::PointSpec& a) {
        return a.curve == p.spec.curve && a.nodes == p.spec.nodes && a.seed == p.spec.seed;
      };
      if (i >= done.size() || !same(setup.expansion.points[i]))
        throw SweepError(setup.output + ": point " + std::to_string(p.spec.index) +
                         " does not match the experiment's expansion; --overwrite starts again");
      // A failed point runs again: its failure may have been the machine's, not the point's.
      // Its record stays until the new run replaces it (store_point), so that a resume cut
      // short keeps it. One that does not fit its GPU never will.
      done[i] = p.result.ok || p.result.does_not_fit;
      r.points.push_back(p);
    }
  }
  for (int i : sweep::run_order(setup.expansion.points))
    if (!done[static_cast<std::size_t>(i)])
      setup.to_run.push_back(i);
  io::analyse_curves(r);
  return setup;
}

void begin_store(const SweepSetup& setup) {
  if (!setup.overwriting && !setup.resuming) {
    io::write_results(setup.output, setup.results);
    return;
  }
  // The store is written at the first point; that its temporary file can be created is known now,
  // not after that point's work.
  const std::string temporary = setup.output + ".tmp";
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    throw SweepError(setup.output + ": cannot create \"" + temporary + "\": " + std::strerror(errno));
  close(fd);
  io::remove_temporary(temporary);
}

std::string interrupted_message(const SweepSetup& setup) {
  if (setup.overwriting && setup.results.points.empty())
    return "interrupted before a point finished: " + setup.output + " is as it was (--overwrite replaces it " +
           "once a point is stored)";
  return "interrupted: " + std::to_string(setup.results.points.size()) + " of " +
         std::to_string(setup.expansion.points.size()) + " points are stored in " + setup.output + " (" +
         failures(setup.results) + "); run again with --resume to continue";
}

namespace {
/// What a sweep's lock file holds, so that a file of that name that a sweep did not make (or
/// one left by a sweep that was killed) is told apart from one to take.
constexpr std::string_view lock_text = "ceiling sweep lock\n";
} // namespace

OutputLock::OutputLock(const std::string& output) : path_(output + ".lock") {
  fd_ = open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  const bool made = fd_ >= 0;
  if (!made && errno == EEXIST)
    fd_ = open(path_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd_ < 0)
    throw SweepError("cannot create " + path_ + ": " + std::strerror(errno));
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    close(fd_);
    throw SweepError("another sweep is writing " + output + " (" + path_ + " is locked)");
  }
  // A file there already is a lock a sweep left (killed before it could remove it), or an empty
  // one another sweep has just made: taken; anything else is someone's file, kept.
  if (!made) {
    std::string text(lock_text.size() + 1, '\0');
    const ssize_t n = pread(fd_, text.data(), text.size(), 0);
    if (n != 0 && (n != static_cast<ssize_t>(lock_text.size()) || text.substr(0, lock_text.size()) != lock_text)) {
      close(fd_);
      throw SweepError(path_ + " exists and is not a sweep's lock (the sweep of " + output +
                       " takes that name while it runs): move that file, or -o writes elsewhere");
    }
  }
  if (pwrite(fd_, lock_text.data(), lock_text.size(), 0) != static_cast<ssize_t>(lock_text.size())) {
    const std::string why = std::strerror(errno);
    close(fd_);
    throw SweepError("cannot write " + path_ + ": " + why);
  }
}

OutputLock::~OutputLock() {
  unlink(path_.c_str());
  close(fd_);
}

void store_point(SweepSetup& setup, sweep::PointRecord record) {
  // A point reads its input files when it starts: one edited during the sweep would mix
  // results of two inputs under one digest.
  for (const io::InputFile& f : setup.results.inputs) {
    std::string now;
    try {
      // A bundled software stack is part of the program: its text cannot change.
      now = f.kind == "software" ? config::software_text(f.path) : config::read_input_file(f.path);
    } catch (const std::exception&) {
    }
    if (now != f.text)
      throw SweepError(f.path + " changed during the sweep: the point just finished (" +
                       point_label(setup, record.spec) + ") may have read the new text and is not "
                       "stored; restore the file and --resume, or --overwrite");
  }
  auto& points = setup.results.points;
  const auto at = std::lower_bound(points.begin(), points.end(), record.spec.index,
                                   [](const sweep::PointRecord& p, int index) {
                                     return p.spec.index < index;
                                   });
  if (at != points.end() && at->spec.index == record.spec.index)
    *at = std::move(record); // a failed point run again (--resume)
  else
    points.insert(at, std::move(record));
  io::analyse_curves(setup.results);
  io::write_results(setup.output, setup.results);
}

sweep::PointResult point_result(const sweep::WorkerPool::Finished& f) {
  std::string problem;
  if (f.exit_status == 0) {
    if (auto r = sweep::decode(f.out, problem)) {
      r->error = support::repaired_utf8(r->error); // (the store keeps UTF-8: its reader checks it)
      r->provenance = support::repaired_utf8(r->provenance);
      return *r;
    }
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
  failed.error = support::repaired_utf8(failed.error); // (stderr's bytes, cut anywhere)
  return failed;
}

std::vector<std::string> point_command(const std::string& ceiling_program, const std::vector<std::string>& run_args) {
  // (the point refuses to run where the program is another build than the sweep's: one rebuilt
  // while the sweep runs would store its results under the sweep's tool_version)
  std::vector<std::string> argv{ceiling_program, "sweep-point", std::string(sweep_version_option) + tool_version()};
  argv.insert(argv.end(), run_args.begin(), run_args.end());
  return argv;
}

std::vector<std::string> point_command(const std::string& ceiling_program, const sweep::PointSpec& p) {
  return point_command(ceiling_program, p.run_args);
}

std::string point_label(const SweepSetup& setup, const sweep::PointSpec& p) {
  return setup.expansion.curves[static_cast<std::size_t>(p.curve)].id + ", " +
         support::counted(p.nodes, "node") + ", seed " + std::to_string(p.seed);
}

std::string point_program_path() {
  if (const char* wrapper = std::getenv("CEILING_POINT_PROGRAM"); wrapper && *wrapper)
    return wrapper;
  return ceiling_program_path();
}

std::string tool_version() { return CEILING_VERSION "+" CEILING_SOURCE_ID; }

std::string ceiling_program_path() {
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
  const auto nodes = static_cast<double>(p.nodes);
  return PointCost::seconds(nodes, e.iterations, 2 * nodes);
}

void record_finished(SweepSetup& setup, const sweep::WorkerPool::Finished& finished, double weight,
                     double& weight_left, Progress& progress) {
  const sweep::PointSpec& spec = setup.expansion.points[static_cast<std::size_t>(finished.tag)];
  sweep::PointRecord record{spec, point_result(finished)};
  const sweep::PointResult result = record.result;
  char summary[96];
  std::snprintf(summary, sizeof summary, ": %.6g s per iteration", result.iteration_time_s);
  const std::string line = point_label(setup, spec) + (result.ok             ? std::string(summary)
                                                       : result.does_not_fit ? ": does not fit in device memory"
                                                                             : ": FAILED: " + result.error);
  weight_left -= weight;
  store_point(setup, std::move(record));
  progress.point_done(result, weight, weight_left, line);
}

Progress::Progress(int total, int already_done, std::FILE* out, Display display)
    : total_(total), done_(already_done), out_(out),
      terminal_(display == Display::BarOnTerminal && isatty(fileno(out)) != 0),
      start_(std::chrono::steady_clock::now()) {}

std::string failures(const io::ResultFile& results) {
  long long failed = 0, not_fitting = 0;
  for (const sweep::PointRecord& p : results.points) {
    failed += !p.result.ok && !p.result.does_not_fit;
    not_fitting += p.result.does_not_fit;
  }
  std::string text = std::to_string(failed) + " failed";
  if (not_fitting > 0)
    text += ", " + std::to_string(not_fitting) + " do not fit in device memory";
  return text;
}

void print_sweep_end(const SweepSetup& setup) {
  std::printf("wrote %s: %s, %s\n", setup.output.c_str(),
              support::counted(static_cast<long long>(setup.expansion.points.size()), "point").c_str(),
              failures(setup.results).c_str());
  std::fputs(headlines(setup.results).c_str(), stdout);
}

void Progress::point_done(const sweep::PointResult& result, double weight, double weight_left,
                          const std::string& line) {
  ++done_;
  if (!result.ok && !result.does_not_fit)
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
