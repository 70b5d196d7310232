// Workload files (TOML) -> WorkloadSpec. The format is documented in workloads/README.md.
#pragma once

#include "workload/workload_spec.hpp"

#include <span>
#include <string>
#include <string_view>

namespace ceiling::config {

/// Reads and validates a workload file, its layer DAG and its calibration (loading the
/// workload it borrows a calibration from); throws LoadError with file, line, column and key.
/// Platform paths in the file are resolved relative to the file.
/// `overrides` change keys of this file (not of the one it borrows a calibration from) before
/// it is read, as for load_platform(); those of the platform are skipped.
workload::WorkloadSpec load_workload(const std::string& path,
                                     std::span<const std::string> overrides = {});

/// The same from TOML text that claims to come from `path`.
workload::WorkloadSpec load_workload_text(std::string_view text, const std::string& path,
                                          std::span<const std::string> overrides = {});

/// The workload at `path` as `ceiling workload calibrate` reads it, to fit its compute
/// efficiencies: a [calibration] of its own or a [[device_calibration]] that has no
/// compute_efficiency yet (a new workload's) takes 1 for it, which the fit does not read.
workload::WorkloadSpec load_workload_to_calibrate(const std::string& path);

} // namespace ceiling::config
