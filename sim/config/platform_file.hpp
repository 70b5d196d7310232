// Platform files (TOML) -> PlatformSpec. The file format is documented in platforms/README.md.
#pragma once

#include "config/load_error.hpp"
#include "platform/platform_spec.hpp"

#include <span>
#include <string>
#include <string_view>

namespace ceiling::config {

/// Reads and validates a platform file; throws LoadError naming file, line, column and key.
/// `overrides` ("interconnect.link_bandwidth=25 GB/s", config/overrides.hpp) change keys of
/// the file before it is read, with the same checks; those of the workload are skipped.
/// Setting interconnect.topology to another kind drops the former topology's keys.
platform::PlatformSpec load_platform(const std::string& path,
                                     std::span<const std::string> overrides = {});

/// The same from TOML text that claims to come from `path` (tests, embedded documents).
platform::PlatformSpec load_platform_text(std::string_view text, const std::string& path,
                                          std::span<const std::string> overrides = {});

/// The error for platform key `dotted_key` ("node.cpu.dgemm") of the file at `path` (with
/// `overrides`, as load_platform() reads it), located at the key, or at its table where the key
/// is absent (for a check made outside the file reader: what an HPC workload needs).
LoadError platform_key_error(const std::string& path, std::span<const std::string> overrides,
                             std::string_view dotted_key, std::string_view message);

/// Per-lane, per-direction PCIe data rate after line encoding, for generations 1 to 5
/// (PCI-SIG: 2.5, 5, 8, 16, 32 GT/s; 8b/10b up to Gen2, 128b/130b from Gen3).
units::Bandwidth pcie_lane_bandwidth(int generation);

} // namespace ceiling::config
