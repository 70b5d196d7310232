// Timelines as Chrome trace JSON (chrome://tracing, Perfetto).
#pragma once

#include "replay/result.hpp"

#include <ostream>

namespace ceiling::io {

/// Writes `timeline` as a Chrome trace: process "ranks" with one track per rank (compute,
/// copies and collective flows that rank sends), and process "links" with one track per link
/// class (PCIe copies, network flows). Times in microseconds, as the format wants.
void write_chrome_trace(const std::vector<replay::TimelineEvent>& timeline, std::ostream& out);

} // namespace ceiling::io
