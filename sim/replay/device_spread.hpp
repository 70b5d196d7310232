// How much slower or faster each device of a run computes than its model's calibration: devices
// of one model differ (manufacturing, power management), and synchronous training waits for the
// slowest of them at every step.
#pragma once

#include "platform/platform_spec.hpp"

#include <cstdint>
#include <vector>

namespace ceiling::replay {

/// The standard normal quantile: the z at which the standard normal distribution's cumulative
/// probability is `p`, for p in (0, 1), to a few ulp relative (about 1e-16 absolute near p = 1/2,
/// where z is near 0).
double standard_normal_quantile(double p);

/// Each of `devices` devices' compute-time factor, for a spread (coefficient of variation of one
/// device's compute time over devices of its model) of `spread`, 0 to platform::max_device_spread:
/// 1 + spread x z_k, the z_k being the expected order statistics of `devices` standard normal
/// draws in Blom's approximation, the quantiles at (k + 5/8) / (devices + 1/4), k = 0 ..
/// devices - 1 (G. Blom, Statistical Estimates and Transformed Beta-Variables, 1958), dealt out
/// to the devices in an order drawn from `seed`. So the factors are the sample N devices give on
/// average, which no seed can make luckier or unluckier: they average 1 (the calibration), the
/// slowest is slowest_device_factor(), and the seed only decides which device is which. A single
/// device computes at its calibration. All 1 where the spread is 0.
std::vector<double> device_time_factors(std::int64_t devices, double spread, std::uint64_t seed);

/// The slowest of device_time_factors(devices, spread, ...): 1 + spread x z((N - 3/8) / (N + 1/4)),
/// within 1 % of the expected slowest of N normal draws (8: 1 + 1.43 spread against 1.42, 512: 3.03
/// against 3.04, 4,096: 3.61 against 3.63).
double slowest_device_factor(std::int64_t devices, double spread);

} // namespace ceiling::replay
