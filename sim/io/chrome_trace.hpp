// Timelines as Chrome trace JSON (chrome://tracing, Perfetto).
#pragma once

#include "replay/result.hpp"

#include <ostream>
#include <string_view>

namespace ceiling::io {

/// Writes `timeline` as a Chrome trace: a process per kind of activity ("compute", "copies
/// host->device", "copies device->host", "communication", "collectives"), in each a track per
/// rank (more where one rank's copies of one direction overlap: "rank 3 (2)"). Times in
/// microseconds, as the format wants.
void write_chrome_trace(const std::vector<replay::TimelineEvent>& timeline, std::ostream& out);

/// How a trace write_chrome_trace() wrote begins, white space aside (its first key), so that an
/// earlier trace is told from other files before it is written over.
inline constexpr std::string_view chrome_trace_start = R"({"displayTimeUnit")";

} // namespace ceiling::io
