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

/// The project version, from CMake.
const char* version();

/// `ceiling platform show|export|bench ...`; returns the exit status.
int platform_command(const std::vector<std::string>& args);

/// `ceiling run --platform P --workload W --nodes N ...`; returns the exit status.
int run_command(const std::vector<std::string>& args);

/// `ceiling workload show|calibrate ...`; returns the exit status.
int workload_command(const std::vector<std::string>& args);

} // namespace ceiling::tools
