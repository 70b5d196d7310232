// Workload files (TOML) -> WorkloadSpec. The format is documented in workloads/README.md.
#pragma once

#include "config/load_error.hpp"
#include "workload/workload_spec.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ceiling::config {

/// Reads and validates a workload file, its layer DAG and its calibration (loading the
/// workload it borrows a calibration from); throws LoadError with file, line, column and key.
/// Platform paths in the file are resolved relative to the file.
/// `overrides` change keys of this file (not of the one it borrows a calibration from) before
/// it is read, as for load_platform(); those of the platform are skipped.
workload::WorkloadSpec load_workload(const std::string& path,
                                     std::span<const std::string> overrides = {});

/// The error for key `dotted_key` ("workload.precision", "hpl.grid_rows") of the workload file
/// at `path`, a training or an HPC one (with `overrides`, as load_workload() and
/// load_hpc_workload() read it), located at the key, or at its table where absent: for a check
/// the run makes against the platform (a precision its device lacks, a grid larger than the
/// nodes).
LoadError workload_key_error(const std::string& path, std::span<const std::string> overrides,
                             std::string_view dotted_key, std::string_view message);

/// The same from TOML text that claims to come from `path`.
workload::WorkloadSpec load_workload_text(std::string_view text, const std::string& path,
                                          std::span<const std::string> overrides = {});

/// The workload at `path` as `ceiling workload calibrate` reads it, to fit its compute
/// efficiencies: a [calibration] of its own or a [[device_calibration]] that has no
/// compute_efficiency yet (a new workload's) takes 1 for it, which the fit does not read.
workload::WorkloadSpec load_workload_to_calibrate(const std::string& path);

/// A fitted compute_efficiency of `w` (its own [calibration]'s, then each [[device_calibration]]'s)
/// that no longer reproduces the measurement it was fitted to within 0.1 % (edited by hand, or the
/// layers changed since `ceiling workload calibrate`), as the located error a run refuses it with
/// (at that key of the file at `path`); nullopt when every one holds.
std::optional<LoadError> stale_calibration(const workload::WorkloadSpec& w, const std::string& path);

/// Where `ceiling workload calibrate --write` puts a fitted compute_efficiency in a workload file:
/// the line of the key's value and its columns where the section gives the key, else the line
/// of the section's header, under which the key goes (line 0: no header line of its own, an
/// inline table or dotted keys: nowhere to write). Lines and columns count from 1; `end` is the
/// column after the value.
struct EfficiencyPlace {
  int line = 0;
  int begin = 0;
  int end = 0;
  bool given = false; ///< the key is there (else line is the header's)
};

/// The places of the file at `path` (as TOML text `text`): its own [calibration]'s (none where
/// borrowed), then each [[device_calibration]]'s, in the file's order.
std::vector<EfficiencyPlace> efficiency_places(std::string_view text, const std::string& path);

} // namespace ceiling::config
