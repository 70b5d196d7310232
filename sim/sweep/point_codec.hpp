// PointResult as text: what a point's process prints and the sweep reads back, exactly.
#pragma once

#include "sweep/point.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace ceiling::sweep {

/// One "key value" line per field after a "ceiling-point 1" header; doubles with 17
/// significant digits, so decode(encode(r)) == r bit for bit; the error on one line with "\\"
/// and "\n" escaped.
std::string encode(const PointResult& r);

/// The result `text` encodes, or nullopt with `problem` set (a missing header, an unknown or
/// missing field, a bad number, a result_problem()).
std::optional<PointResult> decode(std::string_view text, std::string& problem);

/// What keeps `r` from being a result a point could give: a finished point (ok) with a number
/// that is not finite or is negative, no positive iteration time, no rank or no sample; a point
/// both finished and not fitting. None where it is one (what the sweep reads from a point's
/// process, and a result file's reader from each row).
std::optional<std::string> result_problem(const PointResult& r);

} // namespace ceiling::sweep
