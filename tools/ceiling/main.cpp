// The `ceiling` command line: dispatches to one subcommand; bad input exits 2.
#include "config/load_error.hpp"
#include "io/result_store.hpp"
#include "replay/engine.hpp"
#include "support/sanitizers.hpp"
#include "tools/ceiling/commands.hpp"
#include "tools/ceiling/options.hpp"
#include "tools/sweep/sweep_driver.hpp"

#include <boost/program_options.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr const char* usage = R"(usage: ceiling <command> [options]

Simulates data-parallel deep-learning training on parallel machines (SimGrid).

commands:
  sweep EXPERIMENT        run every point of an experiment into an HDF5 result file
  experiment show FILE    the curves and points an experiment expands to, and its cost
  report RESULTS          a Markdown and HTML page: pictures and key numbers per curve
  plot RESULTS            the pictures alone (PNG and SVG)
  export RESULTS --csv D  the result tables as CSV
  run                     replay training iterations of a workload on a machine (--help)
  hpc                     an HPL-like or HPCG-like run: E = delivered / peak, alpha_eff (--help)
  platform show FILE      summary of a platform file: nodes, peaks, links, bisection, latency
  platform export FILE    the machine as a SimGrid XML platform
  platform bench FILE     micro-benchmarks simulated on the machine, next to their closed forms
  workload show FILE      a workload: parameters, FLOPs, gradient buckets, calibration, prediction
  workload calibrate FILE fit the compute efficiency to the single-device measurement
  validate [CASE...]      real multi-node series (validation/) predicted against measured

Run `ceiling <command> <subcommand> --help` for the options of each (written in full), and
`ceiling --version` for the version (as result stores record it: the release and the sources' id).
Exit status: 0 success, 2 bad input (file, option or value), 1 internal error or an output
that could not be written to standard output; `sweep` 3 when a point failed; a command stopped
by SIGINT or SIGTERM 128 + the signal (run, sweep and validate print or keep what finished).
)";

int dispatch(const std::vector<std::string>& args);

/// A standard stream the caller closed (`>&-`) is held by /dev/null opened read-only, so that no
/// file the command opens takes its number (and the output meant for the terminal with it), and
/// writes to it fail, which main() reports.
void hold_closed_standard_streams() {
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO})
    if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      const int held = open("/dev/null", O_RDONLY); // (the lowest free number: fd itself)
      if (held >= 0 && held != fd)
        close(held);
    }
}

/// Flushes standard output; whether everything written to it arrived (a full disk, a file size
/// limit or a closed stream lose the rest without a word otherwise).
bool standard_output_written() {
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && !std::ferror(stdout) && !std::cout.fail())
    return true;
  std::fprintf(stderr, "ceiling: error: standard output: a write failed%s%s, so the output is incomplete\n",
               flushed ? "" : ": ", flushed ? "" : std::strerror(error));
  return false;
}

} // namespace

int main(int argc, char** argv) {
  hold_closed_standard_streams();
  int status = dispatch({argv + 1, argv + argc});
  if (!standard_output_written() && status == 0)
    status = 1;
  // Every output is written and closed by now (files by their handles, HDF5 without its atexit:
  // io/hdf5_handle.cpp): what is left is freeing memory, which SimGrid's engine does at exit,
  // link by link (0.1-0.2 s for a 16,384-node machine). The process ends without it, as LLVM's
  // tools do (clang's -disable-free), but where a sanitizer checks for leaks at exit.
  std::cerr.flush();
  std::fflush(nullptr);
  if (!ceiling::support::address_sanitizer)
    std::_Exit(status);
  return status;
}

namespace {

int dispatch(const std::vector<std::string>& args) {
  try {
    if (args.empty()) {
      std::cerr << "ceiling: error: no command given\n\n" << usage;
      return 2;
    }
    if ((args[0] == "--help" || args[0] == "-h" || args[0] == "--version") && args.size() > 1) {
      std::cerr << "ceiling: error: " << args[0] << " takes nothing after it, got \"" << args[1]
                << "\"\n";
      return 2;
    }
    if (args[0] == "--help" || args[0] == "-h") {
      std::cout << usage;
      return 0;
    }
    if (args[0] == "--version") {
      std::cout << "ceiling " << ceiling::tools::tool_version() << "\n";
      return 0;
    }
    namespace t = ceiling::tools;
    static const std::vector<t::Subcommand> commands{{"platform", t::platform_command},
                                                     {"run", t::run_command},
                                                     {"hpc", t::hpc_command},
                                                     {"sweep", t::sweep_command},
                                                     {"sweep-point", t::sweep_point_command},
                                                     {"experiment", t::experiment_command},
                                                     {"export", t::export_results_command},
                                                     {"plot", t::plot_command},
                                                     {"report", t::report_command},
                                                     {"workload", t::workload_command},
                                                     {"validate", t::validate_command}};
    for (const t::Subcommand& c : commands)
      if (args[0] == c.name)
        return c.run({args.begin() + 1, args.end()});
    std::cerr << "ceiling: error: unknown command \"" << args[0] << "\"\n\n" << usage;
    return 2;
  } catch (const ceiling::config::LoadError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const ceiling::io::StoreError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const ceiling::tools::SweepError& e) {
    std::cerr << "ceiling: error: " << e.what() << "\n";
    return 2;
  } catch (const ceiling::tools::UsageError& e) {
    std::cerr << "ceiling: error: " << e.what() << "\n";
    return 2;
  } catch (const ceiling::replay::Unrunnable& e) {
    std::cerr << "ceiling: error: " << e.what() << "\n";
    return 2;
  } catch (const boost::program_options::error& e) {
    std::cerr << "ceiling: error: " << ceiling::tools::error_text(e) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ceiling: internal error: " << e.what() << "\n";
    return 1;
  }
}

} // namespace
