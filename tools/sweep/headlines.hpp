// The table a sweep prints at its end (`ceiling sweep`, `ceiling-mpi-sweep`).
#pragma once

#include "io/result_store.hpp"

#include <string>

namespace ceiling::tools {

/// Per curve: its reference N, the efficiency and 1 - alpha_eff at the largest N, the measured
/// or fitted N at E = 0.5, the fitted ceiling (with the fit's shape) and the dominant part of
/// 1 - alpha_eff, a dash where one node count leaves nothing to compare; then the legend, the
/// curves not Amdahl-shaped by reason, and the scaling modes whose curves' N ref differ. Text,
/// lines ending in newlines, beginning with an empty one.
std::string headlines(const io::ResultFile& r);

} // namespace ceiling::tools
