// `ceiling-mpi-sweep`: the points of a sweep spread over MPI ranks. Rank 0 hands out points and
// writes the store (as `ceiling sweep` does); every other rank runs the points it is given,
// each in a process of its own (`ceiling sweep-point`), and sends back what it printed. This
// program does not link SimGrid, whose library exports MPI symbols of its own (SMPI).
#include "config/load_error.hpp"
#include "io/result_store.hpp"
#include "tools/sweep/stop_signals.hpp"
#include "tools/sweep/sweep_driver.hpp"

#include <mpi.h>
#include <poll.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace ceiling;

constexpr int tag_work = 1;   // rank 0 -> worker: a point index and its command
constexpr int tag_result = 2; // worker -> rank 0: how the point's process ended
constexpr int tag_stop = 3;   // rank 0 -> worker: no more points

constexpr const char* usage =
    "usage: mpirun -n K ceiling-mpi-sweep EXPERIMENT.toml [--resume | --overwrite] [-o OUT.h5]\n\n"
    "Runs the experiment's points on ranks 1..K-1 (rank 0 alone when K = 1), each point in a\n"
    "process of its own, and writes the same result file as `ceiling sweep`, from rank 0.\n"
    "Exit status as `ceiling sweep`: 0, 3 when a point failed, 2 bad input. SIGINT or SIGTERM to\n"
    "rank 0 stops the sweep: the store keeps every finished point, and the job ends with 128 + the\n"
    "signal. An interrupted mpirun sends SIGTERM to every rank, kills them milliseconds later and\n"
    "exits 1 (Open MPI's own status): the store keeps every finished point there too.\n";

/// Strings with their lengths in front, so any bytes survive the trip.
void put(std::string& out, const std::string& s) {
  out += std::to_string(s.size()) + ":" + s;
}
std::string take(const std::string& in, std::size_t& at) {
  const std::size_t colon = in.find(':', at);
  const std::size_t size = std::stoul(in.substr(at, colon - at));
  at = colon + 1 + size;
  return in.substr(colon + 1, size);
}

