// `ceiling export`, `ceiling plot` and `ceiling report`: a result file into tables, pictures
// and a page. Plot and report are Python (matplotlib, h5py), reading the store only.
#include "io/result_store.hpp"
#include "tools/ceiling/commands.hpp"
#include "tools/ceiling/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace po = boost::program_options;

namespace ceiling::tools {
namespace {

/// A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string csv(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos)
    return text;
  std::string out = "\"";
  for (char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv(double v) {
  if (std::isnan(v))
    return "nan";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

std::string csv(long long v) { return std::to_string(v); }

/// Writes `rows` (a header first) to DIR/name, atomically (name.tmp, then renamed).
void write_csv(const std::filesystem::path& dir, const std::string& name,
               const std::vector<std::vector<std::string>>& rows) {
  const auto path = dir / name;
  const auto tmp = dir / (name + ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary);
    for (const auto& row : rows) {
      for (std::size_t i = 0; i < row.size(); ++i)
        out << (i ? "," : "") << row[i];
      out << "\n";
    }
    if (!out.flush())
      throw UsageError("cannot write " + tmp.string());
  }
  std::filesystem::rename(tmp, path);
  std::printf("wrote %s\n", path.string().c_str());
}

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
    throw UsageError("export: --csv DIR is required");
  const io::ResultFile r = io::read_results(cli->file);
  const std::filesystem::path dir = cli->vm["csv"].as<std::string>();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw UsageError("cannot create " + dir.string() + ": " + ec.message());

  std::vector<std::vector<std::string>> points{
      {"index", "curve", "curve_id", "nodes", "seed", "ranks", "batch_per_rank", "status",
       "error", "iteration_time_s", "warmup_time_s", "iteration_time_min_s",
       "iteration_time_max_s", "samples_per_iteration", "flop_per_iteration", "peak_flop_per_s",
       "compute_s", "copy_s", "communication_s", "synchronisation_s", "bytes_pcie", "bytes_nic",
       "bytes_fabric", "bytes_gpu_link", "bytes_host_memory"}};
  for (const auto& p : r.points) {
    const auto& x = p.result;
    points.push_back(
        {csv(static_cast<long long>(p.spec.index)), csv(static_cast<long long>(p.spec.curve)),
         csv(r.curves[static_cast<std::size_t>(p.spec.curve)].id), csv(p.spec.nodes),
         csv(static_cast<long long>(p.spec.seed)), csv(x.ranks), csv(x.batch_per_rank),
         x.ok ? "ok" : "failed", csv(x.error), csv(x.iteration_time_s), csv(x.warmup_time_s),
         csv(x.iteration_time_min_s), csv(x.iteration_time_max_s), csv(x.samples_per_iteration),
         csv(x.flop_per_iteration), csv(x.peak_flop_per_s), csv(x.compute_s), csv(x.copy_s),
         csv(x.communication_s), csv(x.synchronisation_s), csv(x.bytes_pcie), csv(x.bytes_nic),
         csv(x.bytes_fabric), csv(x.bytes_gpu_link), csv(x.bytes_host_memory)});
  }
  std::vector<std::vector<std::string>> curves{
      {"curve", "curve_id", "platform", "workload", "variant", "scaling", "n", "seeds",
       "iteration_time_s", "iteration_time_min_s", "iteration_time_max_s",
       "throughput_samples_per_s", "speedup", "efficiency", "alpha_eff", "payload_flop_per_s",
       "payload_efficiency", "compute_s", "copy_s", "communication_s", "synchronisation_s",
       "nonpar_communication", "nonpar_copy", "nonpar_synchronisation",
       "nonpar_compute_imbalance"}};
  std::vector<std::vector<std::string>> fits{
      {"curve", "curve_id", "platform", "workload", "variant", "scaling", "n_unit", "n_reference",
       "amdahl_alpha", "ceiling_speedup", "n_half_efficiency_fit", "n_doubling_below_10pct_fit",
       "fit_residual", "amdahl_shaped", "n_half_efficiency_measured",
       "n_doubling_below_10pct_measured", "alpha_eff_at_largest_n", "dominant_term"}};
  for (std::size_t c = 0; c < r.curves.size(); ++c) {
    const auto& spec = r.curves[c];
    const auto& a = r.analyses[c];
    const std::vector<std::string> head{csv(static_cast<long long>(c)), csv(spec.id),
                                        csv(spec.platform), csv(spec.workload),
                                        csv(spec.variant),
                                        std::string(analysis::to_string(spec.scaling))};
    for (const auto& m : a.points) {
      auto row = head;
      for (double v : {m.n, static_cast<double>(m.seeds), m.iteration_time_s,
                       m.iteration_time_min_s, m.iteration_time_max_s,
                       m.throughput_samples_per_s, m.speedup, m.efficiency, m.alpha_eff,
                       m.payload_flop_per_s, m.payload_efficiency, m.compute_s, m.copy_s,
                       m.communication_s, m.synchronisation_s, m.nonpar_communication,
                       m.nonpar_copy, m.nonpar_synchronisation, m.nonpar_compute_imbalance})
        row.push_back(csv(v));
      curves.push_back(row);
    }
    auto row = head;
    row.push_back("nodes");
    for (double v : {a.n_reference, a.fit.alpha, a.fit.ceiling_speedup, a.fit.n_half_efficiency,
                     a.fit.n_doubling_below_10pct, a.fit.residual})
      row.push_back(csv(v));
    row.push_back(a.fit.amdahl_shaped ? "1" : "0");
    for (double v : {a.n_half_efficiency_measured, a.n_doubling_below_10pct_measured,
                     a.alpha_eff_at_largest_n})
      row.push_back(csv(v));
    row.push_back(csv(a.dominant_term));
    fits.push_back(row);
  }
  write_csv(dir, "points.csv", points);
  write_csv(dir, "curves.csv", curves);
  write_csv(dir, "fits.csv", fits);
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
  const char* script_env = std::getenv("CEILING_PLOT_SCRIPT");
  const std::string script = script_env ? script_env : CEILING_PLOT_SCRIPT;
  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::vector<std::string> argv{python, script, verb, cli->file};
  if (auto out = cli->optional<std::string>("output")) {
    argv.push_back("-o");
    argv.push_back(*out);
  }
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
