// A purely relative tolerance for doctest comparisons.
#pragma once

#include <doctest/doctest.h>

namespace ceiling::testing {

/// Approx of `expected` that passes when |actual - expected| < tolerance x max(|actual|,
/// |expected|). doctest's Approx alone adds its scale (1) to that magnitude, so on values far
/// below one second its epsilon is an absolute tolerance, not a relative one.
inline doctest::Approx relative(double expected, double tolerance) {
  return doctest::Approx(expected).epsilon(tolerance).scale(0);
}

} // namespace ceiling::testing