void send(const std::string& message, int to, int tag) {
  MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

/// A message of `tag` (MPI_ANY_TAG: any) that has arrived, from anyone, without waiting; nullopt
/// when none has.
std::optional<std::string> arrived(int& from, int& tag) {
  MPI_Status status;
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &status);
  if (!flag)
    return std::nullopt;
  int size = 0;
  MPI_Get_count(&status, MPI_CHAR, &size);
  std::string message(static_cast<std::size_t>(size), '\0');
  MPI_Recv(message.data(), size, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  from = status.MPI_SOURCE;
  tag = status.MPI_TAG;
  return message;
}

/// Receives the next message (from anyone), sleeping between probes instead of spinning: the
/// cores belong to the points' processes. Nullopt once a signal asked rank 0 to stop, which
/// `wake_fd` (catch_stop_signals()'s; -1 on the workers, which do not catch signals) ends the
/// sleep for at once.
std::optional<std::string> receive(int& from, int& tag, int wake_fd = -1) {
  for (;;) {
    if (tools::stop_signal != 0)
      return std::nullopt;
    tag = MPI_ANY_TAG;
    if (auto message = arrived(from, tag))
      return message;
    pollfd wake{.fd = wake_fd, .events = POLLIN, .revents = 0};
    poll(&wake, 1, 5); // (a negative fd is ignored: a 5 ms sleep)
  }
}

/// Runs `argv` here and waits for it. When a signal asks rank 0 to stop (`wake_fd`:
/// catch_stop_signals()'s, -1 on the workers), the process is terminated: what it gave if it had
/// ended by then, else nullopt.
std::optional<sweep::WorkerPool::Finished> run_here(int tag, const std::vector<std::string>& argv, int wake_fd = -1) {
  sweep::WorkerPool pool;
  pool.set_wake_fd(wake_fd);
  pool.start(tag, argv);
  std::optional<sweep::WorkerPool::Finished> f;
  while (!(f = pool.wait_one()))
    if (tools::stop_signal != 0) {
      // A point that ended before the stop is kept (its result may still sit in its pipe).
      auto ended = pool.take_finished();
      pool.terminate_all(0.5); // (an interrupted mpirun kills its ranks milliseconds after its SIGTERM)
      return ended.empty() ? std::nullopt : std::optional(std::move(ended.front()));
    }
  return f;
}

void worker() {
  for (;;) {
    int from = 0, tag = 0;
    const std::string work = *receive(from, tag);
    if (tag == tag_stop)
      return;
    std::size_t at = 0;
    const int index = std::stoi(take(work, at));
    std::vector<std::string> argv;
    while (at < work.size())
      argv.push_back(take(work, at));
    const auto f = *run_here(index, argv);
    std::string result;
    for (const std::string& s : {std::to_string(index), std::to_string(f.exit_status),
                                 std::to_string(f.signal), f.out, f.err})
      put(result, s);
    send(result, 0, tag_result);
  }
}

int coordinator(const std::vector<std::string>& args, int ranks) {
  std::string experiment, output;
  auto existing = tools::ExistingOutput::Refuse;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--resume" || args[i] == "--overwrite") {
      const auto asked = args[i] == "--resume" ? tools::ExistingOutput::Resume : tools::ExistingOutput::Overwrite;
      if (existing != tools::ExistingOutput::Refuse && existing != asked)
        throw tools::SweepError("--resume and --overwrite exclude each other\n" + std::string(usage));
      existing = asked;
    }
    else if ((args[i] == "-o" || args[i] == "--output") && i + 1 < args.size()) {
      output = args[++i];
      if (output.empty())
        throw tools::SweepError("--output: empty: expected a value\n" + std::string(usage));
    }
    else if (args[i] == "--help" || args[i] == "-h") {
      std::printf("%s", usage);
      for (int r = 1; r < ranks; ++r) // (the workers wait for work: none comes)
        send("", r, tag_stop);
      return 0;
    } else if (experiment.empty() && !args[i].starts_with("-"))
      experiment = args[i];
    else
      throw tools::SweepError("unexpected argument \"" + args[i] + "\"\n" + usage);
  }
  if (experiment.empty())
    throw tools::SweepError(std::string("missing EXPERIMENT\n") + usage);
  std::string command_line = "ceiling-mpi-sweep";
  for (const auto& a : args)
    command_line += " " + a;
  // The checks of `ceiling sweep` need SimGrid (each point's scenario): `ceiling experiment
  // show` makes them, in a process of its own, before anything runs.
  const int wake_fd = tools::catch_stop_signals();
  const auto check = run_here(0, {tools::ceiling_program_path(), "experiment", "show", experiment}, wake_fd);
  if (!check || tools::stop_signal != 0) // (stopped as the check ended: nothing is written)
    return 128 + tools::stop_signal;
  if (check->exit_status != 0) {
    std::fprintf(stderr, "%s", check->err.c_str());
    return check->exit_status == 2 ? 2 : 1;
  }
  tools::SweepSetup setup = tools::prepare_sweep(experiment, output, existing, command_line);
  const auto& points = setup.expansion.points;
  std::printf("%s\n%zu points; %zu to run on %d MPI ranks\n", setup.experiment.title.c_str(),
              points.size(), setup.to_run.size(), ranks);
  tools::begin_store(setup); // (an existing store that --overwrite replaces stays until a point is stored)
  const std::string program = tools::point_program_path();
  // (under mpirun this rank's output is a pseudo-terminal even into a log)
  tools::Progress progress(static_cast<int>(points.size()), static_cast<int>(setup.already_done()), stdout,
                           tools::Progress::Display::Lines);
  double weight_left = 0;
  for (int i : setup.to_run)
    weight_left += tools::point_weight(setup.experiment, points[static_cast<std::size_t>(i)]);
  const auto finished = [&](const sweep::WorkerPool::Finished& f) {
    tools::record_finished(setup, f, tools::point_weight(setup.experiment, points[static_cast<std::size_t>(f.tag)]),
                           weight_left, progress);
  };
  const auto interrupted = [&] {
    progress.finish();
    std::printf("%s\n", tools::interrupted_message(setup).c_str());
    return 128 + tools::stop_signal;
  };
  std::size_t next = 0;
  if (ranks == 1) {
    for (; next < setup.to_run.size() && tools::stop_signal == 0; ++next) {
      const int i = setup.to_run[next];
      if (const auto f = run_here(i, tools::point_command(program, points[static_cast<std::size_t>(i)]), wake_fd))
        finished(*f);
    }
    if (tools::stop_signal != 0)
      return interrupted();
  } else {
    const auto hand_out = [&](int to) {
      if (next == setup.to_run.size()) {
        send("", to, tag_stop);
        return false;
      }
      const int i = setup.to_run[next++];
      std::string work;
      put(work, std::to_string(i));
      for (const auto& a : tools::point_command(program, points[static_cast<std::size_t>(i)]))
        put(work, a);
      send(work, to, tag_work);
      return true;
    };
    int busy = 0;
    for (int r = 1; r < ranks; ++r)
      busy += hand_out(r) ? 1 : 0;
    const auto result_of = [](const std::string& message) {
      std::size_t at = 0;
      sweep::WorkerPool::Finished f;
      f.tag = std::stoi(take(message, at));
      f.exit_status = std::stoi(take(message, at));
      f.signal = std::stoi(take(message, at));
      f.out = take(message, at);
      f.err = take(message, at);
      return f;
    };
    while (busy > 0) {
      int from = 0, tag = 0;
      const auto received = receive(from, tag, wake_fd);
      if (!received) {
        // The results that arrived before the stop are kept; the points under way die with
        // their ranks (main aborts the job).
        for (tag = tag_result; const auto message = arrived(from, tag); tag = tag_result)
          finished(result_of(*message));
        return interrupted();
      }
      --busy;
      finished(result_of(*received));
      busy += hand_out(from) ? 1 : 0;
    }
  }
  progress.finish();
  tools::print_sweep_end(setup);
  return progress.failed() > 0 ? 3 : 0;
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int status = 0;
  if (rank != 0) {
    worker();
  } else {
    try {
      status = coordinator({argv + 1, argv + argc}, ranks);
    } catch (const config::LoadError& e) {
      std::fprintf(stderr, "%s\n", e.what());
      status = 2;
    } catch (const io::StoreError& e) {
      std::fprintf(stderr, "%s\n", e.what());
      status = 2;
    } catch (const tools::SweepError& e) {
      std::fprintf(stderr, "ceiling-mpi-sweep: error: %s\n", e.what());
      status = 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ceiling-mpi-sweep: internal error: %s\n", e.what());
      status = 1;
    }
    // The workers wait for work that will not come, or run points no one will store. (The
    // coordinator has returned: its lock is gone and its store holds every finished point.)
    if (status != 0 && status != 3 && ranks > 1) {
      std::fflush(stdout);
      MPI_Abort(MPI_COMM_WORLD, status);
    }
  }
  MPI_Finalize();
  return status;
}
