// How much slower or faster each device of a run computes than its model's calibration: devices
// of one model differ (manufacturing, power management), and synchronous training waits for the
// slowest of them at every step.
#pragma once

#include "platform/platform_spec.hpp"

#include <cstdint>
#include <vector>

namespace ceiling::replay {

/// The standard normal quantile: the z at which the standard normal distribution's cumulative
/// probability is `p`, for p in (0, 1), to about 1e-15 relative.
double standard_normal_quantile(double p);

/// Each of `devices` devices' compute-time factor, for a spread (coefficient of variation of one
/// device's compute time over devices of its model) of `spread`, 0 to platform::max_device_spread:
/// 1 + spread x z, the z being the standard normal quantiles at (k + 1/2) / devices, k = 0 ..
/// devices - 1, dealt out to the devices in an order drawn from `seed`. So the factors are a
/// sample of the distribution that no seed can make luckier or unluckier: one device computes at
/// its calibration (the median device), the slowest of N at about 1 + spread x sqrt(2 ln N); the
/// seed only decides which device is which. All 1 where the spread is 0.
std::vector<double> device_time_factors(std::int64_t devices, double spread, std::uint64_t seed);

} // namespace ceiling::replay
