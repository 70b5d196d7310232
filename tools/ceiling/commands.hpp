// Subcommands of the `ceiling` program.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ceiling::tools {

/// A command line that cannot be carried out as written; printed after "ceiling: error: ".
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// `ceiling platform show|export|bench ...`; returns the exit status.
int platform_command(const std::vector<std::string>& args);

/// `ceiling run --platform P --workload W --nodes N ...`; returns the exit status.
int run_command(const std::vector<std::string>& args);

/// `ceiling hpc --workload W --platform P [--nodes N] ...`: an HPL-like or HPCG-like run.
int hpc_command(const std::vector<std::string>& args);

/// `ceiling workload show|calibrate ...`; returns the exit status.
int workload_command(const std::vector<std::string>& args);

/// `ceiling sweep EXPERIMENT [-j JOBS] [--resume] [-o OUT.h5]`; returns the exit status.
int sweep_command(const std::vector<std::string>& args);

/// `ceiling sweep-point --sweep-version=VERSION RUN-OPTIONS...`: one point, its result encoded on stdout (internal).
int sweep_point_command(const std::vector<std::string>& args);

/// `ceiling validate [CASE...] [-j JOBS] [--json]`: validation cases predicted against measured.
int validate_command(const std::vector<std::string>& args);

/// `ceiling experiment show FILE`.
int experiment_command(const std::vector<std::string>& args);

/// `ceiling export RESULTS --csv DIR`.
int export_results_command(const std::vector<std::string>& args);

/// `ceiling plot RESULTS [-o DIR]` and `ceiling report RESULTS [-o DIR]`.
int plot_command(const std::vector<std::string>& args);
int report_command(const std::vector<std::string>& args);

} // namespace ceiling::tools
