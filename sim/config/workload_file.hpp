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

} // namespace ceiling::config
