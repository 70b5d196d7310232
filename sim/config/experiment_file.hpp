// Experiment files (TOML) -> ExperimentSpec. The format is documented in experiments/README.md.
#pragma once

#include "sweep/experiment_spec.hpp"

#include <string>
#include <string_view>

namespace ceiling::config {

/// Reads and validates an experiment file; throws LoadError naming file, line, column and key.
/// Platform and workload paths are resolved against the file's folder; the platform and
/// workload files themselves are read by load_platform() and load_workload() with their
/// overrides, so that a bad file or override is reported before anything runs.
sweep::ExperimentSpec load_experiment(const std::string& path);

/// The same from TOML text that claims to come from `path`.
sweep::ExperimentSpec load_experiment_text(std::string_view text, const std::string& path);

} // namespace ceiling::config
