// Platform files (TOML) -> PlatformSpec. The file format is documented in platforms/README.md.
#pragma once

#include "platform/platform_spec.hpp"

#include <string>
#include <string_view>

namespace ceiling::config {

/// Reads and validates a platform file; throws LoadError naming file, line, column and key.
platform::PlatformSpec load_platform(const std::string& path);

/// The same from TOML text that claims to come from `path` (tests, embedded documents).
platform::PlatformSpec load_platform_text(std::string_view text, const std::string& path);

/// Per-lane, per-direction PCIe data rate after line encoding, for generations 1 to 5
/// (PCI-SIG: 2.5, 5, 8, 16, 32 GT/s; 8b/10b up to Gen2, 128b/130b from Gen3).
units::Bandwidth pcie_lane_bandwidth(int generation);

} // namespace ceiling::config
