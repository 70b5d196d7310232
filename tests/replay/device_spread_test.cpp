// Device spread: the normal quantiles it deals out, and how a seed deals them.
#include "replay/device_spread.hpp"
#include "support/relative.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

using namespace ceiling;
using testing::relative;

TEST_CASE("the normal quantile inverts the normal distribution to 1e-13, into both tails") {
  // Tabulated values (Abramowitz and Stegun, Table 26.5; R's qnorm).
  CHECK(replay::standard_normal_quantile(0.975) == relative(1.959963984540054, 1e-14));
  CHECK(replay::standard_normal_quantile(0.025) == relative(-1.959963984540054, 1e-14));
  CHECK(replay::standard_normal_quantile(1e-9) == relative(-5.997807015007687, 1e-13));
  CHECK(std::abs(replay::standard_normal_quantile(0.5)) <= 1e-15);
  for (double p = 1e-7; p < 1; p += 0.0137) {
    CAPTURE(p);
    const double z = replay::standard_normal_quantile(p);
    CHECK(0.5 * std::erfc(-z / std::sqrt(2.0)) == relative(p, 1e-13));
  }
}

TEST_CASE("eight devices get the normal order statistics of eight in Blom's approximation, whatever the seed") {
  // z at (k + 5/8) / 8.25 (Python's statistics.NormalDist().inv_cdf): the expected slowest of 8
  // standard normal draws is 1.4236, Blom's 1.4342.
  const std::vector<double> z{-1.4342001596863794, -0.8524950342746939, -0.4727891209922673, -0.15250597424624437,
                              0.15250597424624424, 0.4727891209922672,  0.8524950342746939,  1.4342001596863794};
  const double spread = 0.02;
  for (std::uint64_t seed : {1, 2, 99}) {
    CAPTURE(seed);
    auto dealt = replay::device_time_factors(8, spread, seed);
    std::sort(dealt.begin(), dealt.end());
    for (std::size_t k = 0; k < z.size(); ++k)
      CHECK(dealt[k] == relative(1 + spread * z[k], 1e-15));
    CHECK(std::accumulate(dealt.begin(), dealt.end(), 0.0) / 8 == relative(1, 1e-15)); // the calibration on average
  }
  CHECK(replay::slowest_device_factor(8, spread) == relative(1 + spread * 1.4342001596863794, 1e-15));
  // Larger runs: the slowest of 4,096 at z = 3.6109 (the expected slowest: 3.6261).
  const auto many = replay::device_time_factors(4096, spread, 1);
  CHECK(*std::max_element(many.begin(), many.end()) == relative(1 + spread * 3.6108822798439633, 1e-15));
  CHECK(replay::slowest_device_factor(4096, spread) == relative(1 + spread * 3.6108822798439633, 1e-15));
}

TEST_CASE("one device computes at its calibration, an odd count's middle one too") {
  CHECK(replay::device_time_factors(1, 0.05, 7) == std::vector<double>{1.0});
  CHECK(replay::slowest_device_factor(1, 0.05) == 1.0);
  const auto nine = replay::device_time_factors(9, 0.05, 7);
  CHECK(std::count(nine.begin(), nine.end(), 1.0) == 1);
  CHECK(replay::device_time_factors(0, 0.05, 7).empty());
}

TEST_CASE("a seed deals the paces the same way every time, another seed another way") {
  const auto a = replay::device_time_factors(64, 0.01, 1);
  CHECK(replay::device_time_factors(64, 0.01, 1) == a); // bit for bit
  const auto b = replay::device_time_factors(64, 0.01, 2);
  CHECK(b != a);
  auto sorted_a = a, sorted_b = b;
  std::sort(sorted_a.begin(), sorted_a.end());
  std::sort(sorted_b.begin(), sorted_b.end());
  CHECK(sorted_a == sorted_b); // the same sample, dealt otherwise
  CHECK_FALSE(std::is_sorted(a.begin(), a.end())); // dealt out, not left in order
}

TEST_CASE("no spread, every device at its calibration") {
  const auto factors = replay::device_time_factors(100, 0.0, 5);
  CHECK(std::all_of(factors.begin(), factors.end(), [](double f) { return f == 1.0; }));
  CHECK(replay::slowest_device_factor(100, 0.0) == 1.0);
}
