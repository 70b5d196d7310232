// Device spread: the normal quantiles it deals out, and how a seed deals them.
#include "replay/device_spread.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

using namespace ceiling;

TEST_CASE("the normal quantile inverts the normal distribution to 1e-13, into both tails") {
  // Tabulated values (Abramowitz and Stegun, Table 26.5; R's qnorm).
  CHECK(replay::standard_normal_quantile(0.975) == doctest::Approx(1.959963984540054).epsilon(1e-14));
  CHECK(replay::standard_normal_quantile(0.025) == doctest::Approx(-1.959963984540054).epsilon(1e-14));
  CHECK(replay::standard_normal_quantile(1e-9) == doctest::Approx(-5.997807015007687).epsilon(1e-13));
  CHECK(std::abs(replay::standard_normal_quantile(0.5)) <= 1e-15);
  for (double p = 1e-7; p < 1; p += 0.0137) {
    CAPTURE(p);
    const double z = replay::standard_normal_quantile(p);
    CHECK(0.5 * std::erfc(-z / std::sqrt(2.0)) == doctest::Approx(p).epsilon(1e-13));
  }
  CHECK_THROWS(replay::standard_normal_quantile(0.0));
  CHECK_THROWS(replay::standard_normal_quantile(1.0));
}

TEST_CASE("devices get the quantiles at (k + 1/2) / N, whatever the seed, averaging 1") {
  const double spread = 0.02;
  const auto one = replay::device_time_factors(1, spread, 7);
  CHECK(one == std::vector<double>{1.0}); // one device computes at its calibration
  for (std::int64_t n : {2, 8, 9, 1000}) {
    CAPTURE(n);
    auto dealt = replay::device_time_factors(n, spread, 1);
    std::sort(dealt.begin(), dealt.end());
    for (std::int64_t k = 0; k < n; ++k)
      CHECK(dealt[static_cast<std::size_t>(k)] ==
            doctest::Approx(1 + spread * replay::standard_normal_quantile((k + 0.5) / n)).epsilon(1e-15));
    CHECK(std::accumulate(dealt.begin(), dealt.end(), 0.0) / static_cast<double>(n) == doctest::Approx(1).epsilon(1e-15));
  }
  // 8 devices: the slowest computes 1 + 0.02 x 1.5341205443525459 (z at 15/16).
  const auto eight = replay::device_time_factors(8, spread, 3);
  CHECK(*std::max_element(eight.begin(), eight.end()) == doctest::Approx(1 + spread * 1.5341205443525459).epsilon(1e-14));
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
  CHECK_FALSE(std::is_sorted(a.begin(), a.end())); // dealt out, not left in quantile order
}

TEST_CASE("no spread, every device at its calibration") {
  const auto factors = replay::device_time_factors(100, 0.0, 5);
  CHECK(std::all_of(factors.begin(), factors.end(), [](double f) { return f == 1.0; }));
}
