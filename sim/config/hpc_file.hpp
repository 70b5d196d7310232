// HPC workload files (TOML, kind = "hpl" or "hpcg") -> specs. Documented in workloads/README.md.
#pragma once

#include "config/load_error.hpp"
#include "hpc/hpcg.hpp"
#include "hpc/hpl.hpp"

#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace ceiling::config {

struct HpcWorkload {
  std::string name;
  std::string title;
  std::string source; ///< what the file's parameters rest on
  std::variant<hpc::HplSpec, hpc::HpcgSpec> spec;
};

/// Reads an HPC workload file; `overrides` (KEY=VALUE, keys of this file) change it first.
/// Throws LoadError with file, line, column and key.
HpcWorkload load_hpc_workload(const std::string& path, std::span<const std::string> overrides = {});

/// Whether the workload file at `path` is an HPC one ([workload] kind = "hpl" or "hpcg").
/// Throws LoadError when it cannot be read or parsed.
bool is_hpc_workload(const std::string& path);

} // namespace ceiling::config
