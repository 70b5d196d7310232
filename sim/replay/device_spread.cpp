// Each device's compute-time factor: the expected order statistics of a normal spread, dealt out
// by seed.
#include "replay/device_spread.hpp"

#include <cassert>
#include <cmath>
#include <numbers>
#include <random>

namespace ceiling::replay {
namespace {

/// Blom's position of the k-th smallest of n (from 0): its expected normal order statistic's
/// cumulative probability.
double blom_position(std::int64_t k, std::int64_t n) {
  return (static_cast<double>(k) + 0.625) / (static_cast<double>(n) + 0.25);
}

} // namespace

double standard_normal_quantile(double p) {
  assert(p > 0 && p < 1 && "a probability strictly between 0 and 1");
  // The lower tail, then the sign: q = min(p, 1 - p) keeps the cumulative probability where
  // doubles resolve it (1 - p loses digits near 1).
  const double q = p < 0.5 ? p : 1 - p;
  // A start within 4.5e-4 (Abramowitz and Stegun 26.2.23), then Newton's steps on
  // Phi(z) = erfc(-z / sqrt 2) / 2, whose error each step squares.
  const double t = std::sqrt(-2 * std::log(q));
  double z = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  for (int step = 0; step < 4; ++step) {
    const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
    const double density = std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
    z -= (cdf - q) / density;
  }
  return p < 0.5 ? z : -z;
}

std::vector<double> device_time_factors(std::int64_t devices, double spread, std::uint64_t seed) {
  assert(devices >= 0 && spread >= 0 && spread <= platform::max_device_spread);
  const auto n = static_cast<std::size_t>(devices);
  std::vector<double> factors(n, 1.0);
  if (spread == 0)
    return factors;
  // The positions are symmetric: each pair computed once (the middle one of an odd count is 1).
  for (std::size_t k = 0; k < n / 2; ++k) {
    const double z = standard_normal_quantile(blom_position(static_cast<std::int64_t>(k), devices));
    factors[k] = 1 + spread * z;
    factors[n - 1 - k] = 1 - spread * z;
  }
  // Fisher-Yates with the generator's own bits (the standard's distributions differ from one
  // library to the next; the modulo's bias is below 2^-40 for at most 2^24 devices, the most a
  // platform has). Bit for bit on one C library, as the rest of the replay (erfc, exp, log).
  std::mt19937_64 rng(seed ^ 0x6465766963657321ULL); // apart from the engine's draws of the same seed
  for (std::size_t i = n; i > 1; --i)
    std::swap(factors[i - 1], factors[rng() % i]);
  return factors;
}

double slowest_device_factor(std::int64_t devices, double spread) {
  assert(devices >= 1);
  // The mirror of the fastest, as device_time_factors deals it (the quantile near p = 1 would
  // lose digits to p's rounding).
  return devices < 2 || spread == 0 ? 1.0 : 1 - spread * standard_normal_quantile(blom_position(0, devices));
}

} // namespace ceiling::replay
