// `ceiling export`, `ceiling plot` and `ceiling report`: a result file into tables, pictures
// and a page. Plot and report are Python (matplotlib, h5py), reading the store only.
#include "io/csv_export.hpp"
#include "io/result_store.hpp"
#include "tools/ceiling/commands.hpp"
#include "tools/ceiling/options.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace po = boost::program_options;

namespace ceiling::tools {
namespace {

int export_main(const std::vector<std::string>& args) {
  po::options_description options("options");
  options.add_options()("csv", po::value<std::string>(), "the folder to write the CSV tables to (required)");
  const auto cli = parse_command_line(
      args, "RESULTS",
      "usage: ceiling export RESULTS.h5 --csv DIR\n\n"
      "Writes the store's tables as CSV: points.csv (one row per point), curves.csv (one row\n"
      "per curve and node count) and fits.csv (one row per curve: the Amdahl fit, ceiling).\n",
      options);
  if (!cli)
    return 0;
  if (!cli->has("csv"))
    throw UsageError("--csv: required: the folder to write the tables to (export --csv DIR)");
  const std::filesystem::path dir = cli->vm["csv"].as<std::string>(); // (not empty: parse_command_line)
  const io::ResultFile r = io::read_results(cli->file);
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    throw UsageError("--csv: " + dir.string() + " is a file, not a folder: --csv names the folder to write the tables to");
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw UsageError("--csv: cannot create the folder " + dir.string() + ": " + ec.message());
  // A table of that name that export did not write (its header's first columns) is kept.
  for (const auto& [name, start] : {std::pair{"points.csv", "index,curve,curve_id,"},
                                    std::pair{"curves.csv", "curve,curve_id,platform,"},
                                    std::pair{"fits.csv", "curve,curve_id,platform,"}})
    refuse_over_other_than_own("--csv", (dir / name).string(), start, std::string("a table `export` wrote"));
  for (const auto& path : io::write_csv_tables(r, dir))
    std::printf("wrote %s\n", path.string().c_str());
  return 0;
}

/// Runs the plotting script (Debian's python3, which has h5py and matplotlib) with `verb`.
int python_main(const char* verb, const std::vector<std::string>& args) {
  po::options_description options("options");
  options.add_options()("output,o", po::value<std::string>(),
                        "the folder to write to; default: beside RESULTS, named after it");
  const std::string what = std::string(verb) == "plot"
                               ? "Draws the curves of a result file (PNG and SVG): speedup, "
                                 "efficiency,\n1 - alpha_eff, the breakdown, the parts of 1 - "
                                 "alpha_eff, Végh's efficiency\nsurface and comparisons."
                               : "Writes report.md and a self-contained report.html with the "
                                 "pictures and\nthe key numbers of every curve.";
  const auto cli = parse_command_line(
      args, "RESULTS",
      std::string("usage: ceiling ") + verb + " RESULTS.h5 [-o DIR]\n\n" + what + "\n", options);
  if (!cli)
    return 0;
  io::read_results(cli->file); // a clear error for a file that is not a result store
  // The drawing is the source tree's Python package (tools/plot), where the build was made from;
  // CEILING_PLOT_SCRIPT names another copy of ceiling_plot.py (README, Outputs).
  const char* script_env = std::getenv("CEILING_PLOT_SCRIPT");
  const std::string script = script_env ? script_env : CEILING_PLOT_SCRIPT;
  if (std::error_code ec; !std::filesystem::is_regular_file(script, ec))
    throw UsageError("cannot draw: the plotting script " + script + " is not there" +
                     (script_env ? " (CEILING_PLOT_SCRIPT)" : " (the source tree this program was built from)") +
                     ": expected tools/plot/ceiling_plot.py of the source tree, or CEILING_PLOT_SCRIPT naming it");
  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::vector<std::string> argv{python, script, verb};
  if (auto out = cli->optional<std::string>("output")) // (not empty: parse_command_line)
    argv.push_back("--output=" + *out); // (one argument: a folder whose name starts with '-' too)
  argv.push_back("--"); // a file whose name starts with '-' is not an option
  argv.push_back(cli->file);
  std::vector<char*> c_argv;
  for (auto& a : argv)
    c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  std::fflush(stdout);
  execvp(c_argv[0], c_argv.data());
  throw UsageError(std::string("cannot run ") + python + ": " + std::strerror(errno) +
                   " (tools/setup.sh installs python3-h5py and python3-matplotlib)");
}

} // namespace

int export_results_command(const std::vector<std::string>& args) { return export_main(args); }
int plot_command(const std::vector<std::string>& args) { return python_main("plot", args); }
int report_command(const std::vector<std::string>& args) { return python_main("report", args); }

} // namespace ceiling::tools
